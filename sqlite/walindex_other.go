//go:build !unix

package sqlite

import "os"

// mapsHeader says the WAL index header is read from memory here.
const mapsHeader = false

// mapHeader maps nothing here: the header is read with ReadAt.
func mapHeader(*os.File, int) []byte { return nil }

func unmapHeader([]byte) {}
