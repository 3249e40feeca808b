-- People: follows, blocks and notifications, and what the following feed reads.
--
-- Counters (accounts.follower_count, accounts.following_count) change in the same transaction
-- as the follows rows they count. Writers that touch two accounts lock both rows first, in
-- ascending id order, so concurrent follows, blocks and withdrawals never deadlock on them.

CREATE TABLE follows (
    follower_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    followee_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (follower_id, followee_id),
    CONSTRAINT follows_not_self CHECK (follower_id <> followee_id)
);
-- Keyset pages of "following" and "followers", newest follow first.
CREATE INDEX follows_following_idx ON follows (follower_id, created_at DESC, followee_id DESC);
CREATE INDEX follows_followers_idx ON follows (followee_id, created_at DESC, follower_id DESC);

-- The following feed is fan-out on read: for each account followed, the newest top-level cards
-- from this index. INCLUDE (expires_at) lets the per-author probe run as an index-only scan,
-- liveness included. It replaces the author index of 0002 (same keys).
CREATE INDEX cards_author_feed_idx ON cards (author_id, created_at DESC, id DESC) INCLUDE (expires_at) WHERE parent_id IS NULL;
DROP INDEX cards_by_author_idx;

-- A block hides each side from the other everywhere. One row per direction that was asked for;
-- readers test both directions with one probe of the primary key.
CREATE TABLE blocks (
    blocker_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    blocked_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id),
    CONSTRAINT blocks_not_self CHECK (blocker_id <> blocked_id)
);
CREATE INDEX blocks_list_idx ON blocks (blocker_id, created_at DESC, blocked_id DESC);
CREATE INDEX blocks_blocked_idx ON blocks (blocked_id);

CREATE TABLE notifications (
    id            uuid        PRIMARY KEY,
    recipient_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    type          text        NOT NULL CHECK (type IN (
                      'card_liked', 'card_commented', 'followed', 'favorite_tag_used', 'card_hidden', 'posting_restricted')),
    actor_id      uuid        REFERENCES accounts (id) ON DELETE CASCADE,
    -- The recipient's card for card_liked, card_commented and card_hidden; the new card for
    -- favorite_tag_used. A notification goes with its card.
    card_id       uuid        REFERENCES cards (id) ON DELETE CASCADE,
    tag           text,
    until         timestamptz,
    created_at    timestamptz NOT NULL,
    read          boolean     NOT NULL DEFAULT false
);
CREATE INDEX notifications_inbox_idx ON notifications (recipient_id, created_at DESC, id DESC);
CREATE INDEX notifications_unread_idx ON notifications (recipient_id, created_at DESC, id DESC) WHERE NOT read;
-- No spam from like/unlike or follow/unfollow loops: at most one unread notification per
-- actor and card (likes) or per actor (follows).
CREATE UNIQUE INDEX notifications_one_unread_like ON notifications (recipient_id, actor_id, card_id)
    WHERE type = 'card_liked' AND NOT read;
CREATE UNIQUE INDEX notifications_one_unread_follow ON notifications (recipient_id, actor_id)
    WHERE type = 'followed' AND NOT read;
-- For the cascades of withdrawal and card deletion.
CREATE INDEX notifications_actor_idx ON notifications (actor_id);
CREATE INDEX notifications_card_idx ON notifications (card_id);

-- favorite_tag_used is fanned out after the post commits, so that posting costs the same
-- however many accounts favour its tags: the post records its card here (only when some other
-- account favours one of its tags), and a background job turns each row into notifications.
CREATE TABLE tag_notification_outbox (
    card_id     uuid        PRIMARY KEY REFERENCES cards (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL
);
CREATE INDEX tag_notification_outbox_created_idx ON tag_notification_outbox (created_at);
CREATE INDEX favorite_tags_tag_idx ON favorite_tags (tag_key, account_id);

-- Follows and unfollows, in one round trip and one transaction: locks both accounts in id order,
-- refuses across a block, changes the row, both counters and the notification together.
-- Returns 'not_found' (no such account, or the target blocked the viewer), 'blocked' (the viewer
-- blocked the target) or 'done', with the target's follower count after the change.
CREATE FUNCTION set_follow(p_viewer uuid, p_target uuid, p_follow boolean, p_at timestamptz,
                           OUT outcome text, OUT target_followers integer)
LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
BEGIN
    PERFORM 1 FROM accounts WHERE id IN (p_viewer, p_target) ORDER BY id FOR NO KEY UPDATE;
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_target) OR NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_viewer)
       OR EXISTS (SELECT 1 FROM blocks WHERE blocker_id = p_target AND blocked_id = p_viewer) THEN
        outcome := 'not_found';
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM blocks WHERE blocker_id = p_viewer AND blocked_id = p_target) THEN
        outcome := 'blocked';
        RETURN;
    END IF;
    IF p_follow THEN
        INSERT INTO follows (follower_id, followee_id, created_at) VALUES (p_viewer, p_target, p_at) ON CONFLICT DO NOTHING;
        GET DIAGNOSTICS changed = ROW_COUNT;
        IF changed = 1 THEN
            UPDATE accounts SET following_count = following_count + 1 WHERE id = p_viewer;
            UPDATE accounts SET follower_count = follower_count + 1 WHERE id = p_target;
            INSERT INTO notifications (id, recipient_id, type, actor_id, created_at)
            VALUES (gen_random_uuid(), p_target, 'followed', p_viewer, p_at)
            ON CONFLICT (recipient_id, actor_id) WHERE type = 'followed' AND NOT read DO NOTHING;
        END IF;
    ELSE
        DELETE FROM follows WHERE follower_id = p_viewer AND followee_id = p_target;
        GET DIAGNOSTICS changed = ROW_COUNT;
        IF changed = 1 THEN
            UPDATE accounts SET following_count = following_count - 1 WHERE id = p_viewer;
            UPDATE accounts SET follower_count = follower_count - 1 WHERE id = p_target;
        END IF;
    END IF;
    SELECT follower_count INTO target_followers FROM accounts WHERE id = p_target;
    outcome := 'done';
END;
$$;

-- Blocks and unblocks, in one round trip and one transaction, with the same lock order. A block
-- removes the follows both ways (with their counters) and the notifications between the two.
-- Returns 'not_found' or 'done'.
CREATE FUNCTION set_block(p_viewer uuid, p_target uuid, p_block boolean, p_at timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    changed integer;
BEGIN
    PERFORM 1 FROM accounts WHERE id IN (p_viewer, p_target) ORDER BY id FOR NO KEY UPDATE;
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_target) OR NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_viewer) THEN
        RETURN 'not_found';
    END IF;
    IF NOT p_block THEN
        DELETE FROM blocks WHERE blocker_id = p_viewer AND blocked_id = p_target;
        RETURN 'done';
    END IF;
    INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (p_viewer, p_target, p_at) ON CONFLICT DO NOTHING;
    DELETE FROM follows WHERE follower_id = p_viewer AND followee_id = p_target;
    GET DIAGNOSTICS changed = ROW_COUNT;
    IF changed = 1 THEN
        UPDATE accounts SET following_count = following_count - 1 WHERE id = p_viewer;
        UPDATE accounts SET follower_count = follower_count - 1 WHERE id = p_target;
    END IF;
    DELETE FROM follows WHERE follower_id = p_target AND followee_id = p_viewer;
    GET DIAGNOSTICS changed = ROW_COUNT;
    IF changed = 1 THEN
        UPDATE accounts SET following_count = following_count - 1 WHERE id = p_target;
        UPDATE accounts SET follower_count = follower_count - 1 WHERE id = p_viewer;
    END IF;
    DELETE FROM notifications
    WHERE (recipient_id = p_viewer AND actor_id = p_target) OR (recipient_id = p_target AND actor_id = p_viewer);
    RETURN 'done';
END;
$$;
