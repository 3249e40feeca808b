-- Reaching people who are not looking at the list: `following_posted`, the settings that say what
-- is pushed and streamed, and the channel that tells every instance of each new notification.

-- `following_posted`: someone the recipient follows posted a top-level card. At most one unread
-- per recipient and author (the first such card since the recipient last read one), like
-- `favorite_tag_used` per tag: a busy poster is one notice, not hundreds. Written after the post,
-- in the background, by the job that delivers the favourite tags' notifications.
ALTER TABLE notifications DROP CONSTRAINT notifications_type_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_type_check CHECK (type IN (
    'card_liked', 'card_commented', 'followed', 'favorite_tag_used', 'following_posted', 'card_hidden', 'posting_restricted',
    'poll_closed')) NOT VALID;
ALTER TABLE notifications VALIDATE CONSTRAINT notifications_type_check;
CREATE UNIQUE INDEX notifications_one_unread_post ON notifications (recipient_id, actor_id)
    WHERE type = 'following_posted' AND NOT read;

-- The authors whose followers are to hear of a new card: one row per author, whatever the
-- followers, and whatever the posts meanwhile (a burst of a thousand cards is one fan-out, naming
-- the first). The post inserts it (`ON CONFLICT DO NOTHING`) under its author's row lock; the job
-- takes a row two seconds after it was made, so an author who posts on and on is fanned out at
-- most every few seconds (each follower holds one unread notice of theirs anyway). The job marks
-- a row taken (`taken_until`, a lease) in a short transaction of its own, fans out in another, and
-- deletes the row in a third: a post never waits on a fan-out's open transaction, and a fan-out
-- cut short is done again when the lease ends.
CREATE TABLE follower_notification_outbox (
    author_id    uuid        PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    card_id      uuid        NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    taken_until  timestamptz,
    taken_by     uuid
);
CREATE INDEX follower_notification_outbox_created_idx ON follower_notification_outbox (created_at);
CREATE INDEX follower_notification_outbox_card_idx ON follower_notification_outbox (card_id);

-- What an account wants pushed (and streamed): the types switched off, and quiet hours (minutes
-- after midnight in an IANA time zone; `end` before `start` spans midnight). No row: every type
-- on, no quiet hours. The list keeps every notification whatever is set here.
CREATE TABLE notification_settings (
    account_id      uuid     PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    muted           text[]   NOT NULL DEFAULT '{}',
    quiet_start     smallint CHECK (quiet_start BETWEEN 0 AND 1439),
    quiet_end       smallint CHECK (quiet_end BETWEEN 0 AND 1439),
    quiet_time_zone text     CHECK (length(quiet_time_zone) <= 64),
    CHECK ((quiet_start IS NULL) = (quiet_end IS NULL) AND (quiet_start IS NULL) = (quiet_time_zone IS NULL))
);

-- Each committed notification is told on the channel `soom_notifications` as
-- `<recipient id>:<notification id>`. Every instance listens on one connection and fetches the
-- ones whose recipients have a stream open there. A row trigger: it runs only for a row really
-- inserted, so a post that notifies nobody (its comment-card notification's `INSERT` writes no
-- row) pays nothing for it.
CREATE FUNCTION notifications_told() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('soom_notifications', NEW.recipient_id::text || ':' || NEW.id::text);
    RETURN NULL;
END
$$;

CREATE TRIGGER notifications_told AFTER INSERT ON notifications
    FOR EACH ROW EXECUTE FUNCTION notifications_told();
