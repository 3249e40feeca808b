-- The following feed of someone who follows many accounts, as an inbox filled when cards are
-- posted (issue 20). Fan-out on read (0005) costs one index probe per account followed: ~60 ms of
-- PostgreSQL for 5,000 follows once the newest cards are by accounts the reader does not follow.
-- Readers who follow at least `FollowingStatements.wideFollowing` (256) accounts get an inbox
-- instead: one row per top-level card of an account they follow, so a page is one range of one
-- index, whatever the reader follows and whoever posted last. Everyone else keeps fan-out on
-- read, and what a post writes is bounded by its author's *wide* followers, not all of them.
--
-- States of a reader (`accounts`):
--   inbox_since NULL                     fan-out on read;
--   inbox_since set, NOT inbox_ready     opened by the follow that reached the threshold: posts
--                                        fan out to them from then on; reads still fan out;
--   inbox_ready                          `following-inbox` job filled in the cards from before
--                                        (a request deadline later, when no post that missed
--                                        the opening can still be under way): reads take the
--                                        inbox for cards at or after inbox_since, fan-out on
--                                        read below it.
-- The job keeps inbox_since within `FollowingInbox.horizon` (7 days) and deletes older rows, so an
-- inbox holds about a week of its reader's feed.
--
-- Exactness: a post locks its author's row and fans out through `fan_out_card`, whose query sees
-- every follow committed before that lock was granted; a follow locks the followee's row and then
-- copies the followee's cards since inbox_since. So a follow and a post by the followee, in either
-- order, leave the card in the inbox exactly once. Unfollows and blocks delete the follows row
-- only: readers skip inbox rows of accounts no longer followed, and re-following copies again
-- (ON CONFLICT DO NOTHING).

ALTER TABLE accounts
    ADD COLUMN inbox_since timestamptz,
    ADD COLUMN inbox_ready boolean NOT NULL DEFAULT false;
-- The job's two scans: inboxes to fill, and inboxes whose lower edge is due to move up.
CREATE INDEX accounts_inbox_opening_idx ON accounts (inbox_since) WHERE inbox_since IS NOT NULL AND NOT inbox_ready;
CREATE INDEX accounts_inbox_ready_idx ON accounts (inbox_since) WHERE inbox_ready;

-- Whether the follower has an inbox, on every follows row: a post finds the followers to fan out
-- to in this small partial index instead of reading all of its author's followers.
ALTER TABLE follows ADD COLUMN inbox boolean NOT NULL DEFAULT false;
CREATE INDEX follows_inbox_idx ON follows (followee_id, follower_id) WHERE inbox;

-- No foreign key to the reader: its check would lock the reader's account row from inside a post
-- that holds its author's, against a withdrawal that locks the same two rows the other way round
-- (a deadlock). A withdrawal deletes its inbox itself, after locking every account it follows, so
-- a post by one of them either finished first or no longer sees the follow.
CREATE TABLE following_inbox (
    reader_id   uuid        NOT NULL,
    created_at  timestamptz NOT NULL,
    card_id     uuid        NOT NULL,
    author_id   uuid        NOT NULL,
    PRIMARY KEY (reader_id, created_at, card_id)
);
-- Rows arrive in time order, so a BRIN index finds the old ones for the job at almost no cost per
-- insert. No foreign key to the card: a deleted, hidden or expired card is skipped when read
-- (the reader joins `cards` anyway), and its row goes with the horizon.
CREATE INDEX following_inbox_created_brin ON following_inbox USING brin (created_at);

-- Fans a new top-level card out to its author's followers who have an inbox. VOLATILE: its query
-- takes a fresh snapshot, so it sees a follow that committed while the post waited for its
-- author's row lock (the post statement's own snapshot is older). Returns the rows written.
CREATE FUNCTION fan_out_card(p_card uuid, p_author uuid, p_at timestamptz) RETURNS integer
LANGUAGE sql VOLATILE AS $$
    WITH written AS (
        INSERT INTO following_inbox (reader_id, created_at, card_id, author_id)
        SELECT f.follower_id, p_at, p_card, p_author FROM follows f WHERE f.followee_id = p_author AND f.inbox
        ON CONFLICT DO NOTHING
        RETURNING 1)
    SELECT count(*)::integer FROM written
$$;

-- set_follow (0005), now with the inbox: a follow by a reader with an inbox copies the followee's
-- cards since inbox_since; the follow that brings the reader to p_inbox_from follows opens the
-- inbox (under the reader's row lock, which every follow and block of theirs takes first, so no
-- follows row of theirs is left without the flag).
DROP FUNCTION set_follow(uuid, uuid, boolean, timestamptz);
CREATE FUNCTION set_follow(p_viewer uuid, p_target uuid, p_follow boolean, p_at timestamptz, p_inbox_from integer,
                           OUT outcome text, OUT target_followers integer)
LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
    v_since timestamptz;
    v_following integer;
BEGIN
    PERFORM 1 FROM accounts WHERE id IN (p_viewer, p_target) ORDER BY id FOR NO KEY UPDATE;
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_target) OR NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_viewer)
       OR EXISTS (SELECT 1 FROM blocks WHERE blocker_id = p_target AND blocked_id = p_viewer) THEN
        outcome := 'not_found';
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM blocks WHERE blocker_id = p_viewer AND blocked_id = p_target) THEN
        outcome := 'blocked';
        RETURN;
    END IF;
    IF p_follow THEN
        SELECT inbox_since INTO v_since FROM accounts WHERE id = p_viewer;
        INSERT INTO follows (follower_id, followee_id, created_at, inbox) VALUES (p_viewer, p_target, p_at, v_since IS NOT NULL)
        ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS changed = ROW_COUNT;
        IF changed = 1 THEN
            UPDATE accounts SET following_count = following_count + 1 WHERE id = p_viewer RETURNING following_count INTO v_following;
            UPDATE accounts SET follower_count = follower_count + 1 WHERE id = p_target;
            INSERT INTO notifications (id, recipient_id, type, actor_id, created_at)
            VALUES (gen_random_uuid(), p_target, 'followed', p_viewer, p_at)
            ON CONFLICT (recipient_id, actor_id) WHERE type = 'followed' AND NOT read DO NOTHING;
            IF v_since IS NOT NULL THEN
                INSERT INTO following_inbox (reader_id, created_at, card_id, author_id)
                SELECT p_viewer, c.created_at, c.id, c.author_id FROM cards c
                WHERE c.author_id = p_target AND c.parent_id IS NULL AND c.created_at >= v_since
                ON CONFLICT DO NOTHING;
            ELSIF v_following >= p_inbox_from THEN
                UPDATE accounts SET inbox_since = clock_timestamp() WHERE id = p_viewer;
                UPDATE follows SET inbox = true WHERE follower_id = p_viewer;
            END IF;
        END IF;
    ELSE
        DELETE FROM follows WHERE follower_id = p_viewer AND followee_id = p_target;
        GET DIAGNOSTICS changed = ROW_COUNT;
        IF changed = 1 THEN
            UPDATE accounts SET following_count = following_count - 1 WHERE id = p_viewer;
            UPDATE accounts SET follower_count = follower_count - 1 WHERE id = p_target;
        END IF;
    END IF;
    SELECT follower_count INTO target_followers FROM accounts WHERE id = p_target;
    outcome := 'done';
END;
$$;
