package orp

import (
	"fmt"
	"os"
	"path/filepath"

	"frontdesk/internal/filelock"
)

// LockJournal keeps every other serve off the click journal in dir until
// the returned unlock: a second server on the same data directory
// would append to files the first still counts from. The kernel drops
// the lock when the process ends, however it ends.
func LockJournal(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("click journal: %w", err)
	}
	unlock, busy, err := filelock.Lock(filepath.Join(dir, "journal.lock"), true)
	if err != nil {
		return nil, fmt.Errorf("click journal: lock: %w", err)
	}
	if busy {
		return nil, fmt.Errorf("the click journal in %s is in use by another frontdesk serve on the same data directory; stop it first", dir)
	}
	return unlock, nil
}
