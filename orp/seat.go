package orp

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// Many-party deals (ORP 0.4, §20): a deal of 2 to 16 seats, each a party
// in one of eight roles, required or optional, with its share of the deal
// (its split terms) and an optional identity attestation.

// Version04 is the ORP version with many-party deals (§20).
const Version04 = "0.4"

// Versions are the versions this host speaks, newest first, as the
// discovery document lists them (§20).
var Versions = []string{Version04, Version}

// Seat roles (§20.1).
var seatRoles = []string{"offerer", "acceptor", "curator", "facilitator", "service", "signer", "consumer", "member"}

// Seat is one party's seat on a many-party deal: what the deal's hash
// covers (id, role, required, terms, identity), and whether it signed.
type Seat struct {
	ID       string     `json:"id"`
	Role     string     `json:"role"`
	Required bool       `json:"required"`
	Signed   bool       `json:"signed,omitempty"`
	Terms    *SeatTerms `json:"terms,omitempty"`
	Identity *Identity  `json:"identity,omitempty"`
}

// SeatTerms are a seat's split (§20.1): a percent from 0 to 100, a fixed
// amount, a cap on the percent, and per, hours and deposit, which are
// not amounts.
type SeatTerms struct {
	Percent *int64   `json:"percent,omitempty"`
	Amount  *Money   `json:"amount,omitempty"`
	Cap     *Money   `json:"cap,omitempty"`
	Per     string   `json:"per,omitempty"`
	Hours   *int64   `json:"hours,omitempty"`
	Deposit *Deposit `json:"deposit,omitempty"`
}

// Deposit is a term naming who holds a deposit: always someone outside
// the host, which holds no money (§20.5).
type Deposit struct {
	Amount Money  `json:"amount"`
	Holder string `json:"holder"`
}

// Identity is a party's identity attestation: a hash and its issuer, and
// never a name, an email or other personal data (§20.5).
type Identity struct {
	Hash   string `json:"hash"`
	Issuer string `json:"issuer"`
}

// hashedSeat is a seat as terms_hash covers it: signed left out (§20.1).
type hashedSeat struct {
	ID       string     `json:"id"`
	Role     string     `json:"role"`
	Required bool       `json:"required"`
	Terms    *SeatTerms `json:"terms,omitempty"`
	Identity *Identity  `json:"identity,omitempty"`
}

// SeatsHash is the terms_hash of a many-party deal: the JCS SHA-256 of
// {terms, parties}, the parties in the order given (the offer's order),
// each without signed (§20.1).
func SeatsHash(terms json.RawMessage, seats []Seat) (string, error) {
	hs := make([]hashedSeat, len(seats))
	for i, s := range seats {
		hs[i] = hashedSeat{ID: s.ID, Role: s.Role, Required: s.Required, Terms: s.Terms, Identity: s.Identity}
	}
	b, err := json.Marshal(struct {
		Terms   json.RawMessage `json:"terms"`
		Parties []hashedSeat    `json:"parties"`
	}{terms, hs})
	if err != nil {
		return "", err
	}
	return Hash(b)
}

// CheckSeats checks a deal's seats as §20.1 and §20.5 write them: 2 to
// 16 distinct parties in the eight roles, at most one offerer and one
// acceptor, at least one required seat, consumer seats optional, a valid
// split and no deposit held by the host. It returns an invalid_message
// refusal naming the field, or nil.
func CheckSeats(seats []Seat) error {
	if len(seats) < 2 || len(seats) > 16 {
		return invalid("/body/parties", "A deal has 2 to 16 parties.")
	}
	seen := map[string]bool{}
	roles := map[string]int{}
	required := false
	for i, s := range seats {
		at := "/body/parties/" + itoa(i)
		switch {
		case seen[s.ID]:
			return invalid(at+"/id", "A party holds one seat on a deal.")
		case !slices.Contains(seatRoles, s.Role):
			return invalid(at+"/role", "role is one of offerer, acceptor, curator, facilitator, service, signer, consumer and member.")
		case s.Role == "consumer" && s.Required:
			return invalid(at+"/required", "A consumer seat is always optional.")
		}
		seen[s.ID] = true
		roles[s.Role]++
		required = required || s.Required
		if t := s.Terms; t != nil && t.Deposit != nil && hostHolder(t.Deposit.Holder) {
			return invalid(at+"/terms/deposit/holder", "A deposit is held outside this host, which holds no money: name the outside holder.")
		}
	}
	switch {
	case roles["offerer"] > 1:
		return invalid("/body/parties", "A deal has at most one offerer.")
	case roles["acceptor"] > 1:
		return invalid("/body/parties", "A deal has at most one acceptor.")
	case !required:
		return invalid("/body/parties", "A deal has at least one required seat.")
	}
	return CheckSplit(seats)
}

// CheckSplit checks the seats' split (§20.1). A percent is 0 to 100.
// With no amount on any seat, the percents sum to exactly 100, whatever
// else (per, hours, deposit, cap) a seat carries. Fixed amounts alone
// need no sum. A mix (a seat with a percent and an amount, or percent
// seats beside seats with an amount) is valid when every percent has a
// cap and the percents are not over 100.
func CheckSplit(seats []Seat) error {
	var sum int64
	percents, amounts, uncapped := 0, 0, -1
	for i, s := range seats {
		t := s.Terms
		if t == nil {
			continue
		}
		if t.Amount != nil {
			amounts++
		}
		if t.Percent == nil {
			continue
		}
		if *t.Percent < 0 || *t.Percent > 100 {
			return invalid("/body/parties/"+itoa(i)+"/terms/percent", "A percent is a whole number from 0 to 100.")
		}
		percents++
		sum += *t.Percent
		if t.Cap == nil && uncapped < 0 {
			uncapped = i
		}
	}
	switch {
	case percents == 0:
		return nil
	case amounts == 0 && sum != 100:
		return invalid("/body/parties", "The seats' percents sum to "+itoa64(sum)+"; without fixed amounts they sum to 100.")
	case amounts > 0 && uncapped >= 0:
		return invalid("/body/parties/"+itoa(uncapped)+"/terms/cap", "Beside fixed amounts, every percent carries a cap.")
	case amounts > 0 && sum > 100:
		return invalid("/body/parties", "The seats' percents sum to "+itoa64(sum)+"; beside fixed amounts they are at most 100.")
	}
	return nil
}

// hostHolder reports a deposit holder that names the host once
// lowercased without spaces, hyphens, underscores and dots (§20.5).
func hostHolder(holder string) bool {
	n := strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-' || r == '_' || r == '.' || unicode.IsSpace(r):
			return -1
		}
		return unicode.ToLower(r)
	}, holder)
	return n == "host" || n == "offerrails" || n == "hostedapi" || n == "frontdesk"
}

func itoa(i int) string { return itoa64(int64(i)) }

func itoa64(i int64) string { return string(mustJSON(i)) }
