package main

import (
	"frontdesk/inventory"
	"frontdesk/pricing"
	"frontdesk/usp"
)

// openUSP builds the business side of USP when the config enables it, on
// the opened store; origin is the public origin the profile names.
func (m *Main) openUSP(origin string) error {
	if !m.Config.USP.Enabled {
		return nil
	}
	opts := usp.Options{
		Config: m.Config, Inventory: inventory.New(m.store), Pricer: pricing.New(m.Config, origin),
		Clock: m.Clock, Origin: origin, Logger: m.Logger, Store: m.store,
	}
	if keys := usp.NewAPIKeys(m.Config.USP.Platforms); keys != nil {
		opts.Authenticator = usp.Chain{keys}
	}
	b, err := usp.New(opts)
	if err != nil {
		return err
	}
	m.usp = b
	return nil
}
