-- The popular ranking without reading every card of the week every 15 seconds.
--
-- `popular-ranking` used to rank every live top-level card of the last 7 days each round. At a
-- million cards that was a parallel scan of the whole table (0.36 s on three processes, 0.7 s on
-- one) every 15 s, during which every feed on a 2-core machine stalled. Now a round ranks only
-- the *candidates*: the cards that were above a threshold at the last round, the cards whose
-- score rose or that came back since (this trigger records them), and the newest cards. See
-- `PopularRankingStatements` for why that is exact, and when a round reads every card instead.

-- Which top-level cards' score rose (a like, a comment card) or that became visible again (a report
-- withdrawn by a moderator) since the last round. One row per change, duplicates allowed: a
-- round takes the rows its snapshot sees (`DELETE … RETURNING`), and a change committed after that
-- snapshot keeps its row for the next round (with a unique key, its insert could fold into a row
-- the round is deleting and be lost). Unlogged: after a crash or on a promoted standby it is empty,
-- and each server instance's first round, and one every 5 minutes, reads every card anyway.
CREATE UNLOGGED TABLE popular_touched (
    card_id  uuid NOT NULL
);

CREATE FUNCTION popular_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO popular_touched (card_id) VALUES (NEW.id);
    RETURN NULL;
END
$$;

-- Only what can lift a card into the ranking: a higher score, or visible again.
CREATE TRIGGER cards_popular_risen AFTER UPDATE OF like_count, comment_count, hidden_at ON cards
    FOR EACH ROW
    WHEN (NEW.parent_id IS NULL AND (5 * NEW.like_count + 3 * NEW.comment_count > 5 * OLD.like_count + 3 * OLD.comment_count
                                     OR (OLD.hidden_at IS NOT NULL AND NEW.hidden_at IS NULL)))
    EXECUTE FUNCTION popular_touch();

-- A card posted with counters already set (an import) counts as risen. A statement that posts more
-- than a thousand cards (a bulk import) makes the next round a rescan instead: one pass over the
-- week, rather than a row here for each card and as many probes.
CREATE FUNCTION popular_posted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT count(*) FROM (SELECT FROM new_rows LIMIT 1001) n) > 1000 THEN
        UPDATE popular_candidates SET rescanned_at = '-infinity';
    ELSE
        INSERT INTO popular_touched (card_id)
        SELECT id FROM new_rows WHERE parent_id IS NULL AND 5 * like_count + 3 * comment_count > 0;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER cards_popular_posted AFTER INSERT ON cards
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION popular_posted();

-- The last round's candidates: every live top-level card of the window whose ranking key (score,
-- created_at, id) was above the threshold then, at most `PopularRankingStatements.candidates` of
-- them; no threshold (NULL) means every such card. One row; none before the first round.
CREATE TABLE popular_candidates (
    only_row              boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    computed_at           timestamptz NOT NULL,
    rescanned_at          timestamptz NOT NULL,
    threshold_score       integer,
    threshold_created_at  timestamptz,
    threshold_id          uuid,
    card_ids              uuid[]      NOT NULL,
    CHECK ((threshold_score IS NULL) = (threshold_created_at IS NULL) AND (threshold_score IS NULL) = (threshold_id IS NULL))
);
