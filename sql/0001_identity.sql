-- Device identity: accounts keyed by their public key's fingerprint, single-use challenges,
-- hashed session tokens, transfer codes, and the little that withdrawal keeps.

CREATE TABLE accounts (
    id               uuid        PRIMARY KEY,
    -- SHA-256 of the SubjectPublicKeyInfo DER: the device's identity.
    key_fingerprint  bytea       NOT NULL CHECK (octet_length(key_fingerprint) = 32),
    public_key       bytea       NOT NULL,
    nickname         text        NOT NULL,
    -- Case-folded nickname (computed by the server, Unicode-aware): uniqueness ignores case.
    nickname_key     text        NOT NULL,
    profile_image_kind text      CHECK (profile_image_kind IN ('default', 'upload')),
    profile_image_ref  text,
    bio              text        NOT NULL DEFAULT '',
    card_count       integer     NOT NULL DEFAULT 0 CHECK (card_count >= 0),
    follower_count   integer     NOT NULL DEFAULT 0 CHECK (follower_count >= 0),
    following_count  integer     NOT NULL DEFAULT 0 CHECK (following_count >= 0),
    restricted_until timestamptz,
    created_at       timestamptz NOT NULL,
    CONSTRAINT accounts_key_fingerprint_unique UNIQUE (key_fingerprint),
    CONSTRAINT accounts_nickname_key_unique UNIQUE (nickname_key),
    CONSTRAINT accounts_profile_image_complete CHECK ((profile_image_kind IS NULL) = (profile_image_ref IS NULL))
);

-- Uploaded pictures (backgrounds and profile photos). Bytes live here by default; the
-- image store can move them elsewhere later.
CREATE TABLE images (
    id            uuid        PRIMARY KEY,
    owner_id      uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    content_type  text        NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png', 'image/webp')),
    byte_count    integer     NOT NULL CHECK (byte_count > 0),
    sha256        bytea       NOT NULL,
    bytes         bytea,
    created_at    timestamptz NOT NULL
);
CREATE INDEX images_owner_idx ON images (owner_id);

CREATE TABLE auth_challenges (
    id          uuid        PRIMARY KEY,
    nonce       text        NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX auth_challenges_expires_idx ON auth_challenges (expires_at);

CREATE TABLE sessions (
    -- SHA-256 of the bearer token; the token itself is never stored.
    token_hash  bytea       PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_account_idx ON sessions (account_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

CREATE TABLE transfer_codes (
    code_hash   bytea       PRIMARY KEY CHECK (octet_length(code_hash) = 32),
    account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX transfer_codes_account_idx ON transfer_codes (account_id);

-- All that remains of a withdrawn account.
CREATE TABLE withdrawals (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_fingerprint  bytea       NOT NULL,
    reason           text        NOT NULL,
    withdrawn_at     timestamptz NOT NULL
);
CREATE INDEX withdrawals_fingerprint_idx ON withdrawals (key_fingerprint, withdrawn_at DESC);
