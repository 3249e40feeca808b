-- Polls on top-level cards: 2–4 options, single or multiple choice, one ballot per account,
-- changeable until the poll closes.
--
-- The poll lives on its card's row, so that every read of cards has it without a join: its
-- options, whether several may be chosen, when it closes (NULL: never; a story's poll closes
-- with the story), the ballots per option and the ballots in all. `poll_closed_at` is set once,
-- by the closing job, in the same statement that writes the `poll_closed` notifications: the
-- mark that they were written, exactly once. A card without a poll has every column NULL.
ALTER TABLE cards
    ADD COLUMN poll_options   text[],
    ADD COLUMN poll_multiple  boolean,
    ADD COLUMN poll_closes_at timestamptz,
    ADD COLUMN poll_votes     integer[],
    ADD COLUMN poll_voters    integer,
    ADD COLUMN poll_closed_at timestamptz;
-- NOT VALID: no existing card has a poll, so there is nothing to check and no reason to read
-- the whole table under a lock; every new or changed row is checked.
ALTER TABLE cards ADD CONSTRAINT cards_poll_shape CHECK (
    (poll_options IS NULL AND poll_multiple IS NULL AND poll_closes_at IS NULL AND poll_votes IS NULL AND poll_voters IS NULL)
    OR (cardinality(poll_options) BETWEEN 2 AND 4 AND poll_multiple IS NOT NULL AND parent_id IS NULL
        AND cardinality(poll_votes) = cardinality(poll_options) AND 0 <= ALL (poll_votes) AND poll_voters >= 0)) NOT VALID;

-- The polls the closing job has still to close, soonest first.
CREATE INDEX cards_poll_closing_idx ON cards (poll_closes_at) WHERE poll_closed_at IS NULL AND poll_closes_at IS NOT NULL;

-- One ballot per account and poll: the options chosen as bits (option i is bit i), never 0 (a
-- withdrawn ballot is deleted). The card's counters move in the same transaction (`cast_ballot`).
CREATE TABLE poll_ballots (
    card_id     uuid        NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    choices     smallint    NOT NULL CHECK (choices BETWEEN 1 AND 15),
    cast_at     timestamptz NOT NULL,
    PRIMARY KEY (card_id, account_id)
);
-- A voter's ballots: their book of marks (`myVotes`) and their withdrawal.
CREATE INDEX poll_ballots_account_idx ON poll_ballots (account_id, card_id) INCLUDE (choices);

-- Casts, changes (`p_choices` > 0) or withdraws (0) `p_voter`'s ballot on the poll of `p_card`,
-- moving the card's counters by the difference, and answers the poll as it is then. One call,
-- one round trip. `outcome`: `ok`; `missing` (no such live card visible to the voter, no poll,
-- or no such voter); `author` (the author cannot vote on their own poll); `closed`; `invalid`
-- (an option the poll does not have, or not exactly one on a single-choice poll).
--
-- Exact under any concurrency: the voter's account is locked first (KEY SHARE: a withdrawal, which
-- holds it FOR UPDATE while it takes its ballots back, finishes first or waits), then the card
-- (NO KEY UPDATE: one ballot change per poll at a time, likes and comments unhindered); only
-- then is the earlier ballot read, with a snapshot taken after both locks. Accounts before cards:
-- the lock order of every card writer.
CREATE FUNCTION cast_ballot(p_card uuid, p_voter uuid, p_choices integer)
RETURNS TABLE (outcome text, options text[], multiple boolean, votes integer[], voters integer, closes_at timestamptz, choices integer)
LANGUAGE plpgsql AS $$
DECLARE
    target record;
    earlier integer;
BEGIN
    PERFORM 1 FROM accounts a WHERE a.id = p_voter FOR KEY SHARE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'missing', NULL::text[], NULL::boolean, NULL::integer[], NULL::integer, NULL::timestamptz, NULL::integer;
        RETURN;
    END IF;
    SELECT c.author_id, c.poll_options, c.poll_multiple, c.poll_closes_at INTO target FROM cards c
    WHERE c.id = p_card AND (c.expires_at IS NULL OR c.expires_at > now()) AND c.hidden_at IS NULL AND c.poll_options IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (p_voter, c.author_id) AND b.blocked_id IN (p_voter, c.author_id))
      AND NOT EXISTS (SELECT 1 FROM reports r WHERE r.card_id = c.id AND r.reporter_id = p_voter)
    FOR NO KEY UPDATE OF c;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'missing', NULL::text[], NULL::boolean, NULL::integer[], NULL::integer, NULL::timestamptz, NULL::integer;
        RETURN;
    END IF;
    IF target.author_id = p_voter AND p_choices <> 0 THEN
        RETURN QUERY SELECT 'author', NULL::text[], NULL::boolean, NULL::integer[], NULL::integer, NULL::timestamptz, NULL::integer;
        RETURN;
    END IF;
    IF target.poll_closes_at <= now() THEN
        RETURN QUERY SELECT 'closed', NULL::text[], NULL::boolean, NULL::integer[], NULL::integer, NULL::timestamptz, NULL::integer;
        RETURN;
    END IF;
    IF p_choices < 0 OR p_choices >= (1 << cardinality(target.poll_options))
       OR (NOT target.poll_multiple AND p_choices & (p_choices - 1) <> 0) THEN
        RETURN QUERY SELECT 'invalid', NULL::text[], NULL::boolean, NULL::integer[], NULL::integer, NULL::timestamptz, NULL::integer;
        RETURN;
    END IF;
    SELECT b.choices INTO earlier FROM poll_ballots b WHERE b.card_id = p_card AND b.account_id = p_voter;
    earlier := COALESCE(earlier, 0);
    IF p_choices = 0 THEN
        DELETE FROM poll_ballots b WHERE b.card_id = p_card AND b.account_id = p_voter;
    ELSIF p_choices <> earlier THEN
        INSERT INTO poll_ballots AS b (card_id, account_id, choices, cast_at) VALUES (p_card, p_voter, p_choices, now())
        ON CONFLICT (card_id, account_id) DO UPDATE SET choices = EXCLUDED.choices, cast_at = EXCLUDED.cast_at;
    END IF;
    IF p_choices <> earlier THEN
        RETURN QUERY
        UPDATE cards c SET
            poll_votes = ARRAY(
                SELECT u.v + ((p_choices >> (u.i - 1)::int) & 1) - ((earlier >> (u.i - 1)::int) & 1)
                FROM unnest(c.poll_votes) WITH ORDINALITY AS u (v, i) ORDER BY u.i),
            poll_voters = c.poll_voters + (p_choices <> 0)::int - (earlier <> 0)::int
        WHERE c.id = p_card
        RETURNING 'ok'::text, c.poll_options, c.poll_multiple, c.poll_votes, c.poll_voters, c.poll_closes_at, p_choices;
    ELSE
        RETURN QUERY SELECT 'ok'::text, c.poll_options, c.poll_multiple, c.poll_votes, c.poll_voters, c.poll_closes_at, p_choices
        FROM cards c WHERE c.id = p_card;
    END IF;
END
$$;

-- A poll's closing is told to its voters and author (`poll_closed`). A story's poll that closes
-- with its story is told without the card (`card_id` NULL), which is gone: a notification goes with
-- its card otherwise.
ALTER TABLE notifications DROP CONSTRAINT notifications_type_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_type_check CHECK (type IN (
    'card_liked', 'card_commented', 'followed', 'favorite_tag_used', 'card_hidden', 'posting_restricted', 'poll_closed')) NOT VALID;
ALTER TABLE notifications VALIDATE CONSTRAINT notifications_type_check;

-- `myVotes` is one of a viewer's marks (`ViewerMarkCache`): a ballot cast, changed or withdrawn
-- (by the voter, a card's deletion, a withdrawal) notifies `soom_marks_changed` with the voter's
-- id, as likes do (migration 0014; its function reads `account_id`, which ballots have too).
CREATE TRIGGER poll_ballots_marked AFTER INSERT ON poll_ballots
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER poll_ballots_unmarked AFTER DELETE ON poll_ballots
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER poll_ballots_remarked AFTER UPDATE ON poll_ballots
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER poll_ballots_marks_truncated AFTER TRUNCATE ON poll_ballots
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();
