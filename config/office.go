package config

import "frontdesk/business"

// closures checks a list of closures at path ("business.closures") by
// the business's closure rules.
func (v *validator) closures(path string, list []business.Closure) {
	v.errs = append(v.errs, business.ClosureProblems(path, list)...)
}
