-- 0002_reservations keeps reservations in typed, indexed rows, so staff
-- screens and other doors read them by location, dates, state, source,
-- reference or contact without decoding every reservation. The rest of a
-- reservation stays JSON in value.

CREATE TABLE reservations (
	reference   TEXT COLLATE "C" NOT NULL PRIMARY KEY,
	location    TEXT COLLATE "C" NOT NULL,
	unit        TEXT COLLATE "C" NOT NULL,
	first_slot  TEXT COLLATE "C" NOT NULL,
	last_slot   TEXT COLLATE "C" NOT NULL,
	state       TEXT COLLATE "C" NOT NULL,
	source      TEXT COLLATE "C" NOT NULL,
	contact_key TEXT COLLATE "C" NOT NULL,
	value       BYTEA   NOT NULL,
	version     BIGINT NOT NULL CHECK (version >= 1),
	updated_at  BIGINT  NOT NULL
);

CREATE INDEX reservations_location_dates ON reservations (location, first_slot, last_slot);
CREATE INDEX reservations_state ON reservations (state, first_slot);
CREATE INDEX reservations_source ON reservations (source, first_slot);
CREATE INDEX reservations_contact ON reservations (contact_key, first_slot);
CREATE INDEX reservations_dates ON reservations (first_slot, reference);

-- A free-count read asks for one location's slots in a date range of all
-- its units; this index scans just those dates, not the location's history.
CREATE INDEX slots_location_slot ON slots (location, slot);
