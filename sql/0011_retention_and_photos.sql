-- What the server keeps, and for how long (PRIVACY.md says it to users), and what an upload's
-- header told us.
--
-- The periodic `retention` job deletes, in batches, on every instance at once (each batch takes
-- its rows with SKIP LOCKED, so instances share the work instead of waiting on each other):
-- - notifications older than 30 days;
-- - withdrawal records older than 30 days (the 7-day rejoin rule needs only a week of them);
-- - uploads older than 24 hours that no card and no profile uses (a card posting an upload
--   takes a KEY SHARE lock on the image row, so the job never deletes one a post is using).
-- Each purge reads an index ordered by the time it tests, so a round costs the rows it deletes,
-- not the table's size.

CREATE INDEX notifications_created_idx ON notifications (created_at);
CREATE INDEX withdrawals_withdrawn_idx ON withdrawals (withdrawn_at);
CREATE INDEX images_created_idx ON images (created_at);

-- "Does any card or profile use this upload?" without reading every card.
CREATE INDEX cards_upload_background_idx ON cards (background_ref) WHERE background_kind = 'upload';
CREATE INDEX accounts_upload_profile_idx ON accounts (profile_image_ref) WHERE profile_image_kind = 'upload';

-- Width and height as the upload's header states them (at most 8,192 a side, 40 megapixels).
-- Uploads stored before this migration kept their metadata: they have no dimensions yet, and
-- the `photo-scrub` job rewrites them (metadata removed, pixels untouched) and fills these in;
-- one it cannot read loses its bytes (it is then served as 404) rather than keep them.
ALTER TABLE images
    ADD COLUMN width  integer CHECK (width BETWEEN 1 AND 8192),
    ADD COLUMN height integer CHECK (height BETWEEN 1 AND 8192),
    ADD CONSTRAINT images_dimensions_complete CHECK ((width IS NULL) = (height IS NULL)),
    ADD CONSTRAINT images_at_most_40_megapixels CHECK (width::bigint * height <= 40000000);
CREATE INDEX images_unscrubbed_idx ON images (created_at) WHERE width IS NULL AND bytes IS NOT NULL;
