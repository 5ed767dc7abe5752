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

// PayerSent records that party, the payer of a payable payout, sent it
// on the rail with the rail's reference (S3, S5), from Go code in the
// process: the business's owner settling on the staff screen, which is
// the business's settle step. The payee confirms receipt as usual.
func (h *Host) PayerSent(ctx context.Context, party, deal, payout, ref string) error {
	if ref == "" || len(ref) > 128 {
		return invalid("/body/ref", "ref is the rail's transfer reference, 1 to 128 characters.")
	}
	return h.retry(ctx, func() error {
		d, dr, err := h.loadDeal(ctx, deal)
		if err != nil {
			return err
		}
		var p payoutRecord
		rec, err := h.get(ctx, kindPayout, payoutKey(d.ID, payout), &p)
		if errors.Is(err, store.ErrNotFound) {
			return refuse(NotFound, "No such payout in this deal.")
		}
		if err != nil {
			return err
		}
		switch {
		case p.Payer != party:
			return refuse(Forbidden, "Only the payer may say a payout was sent.")
		case p.State != payoutPayable:
			return refuse(StateConflict, "The payout is not payable.")
		}
		o := &op{h: h, now: h.clock.Now()}
		p.Ref = ref
		if err := o.setPayout(storedPayout{p: &p, rec: rec}, payoutSent); err != nil {
			return err
		}
		o.saveDeal(d, dr, false)
		return o.commit(ctx, nil)
	})
}
