-- Reports from young accounts do not hide cards (issue 18: four throwaway accounts made a minute
-- ago could hide any card). A report still counts as made (the reporter cannot report the card
-- twice, and an operator sees it), but it counts toward the threshold only when the reporter's
-- account was at least p_min_age seconds old when it reported: SOOM_REPORTER_MIN_AGE,
-- `--reporter-min-age`, one day by default.

CREATE FUNCTION report_card(p_card uuid, p_reporter uuid, p_reason text, p_at timestamptz, p_threshold integer, p_days integer[], p_min_age integer)
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
    -- Only reports made by accounts old enough at the time count (the card's row lock above
    -- serialises reports of one card, so the count is exact).
    SELECT count(*) INTO v_reports
    FROM reports r JOIN accounts a ON a.id = r.reporter_id
    WHERE r.card_id = p_card AND r.created_at >= a.created_at + make_interval(secs => p_min_age);
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

-- The old signature, for servers of the previous version during a rolling upgrade: with the
-- default age, never without one.
CREATE OR REPLACE FUNCTION report_card(p_card uuid, p_reporter uuid, p_reason text, p_at timestamptz, p_threshold integer, p_days integer[])
RETURNS text
LANGUAGE sql AS $$
    SELECT report_card(p_card, p_reporter, p_reason, p_at, p_threshold, p_days, 86400);
$$;
