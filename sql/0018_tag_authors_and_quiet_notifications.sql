-- The top ten ranks tags by how many different accounts use them, so that one account posting
-- thirty cards cannot fill it; and floods of comment cards or favourite-tag posts reach their
-- recipient as one unread notification each, not hundreds.

-- Who carries each tag: a tag row of a card names the card's author, and `tag_authors` counts
-- each author's live cards per tag. `tags.author_count` is the number of those authors, kept
-- exact by the two triggers below on every path that adds or removes tag rows (posting,
-- `release_card_tags` on deletion, expiry, withdrawal and hiding, an operator's unhide, the seed).
ALTER TABLE card_tags ADD COLUMN author_id uuid;
UPDATE card_tags ct SET author_id = c.author_id FROM cards c WHERE c.id = ct.card_id;
ALTER TABLE card_tags ALTER COLUMN author_id SET NOT NULL;

CREATE TABLE tag_authors (
    tag_key     text    COLLATE "C" NOT NULL,
    author_id   uuid    NOT NULL,
    -- 0 only inside the statement that removes the last of them (the row is then deleted).
    card_count  integer NOT NULL CHECK (card_count >= 0),
    PRIMARY KEY (tag_key, author_id)
);
INSERT INTO tag_authors (tag_key, author_id, card_count)
SELECT tag_key, author_id, count(*) FROM card_tags GROUP BY tag_key, author_id;

ALTER TABLE tags ADD COLUMN author_count integer NOT NULL DEFAULT 0 CHECK (author_count >= 0);
UPDATE tags t SET author_count = a.n
FROM (SELECT tag_key, count(*)::integer AS n FROM tag_authors GROUP BY tag_key) a WHERE a.tag_key = t.key;

-- The top ten: in-use tags by authors, then cards, ties by key.
CREATE INDEX tags_ranked_by_authors_idx ON tags (author_count DESC, usage_count DESC, key) INCLUDE (name) WHERE usage_count > 0;

-- Lock order, as everywhere (`TagUsageSQL`): the tag rows in key order first, then their
-- `tag_authors` rows, so every change to a tag's authors happens under its tag row's lock.
-- The tag rows must exist before their first card's tag rows are added (the post statement and
-- the seed write them first).
CREATE FUNCTION card_tags_authors_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM new_rows) THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM tags WHERE key IN (SELECT tag_key FROM new_rows) ORDER BY key FOR UPDATE;
    WITH added AS (
        INSERT INTO tag_authors AS ta (tag_key, author_id, card_count)
        SELECT tag_key, author_id, count(*) FROM new_rows GROUP BY tag_key, author_id ORDER BY tag_key, author_id
        ON CONFLICT (tag_key, author_id) DO UPDATE SET card_count = ta.card_count + EXCLUDED.card_count
        -- xmax is 0 on a row this statement inserted, set on one it updated.
        RETURNING tag_key, xmax = 0 AS fresh)
    UPDATE tags t SET author_count = t.author_count + a.n
    FROM (SELECT tag_key, count(*)::integer AS n FROM added WHERE fresh GROUP BY tag_key) a
    WHERE t.key = a.tag_key;
    RETURN NULL;
END
$$;

CREATE FUNCTION card_tags_authors_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM old_rows) THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM tags WHERE key IN (SELECT tag_key FROM old_rows) ORDER BY key FOR UPDATE;
    UPDATE tag_authors ta SET card_count = ta.card_count - d.n
    FROM (SELECT tag_key, author_id, count(*)::integer AS n FROM old_rows GROUP BY tag_key, author_id) d
    WHERE ta.tag_key = d.tag_key AND ta.author_id = d.author_id;
    WITH gone AS (
        DELETE FROM tag_authors ta
        WHERE ta.card_count = 0 AND (ta.tag_key, ta.author_id) IN (SELECT tag_key, author_id FROM old_rows)
        RETURNING ta.tag_key)
    UPDATE tags t SET author_count = t.author_count - g.n
    FROM (SELECT tag_key, count(*)::integer AS n FROM gone GROUP BY tag_key) g
    WHERE t.key = g.tag_key;
    RETURN NULL;
END
$$;

CREATE TRIGGER card_tags_authors_added AFTER INSERT ON card_tags
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION card_tags_authors_added();
CREATE TRIGGER card_tags_authors_removed AFTER DELETE ON card_tags
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION card_tags_authors_removed();

-- One unread notification per actor and card for comment cards (as for likes), and one unread
-- favourite-tag notification per recipient and tag: a flood of comment cards or tagged posts
-- reaches its recipient once, until they read it. Older unread duplicates are marked read first.
UPDATE notifications n SET read = true
WHERE NOT n.read AND n.type = 'card_commented' AND EXISTS (
    SELECT 1 FROM notifications m
    WHERE m.type = 'card_commented' AND NOT m.read AND m.recipient_id = n.recipient_id AND m.actor_id = n.actor_id
      AND m.card_id = n.card_id AND (m.created_at, m.id) > (n.created_at, n.id));
UPDATE notifications n SET read = true
WHERE NOT n.read AND n.type = 'favorite_tag_used' AND EXISTS (
    SELECT 1 FROM notifications m
    WHERE m.type = 'favorite_tag_used' AND NOT m.read AND m.recipient_id = n.recipient_id AND m.tag = n.tag
      AND (m.created_at, m.id) > (n.created_at, n.id));
CREATE UNIQUE INDEX notifications_one_unread_comment ON notifications (recipient_id, actor_id, card_id)
    WHERE type = 'card_commented' AND NOT read;
CREATE UNIQUE INDEX notifications_one_unread_tag ON notifications (recipient_id, tag)
    WHERE type = 'favorite_tag_used' AND NOT read;

-- Nicknames are unique by their confusable skeleton (Unicode TR 39), which only the server can
-- compute: `NicknameRekey` (run by the migrator right after this) re-keys every account whose
-- key an earlier rule made. New keys are written as version 2.
ALTER TABLE accounts ADD COLUMN nickname_key_version smallint NOT NULL DEFAULT 1;
CREATE INDEX accounts_nickname_rekey_idx ON accounts (id) WHERE nickname_key_version < 2;
