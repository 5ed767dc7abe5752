-- 0003_counters keeps the ceilings (mail budgets, pending ceilings, lookup
-- and attempt limits) as counters: per counter one head row (bucket -1)
-- holding the total of the buckets that still count, and one row per
-- bucket of uses. A write locks the head, folds the buckets that stopped
-- counting out of the total and checks the total, so its cost depends
-- neither on the ceiling nor on history.

CREATE TABLE counters (
	name   TEXT    NOT NULL,
	bucket INTEGER NOT NULL CHECK (bucket >= -1),
	n      INTEGER NOT NULL CHECK (n >= 0),
	PRIMARY KEY (name, bucket)
) STRICT, WITHOUT ROWID;
