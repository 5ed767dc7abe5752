package baseline

import (
	"os"
	"syscall"
)

// dataSync is fdatasync, as frontdesk's click journal syncs.
func dataSync(f *os.File) error {
	for {
		if err := syscall.Fdatasync(int(f.Fd())); err != syscall.EINTR {
			return err
		}
	}
}
