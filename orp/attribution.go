package orp

import (
	"context"
	"errors"

	"frontdesk/store"
)

// PayerConversionWrites is PayerConversion without applying it: the
// result and the writes that record the conversion, its payout and the
// parties' messages, for the caller to commit in its own transaction
// (the business records a booking's conversion in the booking's). The
// writes are conditional: when the transaction is refused nothing of
// the conversion is kept, and the caller may ask again. A conversion
// already recorded under its event id gives its result and no writes.
func (h *Host) PayerConversionWrites(ctx context.Context, party string, c Conversion) (ConversionResult, []store.Write, error) {
	var p Party
	if _, err := h.get(ctx, kindParty, h.opaqueOf(party), &p); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return ConversionResult{}, nil, refuse(NotFound, "No such party on this host.")
		}
		return ConversionResult{}, nil, err
	}
	if err := h.checkConversion(c); err != nil {
		return ConversionResult{}, nil, err
	}
	hash, err := Hash(mustJSON(c))
	if err != nil {
		return ConversionResult{}, nil, err
	}
	res, o, writes, err := h.prepareConversion(ctx, basisAttestation, &p, c, basisAttestation+" "+p.Opaque+" "+c.Event, hash)
	if err != nil || o == nil {
		return res, nil, err
	}
	if err := o.stampInbox(ctx); err != nil {
		return ConversionResult{}, nil, err
	}
	return res, append(writes, o.writes...), nil
}
