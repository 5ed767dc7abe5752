//go:build !linux

package orp

import "os"

// dataSyncFile syncs with the file's own Sync where fdatasync is not
// offered.
type dataSyncFile struct{ *os.File }
