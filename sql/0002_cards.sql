-- Cards and comment cards, likes, idempotent creation, and the popular ranking.

CREATE TABLE cards (
    id              uuid             PRIMARY KEY,
    author_id       uuid             NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    -- No foreign key: deleting a card leaves its comment cards in place, shown with parentDeleted.
    parent_id       uuid,
    content         text             NOT NULL,
    font            text             NOT NULL CHECK (font IN ('default', 'serif', 'handwriting', 'rounded')),
    background_kind text             NOT NULL CHECK (background_kind IN ('default', 'upload')),
    background_ref  text             NOT NULL,
    -- Tag names as shown, in the card's order (normalised by the server).
    tags            text[]           NOT NULL DEFAULT '{}',
    latitude        double precision CHECK (latitude BETWEEN -90 AND 90),
    longitude       double precision CHECK (longitude BETWEEN -180 AND 180),
    created_at      timestamptz      NOT NULL,
    -- Stories expire 24 hours after creation; NULL for ordinary cards.
    expires_at      timestamptz,
    like_count      integer          NOT NULL DEFAULT 0 CHECK (like_count >= 0),
    comment_count   integer          NOT NULL DEFAULT 0 CHECK (comment_count >= 0),
    CONSTRAINT cards_location_complete CHECK ((latitude IS NULL) = (longitude IS NULL))
);
-- Keyset pages, newest first: every feed reads one of these in index order.
CREATE INDEX cards_latest_idx   ON cards (created_at DESC, id DESC) WHERE parent_id IS NULL;
CREATE INDEX cards_by_author_idx ON cards (author_id, created_at DESC, id DESC) WHERE parent_id IS NULL;
CREATE INDEX cards_comments_idx ON cards (parent_id, created_at DESC, id DESC) WHERE parent_id IS NOT NULL;
-- Nearby: a bounding-box search on a built-in point, then the exact great-circle distance.
CREATE INDEX cards_location_idx ON cards USING gist (point(longitude, latitude)) WHERE parent_id IS NULL AND latitude IS NOT NULL;
-- Withdrawal deletes an author's cards; the expiry sweep finds stories.
CREATE INDEX cards_author_idx ON cards (author_id);
CREATE INDEX cards_expiry_idx ON cards (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE likes (
    card_id     uuid        NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (card_id, account_id)
);
CREATE INDEX likes_account_idx ON likes (account_id);

-- Idempotency-Key of card and comment creation: per account, 24 hours.
CREATE TABLE idempotency_keys (
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    key         text        NOT NULL,
    -- The canonical form of the first request: a different body with the same key is refused.
    request     text        NOT NULL,
    card_id     uuid        NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- The popular feed is a ranking recomputed every few seconds; pages of one generation stay stable.
CREATE TABLE popular_generations (
    generation   bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    computed_at  timestamptz NOT NULL
);
CREATE TABLE popular_rankings (
    generation  bigint      NOT NULL REFERENCES popular_generations (generation) ON DELETE CASCADE,
    rank        integer     NOT NULL,
    card_id     uuid        NOT NULL,
    score       integer     NOT NULL,
    PRIMARY KEY (generation, rank)
);
