-- Safety: reports, hidden cards and posting restrictions.
--
-- A hidden card stays in `cards` (its author can still open it) but counts nowhere: at the
-- moment it is hidden its tag rows are released, and its parent's comment_count or its author's
-- card_count loses it, in the same transaction as the report that hid it. Every reader treats
-- `hidden_at IS NOT NULL` as gone (`CardRow.live`), and every later path that removes a card
-- (delete, story expiry, withdrawal) subtracts only cards that were not hidden, so nothing is
-- counted down twice.

ALTER TABLE cards ADD COLUMN hidden_at timestamptz;
-- How many times the account has been restricted: the next restriction's length is chosen by it.
ALTER TABLE accounts ADD COLUMN restriction_count integer NOT NULL DEFAULT 0 CHECK (restriction_count >= 0);

-- The per-author probe of the following feed stays index-only with hidden cards filtered out:
-- the predicate carries `hidden_at IS NULL`, which every feed's condition implies.
DROP INDEX cards_author_feed_idx;
CREATE INDEX cards_author_feed_idx ON cards (author_id, created_at DESC, id DESC) INCLUDE (expires_at)
    WHERE parent_id IS NULL AND hidden_at IS NULL;

CREATE TABLE reports (
    card_id      uuid        NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    reporter_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    reason       text        NOT NULL CHECK (reason IN ('abuse', 'privacy', 'advertising', 'sexual', 'impersonation', 'other')),
    created_at   timestamptz NOT NULL,
    -- One report per account per card.
    PRIMARY KEY (card_id, reporter_id)
);
-- For the cascade of a reporter's withdrawal.
CREATE INDEX reports_reporter_idx ON reports (reporter_id);

-- Reports a card, in one round trip and one transaction.
--
-- Lock order, as every card writer: the author's account, then the card, then its parent, then
-- tag rows (in `release_card_tags`). The card row lock serialises the reports of one card, so
-- among any number of parallel reporters exactly one sees the count reach `p_threshold` and
-- hides the card and restricts its author — once.
--
-- `p_days` are the restriction lengths in days, the first restriction first; later restrictions
-- use the last. A restriction never shortens one already running.
--
-- Returns 'not_found' (no such card, hidden, expired, or a block either way between the two),
-- 'own_card', 'already_reported', 'reported' or 'hidden' (this report hid it).
CREATE FUNCTION report_card(p_card uuid, p_reporter uuid, p_reason text, p_at timestamptz, p_threshold integer, p_days integer[])
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_author     uuid;
    v_parent     uuid;
    v_tagged     boolean;
    v_reports    integer;
    v_restricted integer;
    v_until      timestamptz;
BEGIN
    SELECT author_id INTO v_author FROM cards WHERE id = p_card;
    IF v_author IS NULL THEN
        RETURN 'not_found';
    END IF;
    PERFORM 1 FROM accounts WHERE id = v_author FOR NO KEY UPDATE;
    SELECT c.parent_id, cardinality(c.tags) > 0 INTO v_parent, v_tagged
    FROM cards c
    WHERE c.id = p_card AND c.hidden_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > p_at)
      AND EXISTS (SELECT 1 FROM accounts WHERE id = p_reporter)
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id IN (p_reporter, c.author_id) AND b.blocked_id IN (p_reporter, c.author_id))
    FOR UPDATE OF c;
    IF NOT FOUND THEN
        RETURN 'not_found';
    END IF;
    IF v_author = p_reporter THEN
        RETURN 'own_card';
    END IF;
    INSERT INTO reports (card_id, reporter_id, reason, created_at) VALUES (p_card, p_reporter, p_reason, p_at)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        RETURN 'already_reported';
    END IF;
    SELECT count(*) INTO v_reports FROM reports WHERE card_id = p_card;
    IF v_reports < p_threshold THEN
        RETURN 'reported';
    END IF;

    -- Hide: the card counts nowhere from here on.
    UPDATE cards SET hidden_at = p_at WHERE id = p_card;
    IF v_parent IS NULL THEN
        UPDATE accounts SET card_count = card_count - 1 WHERE id = v_author;
    ELSE
        UPDATE cards SET comment_count = comment_count - 1 WHERE id = v_parent;
    END IF;
    IF v_tagged THEN
        PERFORM release_card_tags(ARRAY[p_card]);
    END IF;
    DELETE FROM tag_notification_outbox WHERE card_id = p_card;

    -- Restrict the author: 1, 7, 14, 30 days (by default) for the first, second, … restriction.
    SELECT restriction_count INTO v_restricted FROM accounts WHERE id = v_author;
    v_until := p_at + make_interval(days => p_days[least(v_restricted + 1, cardinality(p_days))]);
    UPDATE accounts SET restriction_count = restriction_count + 1, restricted_until = greatest(restricted_until, v_until)
    WHERE id = v_author
    RETURNING restricted_until INTO v_until;
    INSERT INTO notifications (id, recipient_id, type, card_id, created_at)
    VALUES (gen_random_uuid(), v_author, 'card_hidden', p_card, p_at);
    INSERT INTO notifications (id, recipient_id, type, until, created_at)
    VALUES (gen_random_uuid(), v_author, 'posting_restricted', v_until, p_at);
    RETURN 'hidden';
END;
$$;

-- The cleanup job deletes expired transfer codes by their expiry.
CREATE INDEX transfer_codes_expires_idx ON transfer_codes (expires_at);
