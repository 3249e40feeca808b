-- One big stage of growing.sh, set-based, while the server runs (psql, after the \set lines of
-- `growing.py vocabulary`). One transaction: the stage is all there, with every counter exact, or
-- not at all. No ANALYZE of the server's tables: what the planner knows about them is what
-- autovacuum found, as on a real growing database.
--
-- Variables (psql -v): cards (new top-level cards, the burst included), main (of those, the ones
-- before the burst; the rest are by accounts the reader does not follow), comments, likes, follows,
-- accounts (new accounts),
-- reader, author (the account whose cards are read), author_share, tag_count, run (a label that
-- makes this run's placeholder keys its own).
--
-- Shares and shapes as `soom seed` makes them (Sources/SoomSeed): cards by accounts that exist,
-- 70 % tagged (Zipf-like ranks), 10 % located (16 cities), 3 % stories; comment cards on popular
-- cards (a power law over ranks scattered over the stage's cards), 5 % tagged; likes on popular
-- cards, 6 % on comment cards; follows from any account to a Zipf-ranked one. Times: the stage's
-- cards are spread, oldest first, from the newest card already there to the start of the stage,
-- the burst last; comment cards and likes come after their card.
\set ON_ERROR_STOP on
SET work_mem = '256MB';
SET temp_buffers = '256MB';
SET statement_timeout = 0;
SET jit = off;
SET synchronous_commit = off;

SELECT coalesce(max(created_at), now() - interval '1 minute') AS t0, now() AS t1 FROM cards WHERE parent_id IS NULL \gset

-- The tag of rank r, as growing.py's tag_name.
CREATE FUNCTION pg_temp.grow_tag(r integer, heads text[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN r <= cardinality(heads) THEN heads[r] ELSE heads[1 + r % cardinality(heads)] || '_' || r END
$$;
-- A uniformly random element.
CREATE FUNCTION pg_temp.grow_pick(items text[]) RETURNS text LANGUAGE sql VOLATILE AS $$
    SELECT items[1 + floor(random() * cardinality(items))::integer]
$$;
-- A Zipf-like rank in 1…n: density ∝ 1/rank.
CREATE FUNCTION pg_temp.grow_zipf(n integer) RETURNS integer LANGUAGE sql VOLATILE AS $$
    SELECT least(n, floor(exp(random() * ln(n + 1)))::integer)
$$;

BEGIN;

-- Accounts: placeholder P-256 keys (91 bytes of SubjectPublicKeyInfo, as `soom seed`'s; nobody
-- holds their private keys) and nicknames "g" + hex, joined just before the stage's cards.
INSERT INTO accounts (id, key_fingerprint, public_key, nickname, nickname_key, bio, created_at)
SELECT gen_random_uuid(), sha256(k), k, nick, nick, '', :'t0'::timestamptz
FROM (
    SELECT '\x3059301306072a8648ce3d020106082a8648ce3d030107034200'::bytea || '\x04'::bytea
               || sha256(convert_to('soom-growing-x-' || :'run' || '-' || (b.base + g), 'UTF8'))
               || sha256(convert_to('soom-growing-y-' || :'run' || '-' || (b.base + g), 'UTF8')) AS k,
           'g' || to_hex(b.base + g) AS nick
    FROM generate_series(1, :accounts) AS g, (SELECT count(*) AS base FROM accounts) AS b
) AS s
ON CONFLICT DO NOTHING;

-- Who can post: everyone but the reader (grow_people); who posts the burst: accounts the reader
-- does not follow (grow_others). Numbered 1…n, so that a random number picks one by a join.
CREATE TEMP TABLE grow_people ON COMMIT DROP AS
SELECT row_number() OVER (ORDER BY created_at, id)::integer AS n, id FROM accounts WHERE id <> :'reader'::uuid;
CREATE TEMP TABLE grow_others ON COMMIT DROP AS
SELECT row_number() OVER (ORDER BY a.id)::integer AS n, a.id FROM accounts a
WHERE a.id NOT IN (:'reader'::uuid, :'author'::uuid)
  AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = :'reader'::uuid AND f.followee_id = a.id);
ALTER TABLE grow_people ADD PRIMARY KEY (n);
ALTER TABLE grow_others ADD PRIMARY KEY (n);
SELECT (SELECT count(*) FROM grow_people) AS people, (SELECT count(*) FROM grow_others) AS others \gset

-- The stage's top-level cards, g = 1…cards in time order: `main` cards, then the burst.
CREATE TEMP TABLE grow_cards ON COMMIT DROP AS
WITH r AS MATERIALIZED (
    SELECT g, g > :main AS burst, random() AS r_author, random() AS r_language, random() AS r_length, random() AS r_tags,
           random() AS r_location, random() AS r_story,
           1 + floor(random() * :people)::integer AS person, 1 + floor(random() * :others)::integer AS other,
           pg_temp.grow_zipf(:tag_count) AS t1, pg_temp.grow_zipf(:tag_count) AS t2, pg_temp.grow_zipf(:tag_count) AS t3,
           width_bucket(random(), :'city_from'::float8[]) AS city,
           (random() + random() + random() - 1.5) / 1.5 AS jitter_x, (random() + random() + random() - 1.5) / 1.5 AS jitter_y
    FROM generate_series(1, :cards) AS g
)
SELECT g, burst, gen_random_uuid() AS id,
       CASE WHEN burst THEN o.id WHEN r_author < :author_share THEN :'author'::uuid ELSE p.id END AS author_id,
       -- One to four sentences (35 %, 35 %, 20 %, 10 %), 72 % Korean.
       CASE WHEN r_language < 0.72
            THEN pg_temp.grow_pick(:'korean'::text[]) || CASE WHEN r_length >= 0.35 THEN ' ' || pg_temp.grow_pick(:'korean'::text[]) ELSE '' END
                 || CASE WHEN r_length >= 0.70 THEN ' ' || pg_temp.grow_pick(:'korean'::text[]) ELSE '' END
                 || CASE WHEN r_length >= 0.90 THEN ' ' || pg_temp.grow_pick(:'korean'::text[]) ELSE '' END
            ELSE pg_temp.grow_pick(:'english'::text[]) || CASE WHEN r_length >= 0.35 THEN ' ' || pg_temp.grow_pick(:'english'::text[]) ELSE '' END
                 || CASE WHEN r_length >= 0.70 THEN ' ' || pg_temp.grow_pick(:'english'::text[]) ELSE '' END
                 || CASE WHEN r_length >= 0.90 THEN ' ' || pg_temp.grow_pick(:'english'::text[]) ELSE '' END END AS content,
       pg_temp.grow_pick(:'fonts'::text[]) AS font,
       pg_temp.grow_pick(:'backgrounds'::text[]) AS background,
       array_remove(ARRAY[
           CASE WHEN r_tags >= 0.30 THEN pg_temp.grow_tag(t1, :'heads'::text[]) END,
           CASE WHEN r_tags >= 0.65 AND t2 <> t1 THEN pg_temp.grow_tag(t2, :'heads'::text[]) END,
           CASE WHEN r_tags >= 0.87 AND t3 <> t1 AND t3 <> t2 THEN pg_temp.grow_tag(t3, :'heads'::text[]) END], NULL) AS tags,
       CASE WHEN r_location < 0.10 THEN round(least(89.9, greatest(-89.9,
           (:'city_lat'::float8[])[city] + jitter_y * (:'city_spread'::float8[])[city]))::numeric, 6)::float8 END AS latitude,
       CASE WHEN r_location < 0.10 THEN round(least(179.9, greatest(-179.9,
           (:'city_lon'::float8[])[city] + jitter_x * 1.25 * (:'city_spread'::float8[])[city]))::numeric, 6)::float8 END AS longitude,
       -- The main cards over 90 % of [t0, t1], the burst over the last 10 %.
       CASE WHEN burst
            THEN :'t0'::timestamptz + (:'t1'::timestamptz - :'t0'::timestamptz) * (0.9 + 0.1 * (g - :main)::float8 / greatest(:cards - :main, 1))
            ELSE :'t0'::timestamptz + (:'t1'::timestamptz - :'t0'::timestamptz) * 0.9 * g::float8 / greatest(:main, 1) END AS created_at,
       r_story < 0.03 AS story
FROM r JOIN grow_people p ON p.n = r.person LEFT JOIN grow_others o ON o.n = r.other;
ALTER TABLE grow_cards ADD PRIMARY KEY (g);

-- Comment cards: on popular cards of the stage (a power law over ranks, scattered over the
-- stage's cards by a prime multiplier), mostly soon after them, by anyone.
CREATE TEMP TABLE grow_comments ON COMMIT DROP AS
WITH r AS MATERIALIZED (
    SELECT g, 1 + (floor(:main * power(random(), 3))::bigint * 2654435761) % :main AS pos, 1 + floor(random() * :people)::integer AS person,
           random() AS r_delay, random() AS r_tag, pg_temp.grow_zipf(:tag_count) AS t1
    FROM generate_series(1, :comments) AS g
    WHERE :main > 0
)
SELECT r.g, gen_random_uuid() AS id, p.id AS author_id, c.id AS parent_id,
       pg_temp.grow_pick(:'replies'::text[]) AS content,
       pg_temp.grow_pick(:'fonts'::text[]) AS font,
       pg_temp.grow_pick(:'backgrounds'::text[]) AS background,
       CASE WHEN r_tag < 0.05 THEN ARRAY[pg_temp.grow_tag(t1, :'heads'::text[])] ELSE '{}'::text[] END AS tags,
       c.created_at + (:'t1'::timestamptz - c.created_at) * (0.0005 + 0.9995 * power(r_delay, 4)) AS created_at
FROM r JOIN grow_cards c ON c.g = r.pos JOIN grow_people p ON p.n = r.person;
ALTER TABLE grow_comments ADD PRIMARY KEY (g);
SELECT count(*) AS replies FROM grow_comments \gset

-- Likes: popular cards of the stage (6 % comment cards), by anyone, after the card; a pair drawn
-- twice counts once. Drawn before the cards are written, so that the cards go in with their
-- like and comment counts already exact (as `soom seed` does), not updated afterwards.
CREATE TEMP TABLE grow_likes ON COMMIT DROP AS
WITH r AS MATERIALIZED (
    SELECT random() < 0.06 AND :replies > 0 AS on_comment,
           1 + (floor(:main * power(random(), 3))::bigint * 2654435761) % :main AS pos,
           1 + floor(random() * greatest(:replies, 1))::integer AS reply,
           1 + floor(random() * :people)::integer AS person, random() AS r_delay
    FROM generate_series(1, :likes) AS g
    WHERE :main > 0
), t AS (
    SELECT CASE WHEN on_comment THEN m.id ELSE c.id END AS card_id, CASE WHEN on_comment THEN m.created_at ELSE c.created_at END AS card_time,
           p.id AS account_id, r_delay
    FROM r JOIN grow_cards c ON c.g = r.pos LEFT JOIN grow_comments m ON m.g = r.reply JOIN grow_people p ON p.n = r.person
)
SELECT DISTINCT ON (card_id, account_id) card_id, account_id,
       card_time + (:'t1'::timestamptz - card_time) * (0.0005 + 0.9995 * power(r_delay, 3)) AS created_at
FROM t
ORDER BY card_id, account_id;

-- Like and comment counts of the stage's cards (comment cards go on the stage's cards only).
CREATE TEMP TABLE grow_counts ON COMMIT DROP AS
SELECT id, sum(likes)::integer AS likes, sum(comments)::integer AS comments FROM (
    SELECT card_id AS id, 1 AS likes, 0 AS comments FROM grow_likes
    UNION ALL SELECT parent_id, 0, 1 FROM grow_comments) AS u
GROUP BY id;
ALTER TABLE grow_counts ADD PRIMARY KEY (id);

-- The cards, oldest first; the burst goes in after the comment cards, the last cards of the stage.
CREATE TEMPORARY VIEW grow_card_rows AS
SELECT c.g, c.burst, c.id, c.author_id, NULL::uuid AS parent_id, c.content, c.font, 'default' AS background_kind, c.background, c.tags,
       l.key AS geo_cell, l.cell_latitude, l.cell_longitude, c.created_at,
       CASE WHEN c.story THEN c.created_at + interval '24 hours' END AS expires_at,
       coalesce(k.likes, 0) AS like_count, coalesce(k.comments, 0) AS comment_count
FROM grow_cards c LEFT JOIN LATERAL soom_geo_cell(c.latitude, c.longitude) AS l ON c.latitude IS NOT NULL LEFT JOIN grow_counts k ON k.id = c.id;

INSERT INTO cards (id, author_id, parent_id, content, font, background_kind, background_ref, tags,
                   geo_cell, geo_latitude, geo_longitude, created_at, expires_at, like_count, comment_count)
SELECT id, author_id, parent_id, content, font, background_kind, background, tags, geo_cell, cell_latitude, cell_longitude,
       created_at, expires_at, like_count, comment_count
FROM grow_card_rows WHERE NOT burst ORDER BY g;

INSERT INTO cards (id, author_id, parent_id, content, font, background_kind, background_ref, tags, created_at, like_count)
SELECT m.id, m.author_id, m.parent_id, m.content, m.font, 'default', m.background, m.tags, m.created_at, coalesce(k.likes, 0)
FROM grow_comments m LEFT JOIN grow_counts k ON k.id = m.id
ORDER BY m.created_at;

INSERT INTO cards (id, author_id, parent_id, content, font, background_kind, background_ref, tags,
                   geo_cell, geo_latitude, geo_longitude, created_at, expires_at, like_count, comment_count)
SELECT id, author_id, parent_id, content, font, background_kind, background, tags, geo_cell, cell_latitude, cell_longitude,
       created_at, expires_at, like_count, comment_count
FROM grow_card_rows WHERE burst ORDER BY g;

-- A top-level card counts on its author.
UPDATE accounts a SET card_count = a.card_count + k.n
FROM (SELECT author_id, count(*)::integer AS n FROM grow_cards GROUP BY author_id) AS k WHERE a.id = k.author_id;

-- The following inboxes (migration 0013): each top-level card goes to its author's followers
-- who have one, as `fan_out_card` does for a post (the reader's, once its follows opened it).
INSERT INTO following_inbox (reader_id, created_at, card_id, author_id)
SELECT f.follower_id, c.created_at, c.id, c.author_id FROM grow_cards c JOIN follows f ON f.followee_id = c.author_id AND f.inbox
ON CONFLICT DO NOTHING;

-- Tags: one card_tags row per card and tag (names are their own keys), the usage counts in key order.
CREATE TEMP TABLE grow_card_tags ON COMMIT DROP AS
SELECT DISTINCT t.name COLLATE "C" AS tag_key, c.id AS card_id, c.author_id, c.created_at
FROM (SELECT id, author_id, tags, created_at FROM grow_cards UNION ALL SELECT id, author_id, tags, created_at FROM grow_comments) AS c,
     unnest(c.tags) AS t (name);
-- The tags first: the tag rows' trigger (migration 0018) counts each tag's authors on its row.
INSERT INTO tags AS t (key, name, usage_count)
SELECT tag_key, tag_key, count(*) FROM grow_card_tags GROUP BY tag_key ORDER BY tag_key
ON CONFLICT (key) DO UPDATE SET usage_count = t.usage_count + EXCLUDED.usage_count;
INSERT INTO card_tags (tag_key, card_id, author_id, created_at)
SELECT tag_key, card_id, author_id, created_at FROM grow_card_tags ORDER BY tag_key, created_at DESC, card_id DESC;

INSERT INTO likes (card_id, account_id, created_at) SELECT card_id, account_id, created_at FROM grow_likes ORDER BY card_id, account_id;

-- Follows: any account (never the reader: its follows stay as they are) follows a Zipf-ranked
-- one (ranks scattered over accounts of all ages); both counters move by the follows really
-- inserted, in one update per account. A follower with a following inbox would need its rows
-- flagged and its inbox filled (`set_follow`); the stage's followers follow about twenty accounts
-- each, far below the threshold, and growing.sh checks that no inbox but the reader's exists.
CREATE TEMP TABLE grow_follows (follower_id uuid, followee_id uuid) ON COMMIT DROP;
WITH d AS MATERIALIZED (
    SELECT 1 + floor(random() * :people)::integer AS f, 1 + ((pg_temp.grow_zipf(:people) - 1)::bigint * 2654435761 % :people)::integer AS e
    FROM generate_series(1, :follows) AS g
), inserted AS (
    INSERT INTO follows (follower_id, followee_id, created_at)
    SELECT a.id, b.id, :'t0'::timestamptz + (:'t1'::timestamptz - :'t0'::timestamptz) * random()
    FROM d JOIN grow_people a ON a.n = d.f JOIN grow_people b ON b.n = d.e
    WHERE d.f <> d.e
    ON CONFLICT DO NOTHING
    RETURNING follower_id, followee_id
)
INSERT INTO grow_follows SELECT follower_id, followee_id FROM inserted;
UPDATE accounts a SET follower_count = a.follower_count + d.followers, following_count = a.following_count + d.following
FROM (
    SELECT id, sum(followers)::integer AS followers, sum(following)::integer AS following FROM (
        SELECT followee_id AS id, 1 AS followers, 0 AS following FROM grow_follows
        UNION ALL SELECT follower_id, 0, 1 FROM grow_follows) AS u
    GROUP BY id
) AS d
WHERE a.id = d.id;

SELECT 'GROW cards=' || (SELECT count(*) FROM grow_cards) || ' comments=' || (SELECT count(*) FROM grow_comments)
       || ' likes=' || (SELECT count(*) FROM grow_likes)
       || ' follows=' || (SELECT count(*) FROM grow_follows) || ' errors=0' AS summary;

COMMIT;
