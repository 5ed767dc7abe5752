//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes an advisory flock on path, shared or exclusive, without
// waiting. The kernel releases it when the process ends however it ends,
// so a crash leaves no stale lock. busy reports that another holder's
// lock is in the way.
func Lock(path string, exclusive bool) (unlock func(), busy bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		cerr := f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, cerr
		}
		return nil, false, errors.Join(err, cerr)
	}
	return func() { _ = f.Close() }, false, nil // closing the file is what drops the lock
}
