package orp

import (
	"encoding/json"
	"fmt"
	"slices"
)

// failMethod is the method a host receipt names when an obligation's
// deadline passed: the strongest method the terms accept that the host
// issues, since the host looked for the work by that method and did not
// find it.
func failMethod(proof []string) string {
	for _, m := range []string{"provider", "platform_check", "link", "witness", "proof_url"} {
		if slices.Contains(proof, m) {
			return m
		}
	}
	return "proof_url"
}

// sweepObligations applies what time does to a running deal's
// obligations: an obligation still pending or claimed after its due
// deadline (counted from activation) is failed, with a host receipt
// saying so (§12); an obligation revoke whose effective time came takes
// effect (§15.1). Pay and credit have no proof to fail: money owed stays
// owed, and a payee may dispute not_paid after due (S4).
func (o *op) sweepObligations(d *dealRecord) (bool, error) {
	changed := false
	for _, ob := range d.t.Obligations {
		s := d.obligation(ob.ID)
		if s == nil {
			continue
		}
		if at, ok := d.ObRevokeAt[ob.ID]; ok && !o.now.Before(at) {
			delete(d.ObRevokeAt, ob.ID)
			if s.State == obPending || s.State == obClaimed {
				s.State = obRevoked
			}
			changed = true
			continue
		}
		if ob.Action == "pay" || ob.Action == "credit" || s.State != obPending && s.State != obClaimed {
			continue
		}
		due := d.deadline(ob.Due)
		if due == nil || o.now.Before(*due) {
			continue
		}
		rb := receiptBody{Result: "failed", Method: failMethod(ob.Proof), At: stamp(o.now),
			Note: "The deadline " + stamp(*due) + " passed with the obligation " + s.State + "."}
		if err := o.hostReceipt(d, ob.ID, rb); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// hostReceipt sends both parties a signed host receipt about one
// obligation and applies its result to the obligation, with the
// receipt's id; it records the receipt as an input of the obligor's
// reputation (§15.3 rule 1).
func (o *op) hostReceipt(d *dealRecord, obligation string, rb receiptBody) error {
	s := d.obligation(obligation)
	if s == nil {
		return fmt.Errorf("receipt: no obligation %s in deal %s", obligation, d.ID)
	}
	rb.Obligation = obligation
	rid := ""
	for _, party := range []string{d.Offerer, d.Acceptor} {
		msg, err := o.signed("receipt", party, d.ID, rb)
		if err != nil {
			return err
		}
		if rid == "" {
			var m struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(msg, &m); err != nil {
				return fmt.Errorf("read receipt id: %w", err)
			}
			rid = m.ID
		}
		o.deliver(party, msg)
	}
	s.State, s.Receipt = rb.Result, rid
	if rb.Result == "partial" {
		s.State = obClaimed
	}
	obligor := obligor(d, obligation)
	in := ReputationInput{Deal: d.ID, Obligation: obligation, Counterparty: d.other(obligor), Method: rb.Method, Result: rb.Result, At: o.now}
	key := fmt.Sprintf("%s/%s/%s/%s", o.h.opaqueOf(obligor), stampMilli(o.now), d.ID, obligation)
	o.writes = append(o.writes, create(kindRepInput, key, in, o.now))
	return nil
}

// afterDone reports whether an obligation gated by after may run: its
// after obligation is verified (§12).
func (d *dealRecord) afterDone(ob obligation) bool {
	if ob.After == "" {
		return true
	}
	s := d.obligation(ob.After)
	return s != nil && s.State == obVerified
}
