//go:build !unix

package sqlite

// lockFile takes no lock where flock is missing: restore then relies on
// the operator having stopped every process on the file.
func lockFile(string, bool) (unlock func(), busy bool, err error) {
	return func() {}, false, nil
}
