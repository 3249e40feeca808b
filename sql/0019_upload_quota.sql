-- The upload quota (`UploadQuota`: the bytes an account stored by uploading within the last day)
-- is summed on every upload, while the account's row is held: an index on the owner and the time,
-- carrying the size, answers it from the index alone, reading only that window's uploads. It also
-- serves what the owner index served (an account's images, when it is deleted), so that one goes.

CREATE INDEX images_owner_created_idx ON images (owner_id, created_at) INCLUDE (byte_count);
DROP INDEX images_owner_idx;
