//go:build unix

package sqlite

import (
	"path/filepath"
	"syscall"
)

// freeBytes reports the space an unprivileged writer has left on the disk
// that holds path.
func freeBytes(path string) (free uint64, known bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
