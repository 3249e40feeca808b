-- Every server instance keeps, per viewer, the marks it last read for the cards it showed them
-- (ViewerMarkCache): which of those cards they liked, and that they have no block either way and
-- no report at all. Whatever makes such an entry wrong notifies the channel `soom_marks_changed`
-- with the account's id, from the database itself, so that no write path (a use case, a cascade,
-- `soom admin`, an operator's psql) can forget to: each instance's listener then drops that
-- viewer's marks. A notification is sent when its transaction commits, and only then. (A channel
-- of its own, not 0009's: an instance of an earlier version refuses payloads it does not know.)
--
-- What makes an entry wrong: a like or unlike by the viewer; a block either way, made or undone;
-- a report by the viewer, made or purged; any of these rows rewritten by an UPDATE. The triggers
-- are per statement, over its transition tables: a statement that changes the marks of more than
-- 64 accounts (a popular card's deletion cascading to its likes, a bulk load) notifies `*` once,
-- which empties every instance's marks, instead of once per account. `TRUNCATE` (no transition
-- table) does the same. The listener refuses to switch the marks on unless all twelve triggers
-- exist and are enabled.
CREATE FUNCTION notify_marks_changed(accounts uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(accounts) > 64 THEN
        PERFORM pg_notify('soom_marks_changed', '*');
    ELSE
        PERFORM pg_notify('soom_marks_changed', account::text) FROM unnest(accounts) AS account;
    END IF;
END
$$;

-- `new_rows` and `old_rows` are the statement's transition tables, as its operation has them.
CREATE FUNCTION likes_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT account_id FROM new_rows));
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT account_id FROM old_rows));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION blocks_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT blocker_id FROM new_rows UNION SELECT blocked_id FROM new_rows));
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT blocker_id FROM old_rows UNION SELECT blocked_id FROM old_rows));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION reports_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT reporter_id FROM new_rows));
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM notify_marks_changed(ARRAY(SELECT DISTINCT reporter_id FROM old_rows));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION notify_all_marks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('soom_marks_changed', '*');
    RETURN NULL;
END
$$;

CREATE TRIGGER likes_marked AFTER INSERT ON likes
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER likes_unmarked AFTER DELETE ON likes
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER likes_remarked AFTER UPDATE ON likes
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_marks_changed();
CREATE TRIGGER likes_marks_truncated AFTER TRUNCATE ON likes
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();

CREATE TRIGGER blocks_marked AFTER INSERT ON blocks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION blocks_marks_changed();
CREATE TRIGGER blocks_unmarked AFTER DELETE ON blocks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION blocks_marks_changed();
CREATE TRIGGER blocks_remarked AFTER UPDATE ON blocks
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION blocks_marks_changed();
CREATE TRIGGER blocks_marks_truncated AFTER TRUNCATE ON blocks
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();

CREATE TRIGGER reports_marked AFTER INSERT ON reports
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reports_marks_changed();
CREATE TRIGGER reports_unmarked AFTER DELETE ON reports
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reports_marks_changed();
CREATE TRIGGER reports_remarked AFTER UPDATE ON reports
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reports_marks_changed();
CREATE TRIGGER reports_marks_truncated AFTER TRUNCATE ON reports
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_marks_changed();
