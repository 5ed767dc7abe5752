package booking

import (
	"context"
	"fmt"
	"testing"

	"frontdesk/store"
)

type tracing struct {
	store.Store
	log []string
}

func (c *tracing) Get(ctx context.Context, kind, key string) (store.Record, error) {
	c.log = append(c.log, "get "+kind)
	return c.Store.Get(ctx, kind, key)
}
func (c *tracing) GetMany(ctx context.Context, keys []store.Key) ([]store.Record, error) {
	c.log = append(c.log, fmt.Sprint("getmany ", keys))
	return c.Store.GetMany(ctx, keys)
}
func (c *tracing) List(ctx context.Context, kind, prefix, after string, limit int) ([]store.Record, error) {
	c.log = append(c.log, "list "+kind)
	return c.Store.List(ctx, kind, prefix, after, limit)
}
func (c *tracing) Create(ctx context.Context, r store.Record) (store.Record, error) {
	c.log = append(c.log, "COMMIT create "+r.Kind)
	return c.Store.Create(ctx, r)
}
func (c *tracing) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	c.log = append(c.log, "COMMIT swap "+r.Kind)
	return c.Store.Swap(ctx, r)
}
func (c *tracing) Delete(ctx context.Context, kind, key string, version int64) error {
	c.log = append(c.log, "COMMIT delete "+kind)
	return c.Store.Delete(ctx, kind, key, version)
}
func (c *tracing) Apply(ctx context.Context, ws []store.Write) ([]store.Record, error) {
	s := "COMMIT apply"
	for _, w := range ws {
		s += fmt.Sprintf(" %d:%s", w.Op, w.Record.Kind)
	}
	c.log = append(c.log, s)
	return c.Store.Apply(ctx, ws)
}
func (c *tracing) Counts(ctx context.Context, location, from, to string) ([]store.Count, error) {
	c.log = append(c.log, "counts")
	return c.Store.Counts(ctx, location, from, to)
}
func (c *tracing) GetReservation(ctx context.Context, ref string) (store.Reservation, error) {
	c.log = append(c.log, "getres")
	return c.Store.GetReservation(ctx, ref)
}
func (c *tracing) ListReservations(ctx context.Context, f store.ReservationFilter) ([]store.Reservation, error) {
	c.log = append(c.log, "listres")
	return c.Store.ListReservations(ctx, f)
}
func (c *tracing) Counted(ctx context.Context, name string, live int64) (int64, error) {
	c.log = append(c.log, "counted "+name)
	return c.Store.Counted(ctx, name, live)
}

func TestZZTrace(t *testing.T) {
	base := newWorld(t)
	tr := &tracing{Store: base.st}
	w := newWorldOn(t, base.cfg, tr)
	ctx := context.Background()
	w.start(ctx, web, stayArgs("email", "warm@example.com"))
	tr.log = nil
	res, err := w.start(ctx, web, stayArgs())
	if err != nil {
		t.Fatal(refusalText(err))
	}
	for _, l := range tr.log {
		t.Log("start: ", l)
	}
	tr.log = nil
	if _, err := w.confirm(ctx, web, args("booking_id", res.BookingID, "code", w.lastCode("ada@example.com"))); err != nil {
		t.Fatal(refusalText(err))
	}
	for _, l := range tr.log {
		t.Log("confirm: ", l)
	}
}
