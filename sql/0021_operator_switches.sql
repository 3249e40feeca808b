-- What operators change at run time with `soom admin` (notices, client versions, maintenance,
-- refused words), and what a withdrawal keeps of a running restriction.
--
-- Every server instance reads the switches (maintenance, client versions, refused words) every
-- two seconds in one statement (`PostgresOperatorSwitches.load`): the tables stay small, and an
-- operator's change reaches every instance without a restart or a listener.

-- Notices clients show (`GET /v1/notices`, newest first, keyset paged).
CREATE TABLE notices (
    id          uuid        PRIMARY KEY,
    kind        text        NOT NULL CHECK (kind IN ('notice', 'maintenance', 'news')),
    title       text        NOT NULL CHECK (char_length(title) BETWEEN 1 AND 100),
    body        text        NOT NULL CHECK (char_length(body) BETWEEN 1 AND 2000),
    url         text        CHECK (url IS NULL OR char_length(url) BETWEEN 1 AND 2000),
    created_at  timestamptz NOT NULL
);
CREATE INDEX notices_page_idx ON notices (created_at DESC, id DESC);

-- The newest and the oldest supported client of each platform (`GET /v1/client-versions/{platform}`).
-- A platform without a row has no policy: every version is `ok`.
CREATE TABLE client_versions (
    platform  text PRIMARY KEY CHECK (platform IN ('ios', 'android', 'web')),
    latest    text NOT NULL CHECK (latest ~ '^[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}$'),
    minimum   text NOT NULL CHECK (minimum ~ '^[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}$')
);

-- Maintenance: at most one row; while `until` is ahead, every `/v1` write is `503 maintenance`.
CREATE TABLE maintenance (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    until      timestamptz NOT NULL
);

-- Words no nickname or tag may contain, as the operator wrote them; the server compares them
-- folded (`RefusedWords`: NFKC, case folding, without spaces, punctuation and invisible
-- characters). A small default list that operators extend or empty (`soom admin words`).
CREATE TABLE refused_words (
    word      text        PRIMARY KEY CHECK (char_length(word) BETWEEN 1 AND 50),
    added_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO refused_words (word) VALUES
    ('씨발'), ('시발'), ('씨바'), ('ㅅㅂ'), ('ㅆㅂ'), ('병신'), ('ㅄ'), ('개새끼'), ('좆'), ('씹새'), ('느금마'), ('니애미'),
    ('fuck'), ('shit'), ('bitch'), ('cunt'), ('nigger'), ('faggot'), ('asshole');

-- A key withdrawn while its account was restricted may register again only after the later of
-- the seven-day rule and the restriction's end: the withdrawal keeps that end (nothing else of
-- the account), and its record stays until then even past the usual 30 days.
ALTER TABLE withdrawals ADD COLUMN restricted_until timestamptz;
