package payment

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Staff act on a payment from the staff screen: a manual refund and a
// late-cancellation fee waived. Each names the staff login and the
// reason given, kept on the payment's record as its audit; neither
// holds card data, and a reason that looks like a card number is
// refused.

// MaxNote bounds the reason staff give for a refund or waiver.
const MaxNote = 500

// reasonManual prefixes the reason of a manual refund: "manual 3" is the
// refund made from a page that showed two refunds, so a form sent twice
// refunds once.
const reasonManual = "manual "

// ReasonWaiver is the reason of the refund a waived fee makes.
const ReasonWaiver = "waiver"

// ManualRefund is a refund staff make by hand.
type ManualRefund struct {
	Payment string // the payment's id
	Amount  int64  // minor units, at most what is left to refund
	Note    string // why, required
	By      string // the staff login
	// Seen is how many refunds the payment had on the page the refund
	// was asked from: the same page sent twice refunds once.
	Seen int
}

// ManualRefund records a staff member's refund and asks the provider for
// it: more than what is left unrefunded, no reason, or a payment not
// paid is refused and changes nothing.
func (l *Ledger) ManualRefund(ctx context.Context, m ManualRefund) (Payment, error) {
	note, err := checkNote(m.By, m.Note)
	if err != nil {
		return Payment{}, err
	}
	if m.Seen < 0 {
		return Payment{}, fail(CodeInvalid, "The refund form is out of date; reload the page.")
	}
	return l.refund(ctx, m.Payment, RefundEntry{Reason: fmt.Sprintf("%s%d", reasonManual, m.Seen+1), Amount: m.Amount, By: m.By, Note: note}, nil)
}

// Waive is a late-cancellation fee staff waive.
type Waive struct {
	Payment string
	Note    string
	By      string
}

// Waivable reports whether p has a late-cancellation fee to waive: one
// kept of its payment or owed beyond it, not waived yet.
func (p Payment) Waivable() bool {
	return p.Waiver == nil && p.Settled != nil && p.Settled.Why == SettledCancellation && (p.FeeKept() > 0 || p.Settled.Owed > 0)
}

// WaivableInAdvance reports whether a late fee can still be waived
// before it is taken: p is paid, its reservation has not ended, and no
// fee was waived.
func (p Payment) WaivableInAdvance() bool {
	return p.Waiver == nil && p.Settled == nil && p.State == StatePaid
}

// FeeWaivedInAdvance reports whether staff waived the late fee before
// the reservation ended.
func (p Payment) FeeWaivedInAdvance() bool { return p.Waiver != nil && p.Waiver.Advance }

// WaiveFee waives a reservation's late fee. Before the reservation
// ends, the waiver is recorded, and a later cancellation, through any
// door, takes no fee. After a late cancellation, what the fee kept of
// the payment is refunded, recorded in the same write as the waiver,
// and what it left owed is no longer owed. A payment with no fee to
// waive, or one already waived, is refused and changes nothing.
func (l *Ledger) WaiveFee(ctx context.Context, w Waive) (Payment, error) {
	note, err := checkNote(w.By, w.Note)
	if err != nil {
		return Payment{}, err
	}
	p, err := l.Get(ctx, w.Payment)
	if err != nil {
		return Payment{}, err
	}
	if p.WaivableInAdvance() {
		waiver := Waiver{By: w.By, Note: note, At: l.clock.Now().UTC(), Advance: true}
		return l.update(ctx, p.ID, func(q *Payment) (bool, error) {
			if !q.WaivableInAdvance() {
				return false, fail(CodeState, "This payment has no late-cancellation fee left to waive.")
			}
			q.Waiver = &waiver
			return true, nil
		})
	}
	if !p.Waivable() {
		return Payment{}, fail(CodeState, "This payment has no late-cancellation fee left to waive.")
	}
	waiver := Waiver{By: w.By, Note: note, At: l.clock.Now().UTC(), Refund: p.FeeKept(), Owed: p.Settled.Owed}
	if waiver.Refund > 0 {
		return l.refund(ctx, p.ID, RefundEntry{Reason: ReasonWaiver, Amount: waiver.Refund, By: w.By, Note: note}, func(q *Payment) {
			q.Waiver = &waiver
		})
	}
	return l.update(ctx, p.ID, func(q *Payment) (bool, error) {
		if !q.Waivable() {
			return false, fail(CodeState, "This payment has no late-cancellation fee left to waive.")
		}
		q.Waiver = &waiver
		return true, nil
	})
}

// checkNote is the reason staff gave, trimmed, or the refusal of it.
func checkNote(by, note string) (string, error) {
	note = strings.TrimSpace(note)
	switch {
	case by == "":
		return "", fail(CodeInvalid, "A refund or waiver needs the staff login that makes it.")
	case note == "":
		return "", fail(CodeInvalid, "Give the reason for the refund or waiver; it is kept with the payment.")
	case utf8.RuneCountInString(note) > MaxNote:
		return "", fail(CodeInvalid, fmt.Sprintf("The reason is longer than %d characters.", MaxNote))
	case cardLike(note):
		return "", fail(CodeInvalid, "The reason looks like it holds a card number; card numbers are never kept. Write the reason without it.")
	}
	return note, nil
}

// cardLike reports whether s holds a run of 13 or more digits, spaces or
// dashes between them allowed: the shape of a card number.
func cardLike(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
			if digits >= 13 {
				return true
			}
		case r == ' ' || r == '-':
		default:
			digits = 0
		}
	}
	return false
}
