-- Every server instance keeps, per viewer, the marks it last read for the cards it showed them
-- (ViewerMarkCache): which of those cards they liked, and that they have no block either way and
-- no report at all. Whatever makes such an entry wrong notifies the channel of migration 0009,
-- `soom_account_changed`, with `marks:<account id>`, from the database itself, so that no write
-- path (a use case, a cascade, `soom admin`, an operator's psql) can forget to: each instance's
-- listener then drops that viewer's marks. A notification is sent when its transaction commits,
-- and only then.
--
-- What makes an entry wrong: a like or unlike by the viewer; a block either way, made or undone;
-- a report by the viewer, made or purged. The triggers are per statement, over its transition
-- table: a statement that changes the marks of more than 64 accounts (a popular card's deletion
-- cascading to its likes, a bulk load) notifies `marks:*` once, which empties every instance's
-- marks, instead of one notification per account. `TRUNCATE` (no transition table) does the same.
-- The listener refuses to switch the marks on unless all nine triggers exist and are enabled.
CREATE FUNCTION notify_marks_changed(accounts uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(accounts) > 64 THEN
        PERFORM pg_notify('soom_account_changed', 'marks:*');
    ELSE
        PERFORM pg_notify('soom_account_changed', 'marks:' || account) FROM unnest(accounts) AS account;
    END IF;
END
$$;

-- `changed` is the statement's transition table (NEW TABLE or OLD TABLE, as the trigger names it).
CREATE FUNCTION likes_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT account_id FROM changed));
    RETURN NULL;
END
$$;

CREATE FUNCTION blocks_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_marks_changed(ARRAY(SELECT blocker_id FROM changed UNION SELECT blocked_id FROM changed));
    RETURN NULL;
END
$$;

CREATE FUNCTION reports_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT reporter_id FROM changed));
    RETURN NULL;
END
$$;

CREATE FUNCTION notify_all_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('soom_account_changed', 'marks:*');
    RETURN NULL;
END
$$;

CREATE TRIGGER likes_marked AFTER INSERT ON likes
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER likes_unmarked AFTER DELETE ON likes
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER likes_marks_truncated AFTER TRUNCATE ON likes
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();

CREATE TRIGGER blocks_marked AFTER INSERT ON blocks
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION blocks_marks_changed();
CREATE TRIGGER blocks_unmarked AFTER DELETE ON blocks
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION blocks_marks_changed();
CREATE TRIGGER blocks_marks_truncated AFTER TRUNCATE ON blocks
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();

CREATE TRIGGER reports_marked AFTER INSERT ON reports
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION reports_marks_changed();
CREATE TRIGGER reports_unmarked AFTER DELETE ON reports
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION reports_marks_changed();
CREATE TRIGGER reports_marks_truncated AFTER TRUNCATE ON reports
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();
