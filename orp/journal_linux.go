package orp

import (
	"os"
	"syscall"
)

// dataSyncFile syncs with fdatasync: an append overwrites blocks the file
// has, so nothing but its data needs to reach the disk.
type dataSyncFile struct{ *os.File }

func (f dataSyncFile) Sync() error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
