// Package money reads and writes amounts in integer minor units, with the
// number of decimals each currency uses. It imports only the standard
// library.
package money

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// exponents lists currencies whose minor unit is not hundredths.
var exponents = map[string]int{
	"JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0, "VND": 0, "HUF": 2,
	"BHD": 3, "KWD": 3, "OMR": 3, "JOD": 3, "TND": 3,
}

// Decimals returns how many decimals the currency shows.
func Decimals(currency string) int {
	if d, ok := exponents[currency]; ok {
		return d
	}
	return 2
}

// ValidCurrency reports whether code looks like an ISO 4217 code.
func ValidCurrency(code string) bool {
	if len(code) != 3 {
		return false
	}
	for _, r := range code {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
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
