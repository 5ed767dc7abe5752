// Package bench holds frontdesk's load scripts. Each reports its figures as
// a ratio to a baseline measured in the same run; BENCHMARKS.md records
// the results with the command that produced them. The Go benchmarks they
// run live beside the code they measure.
package bench
