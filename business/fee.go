package business

import (
	"errors"
	"fmt"
	"strings"

	"frontdesk/internal/money"
)

// What a fee is charged per.
const (
	FeePerStay  = "stay"  // once for the stay
	FeePerNight = "night" // for every night of it
	FeePerGuest = "guest" // for every guest of it
)

// Fee is a charge on a unit's stays on top of its rates, as the owner
// writes it under [[locations.units.fees]]: a cleaning fee per stay, a
// resort fee per night, a linen fee per guest. Amount is a decimal in
// the business currency, such as "35.00"; Taxable says the tax is
// charged on it as on the rates.
type Fee struct {
	Name    string `toml:"name"`
	Amount  string `toml:"amount"`
	Per     string `toml:"per"`
	Taxable bool   `toml:"taxable"`
}

// MaxFees bounds how many fees one unit lists.
const MaxFees = 8

// Charge is a fee read into minor units of the business currency.
type Charge struct {
	Name    string
	Amount  int64 // per Per
	Per     string
	Taxable bool
}

// Charges reads the unit's fees in currency. Each problem is reported
// as an error naming the fee's index and key, such as "[0].amount: …";
// all of them are joined.
func (u Unit) Charges(currency string) ([]Charge, error) {
	var out []Charge
	var errs []error
	if len(u.Fees) > MaxFees {
		errs = append(errs, fmt.Errorf(": must list at most %d fees, got %d", MaxFees, len(u.Fees)))
	}
	seen := map[string]bool{}
	for i, f := range u.Fees {
		bad := func(key, format string, args ...any) {
			errs = append(errs, fmt.Errorf("[%d].%s: %s", i, key, fmt.Sprintf(format, args...)))
		}
		name := strings.TrimSpace(f.Name)
		switch n := len([]rune(name)); {
		case n == 0 || n > 40:
			bad("name", "must be a short name of 1 to 40 characters, such as \"Cleaning fee\", got %q", f.Name)
		case seen[strings.ToLower(name)]:
			bad("name", "%q is listed twice", name)
		}
		seen[strings.ToLower(name)] = true
		amount, err := money.Parse(strings.TrimSpace(f.Amount), currency)
		switch {
		case f.Amount == "":
			bad("amount", "is required: a decimal such as \"35.00\"")
		case err != nil:
			bad("amount", "%v, got %q", err, f.Amount)
		case amount == 0:
			bad("amount", "must be more than zero; leave the fee out for none")
		}
		switch f.Per {
		case FeePerStay, FeePerNight, FeePerGuest:
		default:
			bad("per", "must be %q, %q or %q, got %q", FeePerStay, FeePerNight, FeePerGuest, f.Per)
		}
		out = append(out, Charge{Name: name, Amount: amount, Per: f.Per, Taxable: f.Taxable})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
