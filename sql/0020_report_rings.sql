-- Report brigading: four accounts reporting four cards of one author hid all four at once and
-- spent the author's whole restriction ladder (1, 7, 14 and 30 days) in the same second.
--
-- 1. One restriction step per restriction served: a card hidden while its author is restricted
--    already is hidden, but the ladder does not move (and the restriction does not grow).
--    `cards.hidden_restricted` records which hides started a step, so an operator undoing a
--    ring (`soom admin rings undo`) can take those steps back.
-- 2. Reporters who keep hiding the same author's cards together weigh less each time: a report
--    counts 1 / (1 + the number of that author's hidden cards its reporter reported before),
--    and the card is hidden when the counted reports weigh `p_threshold` or more. An author's
--    reports are serialised by the author's row lock (taken first), so the weights are exact.

ALTER TABLE cards ADD COLUMN hidden_restricted boolean NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION report_card(p_card uuid, p_reporter uuid, p_reason text, p_at timestamptz, p_threshold integer, p_days integer[], p_min_age integer)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_author     uuid;
    v_weight     numeric;
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
    -- Reports by accounts old enough at the time count, each by how new its reporter is to
    -- hiding this author's cards.
    SELECT coalesce(sum(1.0 / (1 + (
               SELECT count(*) FROM reports earlier JOIN cards hidden ON hidden.id = earlier.card_id
               WHERE earlier.reporter_id = r.reporter_id AND hidden.author_id = v_author
                 AND hidden.hidden_at IS NOT NULL AND hidden.id <> p_card))), 0)
    INTO v_weight
    FROM reports r JOIN accounts a ON a.id = r.reporter_id
    WHERE r.card_id = p_card AND r.created_at >= a.created_at + make_interval(secs => p_min_age);
    IF v_weight < p_threshold THEN
        RETURN 'reported';
    END IF;
    PERFORM hide_card(p_card, p_at);
    IF EXISTS (SELECT 1 FROM accounts WHERE id = v_author AND restricted_until > p_at) THEN
        RETURN 'hidden';
    END IF;
    -- 1, 7, 14, 30 days (by default) for the first, second, … restriction served.
    UPDATE accounts SET restriction_count = restriction_count + 1 WHERE id = v_author RETURNING restriction_count INTO v_restricted;
    PERFORM restrict_account(v_author, p_at + make_interval(days => p_days[least(v_restricted, cardinality(p_days))]), p_at, false);
    UPDATE cards SET hidden_restricted = true WHERE id = p_card;
    RETURN 'hidden';
END;
$$;
