package config

import (
	_ "embed"
	"fmt"
)

// DemoTOML is the built-in demo business, printed by `frontdesk init --demo`.
//
//go:embed demo.toml
var DemoTOML []byte

// ExampleTOML is the commented starting point printed by `frontdesk init`.
//
//go:embed example.toml
var ExampleTOML []byte

// Demo returns the demo business, already validated.
func Demo() Config {
	c, err := Parse(DemoTOML)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		// The file is compiled in and covered by tests; a failure here is a
		// build defect, not a runtime condition.
		panic(fmt.Sprintf("config: demo business is invalid: %v", err))
	}
	return c
}
