package orp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// kindRepInput keys the reputation inputs (§15.3 rule 1): one per host
// receipt, by obligor. Attestations never appear here.
const kindRepInput = "orp.repin"

// ReputationInput is one host receipt about a party's obligation.
type ReputationInput struct {
	Deal         string    `json:"deal"`
	Obligation   string    `json:"obligation"`
	Counterparty string    `json:"counterparty"`
	Method       string    `json:"method"`
	Result       string    `json:"result"`
	At           time.Time `json:"at"`
}

// ReputationInputs lists the host receipts about party's obligations,
// oldest first: the only inputs orp-rep-1 counts besides resolved
// disputes. Attestations, execute claims and test clicks are not here.
func (h *Host) ReputationInputs(ctx context.Context, party string) ([]ReputationInput, error) {
	opaque := h.opaqueOf(party)
	if opaque == "" {
		return nil, refuse(NotFound, "No such party on this host.")
	}
	var out []ReputationInput
	after := ""
	for {
		recs, err := h.store.List(ctx, kindRepInput, opaque+"/", after, 200)
		if err != nil {
			return nil, fmt.Errorf("reputation inputs: %w", err)
		}
		for _, r := range recs {
			var in ReputationInput
			if err := json.Unmarshal(r.Value, &in); err != nil {
				return nil, fmt.Errorf("decode reputation input %s: %w", r.Key, err)
			}
			out = append(out, in)
		}
		if len(recs) < 200 {
			return out, nil
		}
		after = recs[len(recs)-1].Key
	}
}
