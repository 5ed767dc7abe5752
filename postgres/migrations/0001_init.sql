-- 0001_init creates the versioned records and the availability index.
-- Times are BIGINT unix nanoseconds in UTC, always supplied by the caller.
-- Text keys use the "C" collation so that ranges and ordering compare bytes,
-- exactly as SQLite does: slots such as "2026-12-01T10:00" must sort inside
-- their day whatever the database's default collation is.

CREATE TABLE records (
	kind       TEXT COLLATE "C" NOT NULL,
	key        TEXT COLLATE "C" NOT NULL,
	value      BYTEA  NOT NULL,
	version    BIGINT NOT NULL CHECK (version >= 1),
	updated_at BIGINT NOT NULL,
	PRIMARY KEY (kind, key)
);

-- slots is the availability index: how many units of one type are held in
-- one slot (a night or a timed start) of one location.
CREATE TABLE slots (
	location TEXT COLLATE "C" NOT NULL,
	unit     TEXT COLLATE "C" NOT NULL,
	slot     TEXT COLLATE "C" NOT NULL,
	held     BIGINT NOT NULL CHECK (held >= 0),
	version  BIGINT NOT NULL CHECK (version >= 1),
	PRIMARY KEY (location, unit, slot)
);

-- holds and hold_slots remember what each hold took, so Release knows
-- exactly what to give back.
CREATE TABLE holds (
	id         TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	location   TEXT COLLATE "C" NOT NULL,
	unit       TEXT COLLATE "C" NOT NULL,
	units      BIGINT NOT NULL CHECK (units >= 1),
	created_at BIGINT NOT NULL
);

CREATE TABLE hold_slots (
	hold_id TEXT COLLATE "C" NOT NULL REFERENCES holds (id) ON DELETE CASCADE,
	slot    TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (hold_id, slot)
);
