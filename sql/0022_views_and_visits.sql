-- Views of cards and visits of profiles: distinct accounts other than the owner, counted once.
--
-- A view (`GET /v1/cards/{id}`) or a visit (`GET /v1/users/{id}`) is noted in the server's memory
-- and written here in batches every second (`PostgresViews.record`), off the request path: the
-- pair table keeps each reader once, and the counter moves in the same statement as the pair is
-- inserted, so it stays exact. A withdrawal takes its reader's pairs and counts back in its own
-- transaction; a card or account takes its pairs with it (ON DELETE CASCADE).

ALTER TABLE cards ADD COLUMN view_count integer NOT NULL DEFAULT 0 CHECK (view_count >= 0);

CREATE TABLE card_views (
    card_id    uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    viewer_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    PRIMARY KEY (card_id, viewer_id)
);
-- For the withdrawal of a reader.
CREATE INDEX card_views_viewer_idx ON card_views (viewer_id);

-- `visits_today` counts the visitors of `visits_day` (a UTC date); a profile read on another day
-- shows 0 until a visit of that day starts the count again.
ALTER TABLE accounts
    ADD COLUMN visit_count  integer NOT NULL DEFAULT 0 CHECK (visit_count >= 0),
    ADD COLUMN visits_today integer NOT NULL DEFAULT 0 CHECK (visits_today >= 0),
    ADD COLUMN visits_day   date;

-- One row per owner and visitor: the UTC day of the visitor's latest visit.
CREATE TABLE profile_visits (
    owner_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    visitor_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    last_day    date NOT NULL,
    PRIMARY KEY (owner_id, visitor_id),
    CHECK (owner_id <> visitor_id)
);
CREATE INDEX profile_visits_visitor_idx ON profile_visits (visitor_id);
