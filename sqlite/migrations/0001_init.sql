-- 0001_init creates the versioned records and the availability index.
-- Times are INTEGER unix nanoseconds in UTC, always supplied by the caller.

CREATE TABLE records (
	kind       TEXT    NOT NULL,
	key        TEXT    NOT NULL,
	value      BLOB    NOT NULL,
	version    INTEGER NOT NULL CHECK (version >= 1),
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (kind, key)
) STRICT;

-- slots is the availability index: how many units of one type are held in
-- one slot (a night or a timed start) of one location.
CREATE TABLE slots (
	location TEXT    NOT NULL,
	unit     TEXT    NOT NULL,
	slot     TEXT    NOT NULL,
	held     INTEGER NOT NULL CHECK (held >= 0),
	version  INTEGER NOT NULL CHECK (version >= 1),
	PRIMARY KEY (location, unit, slot)
) STRICT;

-- holds and hold_slots remember what each hold took, so Release knows
-- exactly what to give back.
CREATE TABLE holds (
	id         TEXT    NOT NULL PRIMARY KEY,
	location   TEXT    NOT NULL,
	unit       TEXT    NOT NULL,
	units      INTEGER NOT NULL CHECK (units >= 1),
	created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE hold_slots (
	hold_id TEXT NOT NULL REFERENCES holds (id) ON DELETE CASCADE,
	slot    TEXT NOT NULL,
	PRIMARY KEY (hold_id, slot)
) STRICT;
