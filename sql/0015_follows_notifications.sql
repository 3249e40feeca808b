-- Every server instance keeps, for the page lifetime, which cards a reader's following feed pages
-- hold (FeedPageCache's positions, used only while the marks' listener hears every change). A
-- follow or an unfollow changes them: like a change to a viewer's marks (0014), it notifies the
-- channel `soom_marks_changed` with the follower's id from the database itself, so that no write
-- path can forget to, and each instance's listener drops that reader's positions (and marks).
-- A statement that changes the follows of more than 64 readers notifies `*`, and so does
-- `TRUNCATE`. The listener refuses to keep any reader's positions unless all four triggers exist
-- and are enabled.
CREATE FUNCTION follows_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT follower_id FROM new_rows));
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT follower_id FROM old_rows));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER follows_marked AFTER INSERT ON follows
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION follows_marks_changed();
CREATE TRIGGER follows_unmarked AFTER DELETE ON follows
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION follows_marks_changed();
CREATE TRIGGER follows_remarked AFTER UPDATE ON follows
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION follows_marks_changed();
CREATE TRIGGER follows_marks_truncated AFTER TRUNCATE ON follows
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();
