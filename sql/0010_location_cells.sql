-- A card's location is kept only as the centre of its cell (GeoCell): a geohash cell at least
-- 500 m wide and tall, never the point it was posted from. These functions are GeoCell's rule in
-- SQL, for migrating the rows stored before it and for the bulk seeder; the server computes cells
-- in Swift. Both must agree to the bit: a card's key decides which nearby queries find it. The
-- Swift tests check that no decision is close enough to 500 m for the last bit of a cosine to
-- matter, and the two were compared on 10,000 points, edges and poles included.

-- The geohash of `hash_length` characters (its precision, 1…12) containing the point; latitude 90
-- and longitude 180 fall in the last cell. Geohash.encode in Swift. (`precision` cannot name a
-- parameter: it is a keyword.)
--
-- The row (column) is ⌊(latitude + 90) / height⌋: the division only estimates it (the addition
-- rounds, so a point just below an edge could land above it), and one comparison with each exact
-- edge, -90 + row × height, corrects it (edges are dyadic fractions, exact in double precision).
-- The bits of row and column are then interleaved, longitude first, and read five at a time.
CREATE FUNCTION soom_geohash(latitude double precision, longitude double precision, hash_length integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    rows_count     bigint;
    columns_count  bigint;
    height         double precision;
    width          double precision;
    row_index      bigint;
    column_index   bigint;
    code           bigint;
    hash           text := '';
BEGIN
    IF hash_length NOT BETWEEN 1 AND 12 OR latitude NOT BETWEEN -90 AND 90 OR longitude NOT BETWEEN -180 AND 180 THEN
        RAISE EXCEPTION 'soom_geohash: (%, %) at length % is not a point on Earth or a geohash precision', latitude, longitude, hash_length;
    END IF;
    rows_count := 1::bigint << (5 * hash_length / 2);
    columns_count := 1::bigint << ((5 * hash_length + 1) / 2);
    height := 180 / rows_count::double precision;
    width := 360 / columns_count::double precision;
    row_index := least(greatest(floor((latitude + 90) / height)::bigint, 0), rows_count - 1);
    IF latitude < -90 + row_index * height THEN
        row_index := row_index - 1;
    ELSIF row_index < rows_count - 1 AND latitude >= -90 + (row_index + 1) * height THEN
        row_index := row_index + 1;
    END IF;
    column_index := least(greatest(floor((longitude + 180) / width)::bigint, 0), columns_count - 1);
    IF longitude < -180 + column_index * width THEN
        column_index := column_index - 1;
    ELSIF column_index < columns_count - 1 AND longitude >= -180 + (column_index + 1) * width THEN
        column_index := column_index + 1;
    END IF;
    -- Spread each index's (at most 30) bits to the even positions of a 60-bit number.
    row_index := (row_index | (row_index << 16)) & 281470681808895;          -- 0x0000FFFF0000FFFF
    row_index := (row_index | (row_index << 8)) & 71777214294589695;         -- 0x00FF00FF00FF00FF
    row_index := (row_index | (row_index << 4)) & 1085102592571150095;       -- 0x0F0F0F0F0F0F0F0F
    row_index := (row_index | (row_index << 2)) & 3689348814741910323;       -- 0x3333333333333333
    row_index := (row_index | (row_index << 1)) & 6148914691236517205;       -- 0x5555555555555555
    column_index := (column_index | (column_index << 16)) & 281470681808895;
    column_index := (column_index | (column_index << 8)) & 71777214294589695;
    column_index := (column_index | (column_index << 4)) & 1085102592571150095;
    column_index := (column_index | (column_index << 2)) & 3689348814741910323;
    column_index := (column_index | (column_index << 1)) & 6148914691236517205;
    -- The last of the 5 × hash_length bits is longitude's when their number is odd.
    code := CASE WHEN hash_length % 2 = 1 THEN column_index | (row_index << 1) ELSE (column_index << 1) | row_index END;
    FOR i IN REVERSE hash_length - 1..0 LOOP
        hash := hash || substr('0123456789bcdefghjkmnpqrstuvwxyz', ((code >> (5 * i)) & 31)::integer + 1, 1);
    END LOOP;
    RETURN hash;
END
$$;

-- The cell a card posted at the point is kept as: `key` (the precision-6 geohash of the centre,
-- whose prefixes the nearby feed reads) and the centre. GeoCell in Swift, which says why:
-- precision p (6 down to 1) is used iff every p-cell in the point's (p − 1)-cell is at least
-- 500 m wide, measured at its poleward edge, or at the other edge for a cell touching a pole.
-- That is 6 up to 65.83° of latitude, 5 up to 84.02°, 4 up to 88.59° and 3 beyond.
CREATE FUNCTION soom_geo_cell(latitude double precision, longitude double precision,
    OUT key text, OUT cell_latitude double precision, OUT cell_longitude double precision)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    chosen        integer := 1;
    parent_height double precision;
    parent_row    bigint;
    parent_south  double precision;
    narrowest     double precision;
    height        double precision;
    width         double precision;
    row_index     bigint;
    column_index  bigint;
BEGIN
    IF latitude NOT BETWEEN -90 AND 90 OR longitude NOT BETWEEN -180 AND 180 THEN
        RAISE EXCEPTION 'soom_geo_cell: (%, %) is not a point on Earth', latitude, longitude;
    END IF;
    FOR p IN REVERSE 6..2 LOOP
        parent_height := 180 / (1::bigint << (5 * (p - 1) / 2))::double precision;
        parent_row := least(floor((latitude + 90) / parent_height)::bigint, (1::bigint << (5 * (p - 1) / 2)) - 1);
        IF latitude < -90 + parent_row * parent_height THEN
            parent_row := parent_row - 1;
        ELSIF latitude >= -90 + (parent_row + 1) * parent_height AND parent_row < (1::bigint << (5 * (p - 1) / 2)) - 1 THEN
            parent_row := parent_row + 1;
        END IF;
        parent_south := -90 + parent_row * parent_height;
        -- The parent's poleward edge; one row of p-cells from the pole if it touches one.
        narrowest := least(greatest(abs(parent_south), abs(parent_south + parent_height)),
                           90 - 180 / (1::bigint << (5 * p / 2))::double precision);
        -- The width of a p-cell there, written as GeoCell.metres(ofLongitude:atLatitude:) is.
        IF 360 / (1::bigint << ((5 * p + 1) / 2))::double precision * cos(narrowest * pi() / 180)
                * (2 * pi() * 6371008.8::double precision / 360) >= 500 THEN
            chosen := p;
            EXIT;
        END IF;
    END LOOP;
    height := 180 / (1::bigint << (5 * chosen / 2))::double precision;
    width := 360 / (1::bigint << ((5 * chosen + 1) / 2))::double precision;
    row_index := least(floor((latitude + 90) / height)::bigint, (1::bigint << (5 * chosen / 2)) - 1);
    IF latitude < -90 + row_index * height THEN
        row_index := row_index - 1;
    ELSIF latitude >= -90 + (row_index + 1) * height AND row_index < (1::bigint << (5 * chosen / 2)) - 1 THEN
        row_index := row_index + 1;
    END IF;
    column_index := least(floor((longitude + 180) / width)::bigint, (1::bigint << ((5 * chosen + 1) / 2)) - 1);
    IF longitude < -180 + column_index * width THEN
        column_index := column_index - 1;
    ELSIF longitude >= -180 + (column_index + 1) * width AND column_index < (1::bigint << ((5 * chosen + 1) / 2)) - 1 THEN
        column_index := column_index + 1;
    END IF;
    cell_latitude := (-90 + row_index * height + (-90 + (row_index + 1) * height)) / 2;
    cell_longitude := (-180 + column_index * width + (-180 + (column_index + 1) * width)) / 2;
    key := soom_geohash(cell_latitude, cell_longitude, 6);
END
$$;

-- Cards keep only the cell of a location, never the point that was sent (the contract's
-- *Location privacy*): `geo_cell`, the cell's key (a geohash of length 6 of its centre, whose
-- prefixes of length 3–6 the nearby feed reads), and the centre itself, which the nearby feed
-- measures to. The server computes the cell before anything is stored (`GeoCell`); existing
-- rows are turned into cells here, and the exact values are dropped.
ALTER TABLE cards
    ADD COLUMN geo_cell      text             CHECK (geo_cell ~ '^[0-9b-hjkmnp-z]{6}$'),
    ADD COLUMN geo_latitude  double precision CHECK (geo_latitude BETWEEN -90 AND 90),
    ADD COLUMN geo_longitude double precision CHECK (geo_longitude BETWEEN -180 AND 180),
    ADD CONSTRAINT cards_geo_cell_complete CHECK ((geo_cell IS NULL) = (geo_latitude IS NULL) AND (geo_cell IS NULL) = (geo_longitude IS NULL));

UPDATE cards SET (geo_cell, geo_latitude, geo_longitude) = (SELECT key, cell_latitude, cell_longitude FROM soom_geo_cell(latitude, longitude))
WHERE latitude IS NOT NULL;

-- Dropping the columns (and with them cards_location_idx) only hides their values: every row
-- still carries them on disk until it is rewritten. Changing a column's type through an
-- expression rewrites the whole table, with dropped columns written as NULL, and the old file
-- is removed when this migration commits.
ALTER TABLE cards DROP COLUMN latitude, DROP COLUMN longitude;
ALTER TABLE cards ALTER COLUMN geo_latitude TYPE double precision USING geo_latitude * 1;

-- Idempotency-Key records kept the request's canonical text, location included: those with a
-- location go (they live 24 hours at most; a retry within that time posts anew).
DELETE FROM idempotency_keys WHERE split_part(request, E'\x1f', 5) <> '-';

-- The nearby feed (NearbyStatements): located top-level cards newest first within a prefix of
-- the cell key, one index per prefix length it reads. Each carries what the feed filters on (the
-- centre, the author for blocks, expiry and hiding), so pages are read from the index alone.
CREATE INDEX cards_nearby_p6_idx ON cards (geo_cell, created_at DESC, id DESC)
    INCLUDE (geo_latitude, geo_longitude, author_id, expires_at, hidden_at) WHERE parent_id IS NULL AND geo_cell IS NOT NULL;
CREATE INDEX cards_nearby_p5_idx ON cards (left(geo_cell, 5), created_at DESC, id DESC)
    INCLUDE (geo_cell, geo_latitude, geo_longitude, author_id, expires_at, hidden_at) WHERE parent_id IS NULL AND geo_cell IS NOT NULL;
CREATE INDEX cards_nearby_p4_idx ON cards (left(geo_cell, 4), created_at DESC, id DESC)
    INCLUDE (geo_cell, geo_latitude, geo_longitude, author_id, expires_at, hidden_at) WHERE parent_id IS NULL AND geo_cell IS NOT NULL;
CREATE INDEX cards_nearby_p3_idx ON cards (left(geo_cell, 3), created_at DESC, id DESC)
    INCLUDE (geo_cell, geo_latitude, geo_longitude, author_id, expires_at, hidden_at) WHERE parent_id IS NULL AND geo_cell IS NOT NULL;
-- Around the poles, where even prefixes of length 3 are too many: every located card, newest first.
CREATE INDEX cards_located_idx ON cards (created_at DESC, id DESC) WHERE parent_id IS NULL AND geo_cell IS NOT NULL;
