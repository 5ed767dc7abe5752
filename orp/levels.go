package orp

import "slices"

// ClaimedLevels are the conformance levels a host claims whose suites
// pass: each level includes the ones below it (§17), so a level is
// claimed only when its suite and every lower one pass.
func ClaimedLevels(suites []string) []string {
	var out []string
	for _, l := range []string{"L0", "L1", "L2", "L3"} {
		if !slices.Contains(suites, l) {
			break
		}
		out = append(out, l)
	}
	return out
}
