-- Moderation by operators (`soom admin`): hiding a card by hand, and one place for what hiding does.
--
-- hide_card is what report_card did at its threshold, now shared: report_card (replaced below,
-- same signature and results) calls it, and so does `soom admin hide`. Unhiding, which needs
-- the tag keys' Unicode case folding, is done by the server's own code (PostgresModeration).

-- Hides a card: it counts nowhere from then on (tag usage released; its parent's comment_count
-- or its author's card_count loses it) and its author is told (card_hidden). Lock order, as
-- every card writer: the author's account, then the card, then its parent, then tag rows.
-- Returns the author's id, or NULL when there is no such card or it is already hidden.
CREATE FUNCTION hide_card(p_card uuid, p_at timestamptz) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
    v_author uuid;
    v_parent uuid;
    v_tagged boolean;
BEGIN
    SELECT author_id INTO v_author FROM cards WHERE id = p_card;
    IF v_author IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM accounts WHERE id = v_author FOR NO KEY UPDATE;
    SELECT parent_id, cardinality(tags) > 0 INTO v_parent, v_tagged FROM cards WHERE id = p_card AND hidden_at IS NULL FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
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
    INSERT INTO notifications (id, recipient_id, type, card_id, created_at)
    VALUES (gen_random_uuid(), v_author, 'card_hidden', p_card, p_at);
    RETURN v_author;
END;
$$;

-- Restricts an account from posting until p_until at the latest of its current end and p_until
-- (p_replace: exactly p_until, which an operator may use to shorten it), and tells it.
CREATE FUNCTION restrict_account(p_account uuid, p_until timestamptz, p_at timestamptz, p_replace boolean) RETURNS timestamptz
LANGUAGE plpgsql AS $$
DECLARE
    v_until timestamptz;
BEGIN
    UPDATE accounts
    SET restricted_until = CASE WHEN p_replace THEN p_until ELSE greatest(restricted_until, p_until) END
    WHERE id = p_account
    RETURNING restricted_until INTO v_until;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    INSERT INTO notifications (id, recipient_id, type, until, created_at)
    VALUES (gen_random_uuid(), p_account, 'posting_restricted', v_until, p_at);
    RETURN v_until;
END;
$$;

-- report_card as in 0006, with the hiding and the restriction above.
CREATE OR REPLACE FUNCTION report_card(p_card uuid, p_reporter uuid, p_reason text, p_at timestamptz, p_threshold integer, p_days integer[])
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_author     uuid;
    v_reports    integer;
    v_restricted integer;
BEGIN
    SELECT author_id INTO v_author FROM cards WHERE id = p_card;
    IF v_author IS NULL THEN
        RETURN 'not_found';
    END IF;
    PERFORM 1 FROM accounts WHERE id = v_author FOR NO KEY UPDATE;
    PERFORM 1
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
    PERFORM hide_card(p_card, p_at);
    -- 1, 7, 14, 30 days (by default) for the first, second, … restriction.
    UPDATE accounts SET restriction_count = restriction_count + 1 WHERE id = v_author RETURNING restriction_count INTO v_restricted;
    PERFORM restrict_account(v_author, p_at + make_interval(days => p_days[least(v_restricted, cardinality(p_days))]), p_at, false);
    RETURN 'hidden';
END;
$$;
