-- The comment cards an account wrote (`GET /v1/me/comments`, newest first, keyset paged) and
-- whether the caller wrote a live one on a card (`commentedByMe`): both read by author and
-- parent among comment cards only.

CREATE INDEX cards_author_comments_idx ON cards (author_id, created_at DESC, id DESC) INCLUDE (expires_at)
    WHERE parent_id IS NOT NULL AND hidden_at IS NULL;
CREATE INDEX cards_commenter_idx ON cards (parent_id, author_id) WHERE parent_id IS NOT NULL AND hidden_at IS NULL;

-- `commentedByMe` is one of a viewer's marks (`ViewerMarkCache`): a comment card posted,
-- deleted (by its author, the card's author, a story's expiry, a withdrawal), hidden or shown
-- again changes its author's marks, and notifies `soom_marks_changed` with the author's id, as
-- the triggers of migration 0014 do for likes, blocks and reports. Per row, and only for comment
-- cards: a column list (hiding, expiry) allows no transition table, and the many updates of a
-- card's counters must not fire anything.
CREATE FUNCTION commenter_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('soom_marks_changed', OLD.author_id::text);
    ELSE
        PERFORM pg_notify('soom_marks_changed', NEW.author_id::text);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION commenter_marks_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('soom_marks_changed', '*');
    RETURN NULL;
END
$$;

CREATE TRIGGER cards_commenter_marked AFTER INSERT ON cards
    FOR EACH ROW WHEN (NEW.parent_id IS NOT NULL) EXECUTE FUNCTION commenter_marks_changed();
CREATE TRIGGER cards_commenter_unmarked AFTER DELETE ON cards
    FOR EACH ROW WHEN (OLD.parent_id IS NOT NULL) EXECUTE FUNCTION commenter_marks_changed();
CREATE TRIGGER cards_commenter_remarked AFTER UPDATE OF hidden_at, expires_at ON cards
    FOR EACH ROW WHEN (NEW.parent_id IS NOT NULL AND (OLD.hidden_at IS DISTINCT FROM NEW.hidden_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at))
    EXECUTE FUNCTION commenter_marks_changed();
CREATE TRIGGER cards_commenter_truncated AFTER TRUNCATE ON cards
    FOR EACH STATEMENT EXECUTE FUNCTION commenter_marks_truncated();
