-- Tag search by prefix, served by reading exactly the first `limit` entries of an index.
--
-- 0003 read a prefix as a key range (up to 257 in-use keys, then sorted by count) and, for
-- common prefixes, walked the ranked index from the top until enough keys matched: at 100,000
-- tags that read thousands of entries for `se` or `하` (5–17 ms). Here each prefix of up to
-- three characters is an equality on an expression index ordered by count, so the first
-- entries are the answer; a longer prefix walks the group of its first three characters by
-- count and keeps the keys that start with it (the group is small: a three-character stem).
-- `left` counts characters, as the domain does (Unicode scalars), so a Hangul syllable is one.
CREATE INDEX tags_first1_idx ON tags (left(key, 1), usage_count DESC, key) INCLUDE (name) WHERE usage_count > 0;
CREATE INDEX tags_first2_idx ON tags (left(key, 2), usage_count DESC, key) INCLUDE (name) WHERE usage_count > 0;
CREATE INDEX tags_first3_idx ON tags (left(key, 3), usage_count DESC, key) INCLUDE (name) WHERE usage_count > 0;
DROP INDEX tags_in_use_prefix_idx;
