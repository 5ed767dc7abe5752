// Package money reads and writes amounts in integer minor units, with the
// number of decimals each currency uses. Which codes are currencies and
// how many decimals each has come from the CLDR data that
// golang.org/x/text/currency maintains. It imports only the standard
// library and that package.
package money

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/currency"
)

// Decimals returns how many decimals the currency shows: CLDR's standard
// (non-cash) digits, such as 2 for USD, 0 for UGX, XOF, XAF, PYG and RWF,
// 3 for LYD and 4 for CLF. An unknown code gets 2; ValidCurrency refuses
// it before any amount is read.
//
// Where CLDR and ISO 4217 differ, CLDR wins. ISO 4217 still lists a minor
// unit of two decimals for currencies whose subunit is no longer used
// (IDR, COP, PKR, LBP, IRR and about twenty more) and three for IQD; CLDR
// gives the decimals people actually write and read, 0 for all of them.
// frontdesk's amounts are prices an owner writes in the config and a guest
// reads in a quote, not settlement records for a card network, so a price
// of "150000" rupiah must not be shown as "150,000.00". A payment
// integration would convert to ISO minor units at its own boundary.
// Cash rounding (0 decimals for HUF, CZK and TWD in CLDR) is not used:
// nothing here is paid in coins.
func Decimals(code string) int {
	u, err := currency.ParseISO(code)
	if err != nil {
		return 2
	}
	scale, _ := currency.Standard.Rounding(u)
	return scale
}

// ValidCurrency reports whether code is a currency a business can price
// in: an ISO 4217 code that CLDR lists as legal tender somewhere today,
// or a country's own unit of account whose code starts with that
// country's code (CLF in Chile, UYI in Uruguay). Codes that are well
// formed but name nothing (ZZZ), withdrawn codes, precious metals (XAU),
// drawing rights (XDR), the testing code XTS and "no currency" XXX are
// refused.
//
// The data is CLDR's as x/text ships it, so a code introduced after that
// release (such as VES, MRU or SLE) is refused until x/text updates.
func ValidCurrency(code string) bool {
	if len(code) != 3 || strings.ToUpper(code) != code {
		return false
	}
	for it := currency.Query(currency.NonTender); it.Next(); {
		if it.Unit().String() != code {
			continue
		}
		if it.IsTender() || strings.HasPrefix(code, it.Region().String()) {
			return true
		}
	}
	return false
}

// Parse reads a non-negative decimal such as "89.00" into minor units. It
// refuses more decimals than the currency has, so no amount is rounded
// silently.
func Parse(s, currency string) (int64, error) {
	d := Decimals(currency)
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") {
		return 0, errors.New("must be a decimal amount such as 89.00")
	}
	if len(frac) > d {
		return 0, fmt.Errorf("has more than %d decimals for %s", d, currency)
	}
	for _, part := range []string{whole, frac} {
		for _, r := range part {
			if r < '0' || r > '9' {
				return 0, errors.New("must be a decimal amount such as 89.00")
			}
		}
	}
	frac += strings.Repeat("0", d-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || len(whole) > 12 {
		return 0, errors.New("is too large")
	}
	return n, nil
}

// Format writes minor units as a plain decimal with the currency's
// decimals, such as "1234.50".
func Format(minor int64, currency string) string {
	d := Decimals(currency)
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	s := strconv.FormatInt(minor, 10)
	if d == 0 {
		return sign + s
	}
	if len(s) <= d {
		s = strings.Repeat("0", d-len(s)+1) + s
	}
	return sign + s[:len(s)-d] + "." + s[len(s)-d:]
}

// Display writes an amount for people: "$1,234.50" for USD, otherwise the
// code after the figure, such as "1,234.50 EUR".
func Display(minor int64, currency string) string {
	plain := Format(minor, currency)
	whole, frac, _ := strings.Cut(strings.TrimPrefix(plain, "-"), ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	grouped := b.String()
	if frac != "" {
		grouped += "." + frac
	}
	if minor < 0 {
		grouped = "-" + grouped
	}
	if currency == "USD" {
		return "$" + grouped
	}
	return grouped + " " + currency
}

// DivRound divides with halves rounded away from zero, the way a printed
// price is rounded.
func DivRound(n, d int64) int64 {
	if d < 0 {
		n, d = -n, -d
	}
	if n >= 0 {
		return (n + d/2) / d
	}
	return -((-n + d/2) / d)
}
