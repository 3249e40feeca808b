-- Hashtags: one row per tag with its exact usage count, the card↔tag rows the tag feed pages
-- through, and each account's favourite tags.
--
-- The invariant, kept by every writer in the same transaction as the change:
--     tags.usage_count = (SELECT count(*) FROM card_tags WHERE tag_key = tags.key)
-- and a card has card_tags rows exactly while it is live (not deleted, not swept after
-- expiry, later: not hidden). Creation inserts the rows and adds to the counts; whatever
-- removes a card first calls release_card_tags, which subtracts exactly the rows it deleted.

CREATE TABLE tags (
    -- Case-folded (lower-cased, NFC) name: the identity of the tag. "C" collation: byte order,
    -- so a prefix is a plain index range, the same for Latin and Hangul.
    key          text    COLLATE "C" PRIMARY KEY,
    -- The first spelling seen, shown by every tag endpoint.
    name         text    NOT NULL,
    usage_count  integer NOT NULL DEFAULT 0 CHECK (usage_count >= 0)
);
-- The top ten and the search fallback for short prefixes: in-use tags by count, ties by key.
CREATE INDEX tags_ranked_idx ON tags (usage_count DESC, key) INCLUDE (name) WHERE usage_count > 0;
-- Search: a prefix is a key range, read from in-use tags only.
CREATE INDEX tags_in_use_prefix_idx ON tags (key) INCLUDE (name, usage_count) WHERE usage_count > 0;

CREATE TABLE card_tags (
    tag_key     text        COLLATE "C" NOT NULL,
    -- Deferred and not cascading: a card cannot be deleted (by any path, withdrawal's cascade
    -- included) while rows here still count it — the transaction fails instead of drifting.
    card_id     uuid        NOT NULL REFERENCES cards (id) DEFERRABLE INITIALLY DEFERRED,
    -- The card's created_at, copied so the tag feed is one index range in keyset order.
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (card_id, tag_key)
);
CREATE INDEX card_tags_feed_idx ON card_tags (tag_key, created_at DESC, card_id DESC);

-- Removes the tag rows of the given cards and subtracts, per tag, exactly the rows this call
-- deleted (a row another transaction removed first is not counted twice). Tag rows are locked
-- in key order, the order every writer uses, so concurrent writers never deadlock on them.
-- Callers delete (or hide) the cards themselves, before or after, in the same transaction.
CREATE FUNCTION release_card_tags(card_ids uuid[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    keys   text[];
    counts integer[];
BEGIN
    WITH gone AS (DELETE FROM card_tags WHERE card_id = ANY (card_ids) RETURNING tag_key)
    SELECT array_agg(tag_key ORDER BY tag_key), array_agg(n ORDER BY tag_key) INTO keys, counts
    FROM (SELECT tag_key, count(*)::integer AS n FROM gone GROUP BY tag_key) g;
    IF keys IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM 1 FROM tags WHERE key = ANY (keys) ORDER BY key FOR UPDATE;
    UPDATE tags t SET usage_count = t.usage_count - d.n FROM unnest(keys, counts) AS d (k, n) WHERE t.key = d.k;
    RETURN array_length(keys, 1);
END;
$$;

CREATE TABLE favorite_tags (
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    tag_key     text        COLLATE "C" NOT NULL,
    -- The spelling the account used, shown while no card carries the tag.
    name        text        NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (account_id, tag_key)
);
