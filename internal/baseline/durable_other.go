//go:build !linux

package baseline

import "os"

// dataSync is a full sync where there is no fdatasync.
func dataSync(f *os.File) error { return f.Sync() }
