-- Challenges are no longer stored when they are issued: a challenge ID seals its nonce and expiry
-- with a deployment secret (HMAC-SHA256), so issuing one costs no write. Only spent nonces are
-- recorded, in the same statement or transaction as the change they authorise, until they would
-- have expired anyway: the primary key makes a second use fail.
DROP TABLE auth_challenges;

CREATE TABLE spent_challenges (
    nonce       bytea       PRIMARY KEY CHECK (octet_length(nonce) = 32),
    expires_at  timestamptz NOT NULL
);
-- The purge deletes by expiry; rows arrive in roughly expiry order, so a BRIN index is enough
-- and costs the hot insert almost nothing.
CREATE INDEX spent_challenges_expires_idx ON spent_challenges USING brin (expires_at);

-- Secrets every server instance shares, made by the first instance that needs one.
CREATE TABLE server_secrets (
    name   text  PRIMARY KEY,
    value  bytea NOT NULL CHECK (octet_length(value) >= 32)
);
