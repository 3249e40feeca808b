-- Every server instance keeps recently checked sessions in memory (SessionCache). Whatever
-- makes such an entry wrong notifies the channel `soom_account_changed` with the account's id,
-- from the database itself, so that no write path (a use case, a moderation rule, `soom admin`,
-- an operator's psql) can forget to: each instance's listener then drops that account's entries.
-- A notification is sent when its transaction commits, and only then.
--
-- What makes an entry wrong:
-- - a session that ends before its expiry (sign-out, a device transfer, an account's deletion
--   cascading to its sessions). The periodic purge of sessions that expired long ago says
--   nothing (the cache never serves a session past its expiry); the five minutes of slack cover
--   a server clock that runs behind the database's;
-- - a change of what a request may show or use of the caller's account: nickname, picture,
--   bio, restriction, device key. Counters change all the time and notify nothing: whoever
--   shows them reads the account afresh;
-- - `TRUNCATE` of either table (no row triggers fire): the payload `*` empties every cache.
-- The listener refuses to switch its cache on unless all six triggers exist and are enabled.
CREATE FUNCTION notify_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- TG_ARGV[0] names the column holding the account's id in the changed table.
    PERFORM pg_notify('soom_account_changed', to_jsonb(OLD) ->> TG_ARGV[0]);
    RETURN NULL;
END
$$;

CREATE FUNCTION notify_all_accounts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('soom_account_changed', '*');
    RETURN NULL;
END
$$;

CREATE TRIGGER sessions_ended AFTER DELETE ON sessions
    FOR EACH ROW WHEN (OLD.expires_at > now() - interval '5 minutes')
    EXECUTE FUNCTION notify_account_changed('account_id');

CREATE TRIGGER sessions_changed AFTER UPDATE ON sessions
    FOR EACH ROW WHEN (OLD IS DISTINCT FROM NEW)
    EXECUTE FUNCTION notify_account_changed('account_id');

CREATE TRIGGER sessions_truncated AFTER TRUNCATE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_accounts_changed();

CREATE TRIGGER accounts_deleted AFTER DELETE ON accounts
    FOR EACH ROW EXECUTE FUNCTION notify_account_changed('id');

CREATE TRIGGER accounts_identity_changed
    AFTER UPDATE OF nickname, profile_image_kind, profile_image_ref, bio, restricted_until, key_fingerprint ON accounts
    FOR EACH ROW WHEN ((OLD.nickname, OLD.profile_image_kind, OLD.profile_image_ref, OLD.bio, OLD.restricted_until, OLD.key_fingerprint)
        IS DISTINCT FROM (NEW.nickname, NEW.profile_image_kind, NEW.profile_image_ref, NEW.bio, NEW.restricted_until, NEW.key_fingerprint))
    EXECUTE FUNCTION notify_account_changed('id');

CREATE TRIGGER accounts_truncated AFTER TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION notify_all_accounts_changed();
