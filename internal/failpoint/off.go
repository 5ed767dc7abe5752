//go:build !failpoint

package failpoint

// Compiled reports whether this build honours the setting.
const Compiled = false

// Parse ignores the setting: a build without the tag injects no fault.
func Parse(string) (Failpoint, error) { return Failpoint{}, nil }
