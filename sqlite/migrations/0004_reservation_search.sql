-- 0004_reservation_search lets staff find any reservation in any amount of
-- history. reservation_terms indexes the words of a reservation (its
-- reference, the guest's name and email, the phone's digits) so a search
-- reads only its matches; the desk replaces a reservation's terms with
-- every write of its row, so forgetting a guest removes them too.
-- Existing reservations get their terms when the desk first starts on
-- this schema.
--
-- span is how many days a reservation reaches past its first slot's day,
-- so a read of a date window starts no earlier than the window less the
-- longest span stored, and uses the index of first slots at both ends.

CREATE TABLE reservation_terms (
	term      TEXT NOT NULL,
	reference TEXT NOT NULL,
	PRIMARY KEY (term, reference)
) STRICT, WITHOUT ROWID;

CREATE INDEX reservation_terms_reference ON reservation_terms (reference);

ALTER TABLE reservations ADD COLUMN span INTEGER NOT NULL DEFAULT 0;

UPDATE reservations SET span = max(0, CAST(julianday(substr(last_slot, 1, 10)) - julianday(substr(first_slot, 1, 10)) AS INTEGER));

CREATE INDEX reservations_span ON reservations (span);
