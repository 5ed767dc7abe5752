//go:build failpoint

package failpoint

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"frontdesk/orp"
	"frontdesk/store"
)

// boundaries are the durable boundaries of direct-booking.md §18 and of
// the other queues, each recognised by the writes that cross it.
var boundaries = map[string]func(store.Write) bool{
	"pending-registration": recordOf("booking-intent", store.OpCreate),
	"proof-receipt":        recordOf("booking-intent", store.OpSwap),
	"record-creation":      opNamed("create-reservation"),
	"inventory-hold":       opNamed("hold"),
	"notice-claim":         recordOf("booking-notice", store.OpCreate, store.OpSwap),
	"cancellation-record":  recordOf("booking-cancel", store.OpSwap),
	"index-release":        opNamed("release"),
	"notice-queue":         recordOf("booking-notice-due", store.OpCreate),
	"idempotency-write":    recordOf("usp-idempotency", store.OpCreate, store.OpSwap),
	"webhook-queue":        recordOf("usp-event", store.OpCreate),
	"click-batch":          recordOf("orp.clicklog", store.OpCreate),
	"sign-in":              recordOf("staff.session", store.OpCreate),
	// payment-paid is the provider's event recorded with the change it
	// makes, such as a payment marked paid: the charge is on the books,
	// and what follows it (the booking's settling) is not yet.
	"payment-paid": recordOf("payment-event", store.OpCreate),
}

// opNamed matches writes of the index and of reservations by the name of
// their operation: only the reservation desk builds those.
func opNamed(name string) func(store.Write) bool {
	return func(w store.Write) bool { return w.Op.String() == name }
}

func recordOf(kind string, ops ...store.Op) func(store.Write) bool {
	return func(w store.Write) bool {
		for _, op := range ops {
			if w.Op == op && w.Record.Kind == kind {
				return true
			}
		}
		return false
	}
}

// failpointStore kills the process at its boundary.
type failpointStore struct {
	store.Store
	*killer
	before bool
	match  func(store.Write) bool
}

// marker is the line serve writes on stderr as a failpoint kills it.
func marker(setting string) string { return "failpoint " + setting + " fired" }

// Compiled reports whether this build honours the setting.
const Compiled = true

// Parse reads the failpoint setting; "" means none.
func Parse(v string) (Failpoint, error) {
	if v == "" {
		return Failpoint{}, nil
	}
	if fp, ok, err := parseDelay(v); ok {
		return fp, err
	}
	when, name, ok := strings.Cut(v, ":")
	match := boundaries[name]
	if !ok || match == nil || (when != "before" && when != "after") {
		var names []string
		for n := range boundaries {
			names = append(names, n)
		}
		slices.Sort(names)
		return Failpoint{}, fmt.Errorf("%s=%q: want before:NAME or after:NAME, NAME one of %s, or slow:DURATION:FILE or late:DURATION:FILE", Env, v, strings.Join(names, ", "))
	}
	kill := &killer{setting: v}
	fp := Failpoint{Store: func(st store.Store) store.Store {
		return &failpointStore{Store: st, killer: kill, before: when == "before", match: match}
	}}
	if name == "click-batch" {
		fp.JournalFile = func(f orp.JournalFile) orp.JournalFile {
			return &failpointFile{JournalFile: f, killer: kill, before: when == "before"}
		}
	}
	return fp, nil
}

// killer ends the process once, at the first crossing of its boundary.
type killer struct {
	setting string // "before:NAME" or "after:NAME", for the marker
	fired   atomic.Bool
}

// die sends the process SIGKILL: no deferred function, no flush, no
// shutdown runs, as when the machine loses power or the kernel kills it.
// The marker line on stderr (unbuffered) tells the crash harness that
// this boundary, not some other fault, ended the process.
func (f *killer) die() {
	if f.fired.CompareAndSwap(false, true) {
		fmt.Fprintf(os.Stderr, "%s\n", marker(f.setting))
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			_ = self.Kill() // SIGKILL on Unix; on failure the select below still stops the store
		}
		select {} // the signal is on its way
	}
}

func (f *failpointStore) crosses(writes []store.Write) bool {
	for _, w := range writes {
		if f.match(w) {
			return true
		}
	}
	return false
}

func (f *failpointStore) Apply(ctx context.Context, writes []store.Write) ([]store.Record, error) {
	crosses := f.crosses(writes)
	if crosses && f.before {
		f.die()
	}
	rs, err := f.Store.Apply(ctx, writes)
	if crosses && err == nil {
		f.die()
	}
	return rs, err
}

func (f *failpointStore) Create(ctx context.Context, r store.Record) (store.Record, error) {
	crosses := f.crosses([]store.Write{{Op: store.OpCreate, Record: r}})
	if crosses && f.before {
		f.die()
	}
	out, err := f.Store.Create(ctx, r)
	if crosses && err == nil {
		f.die()
	}
	return out, err
}

func (f *failpointStore) Swap(ctx context.Context, r store.Record) (store.Record, error) {
	crosses := f.crosses([]store.Write{{Op: store.OpSwap, Record: r}})
	if crosses && f.before {
		f.die()
	}
	out, err := f.Store.Swap(ctx, r)
	if crosses && err == nil {
		f.die()
	}
	return out, err
}

// failpointFile kills the process around the click journal's append of
// a group: before its record is written, or once the record's sync
// returned. Writes of zeros (the files' preallocation and repairs) are
// not appends and pass.
type failpointFile struct {
	orp.JournalFile
	*killer
	before  bool
	written atomic.Bool // a record was written and awaits its sync
}

func (f *failpointFile) WriteAt(p []byte, off int64) (int, error) {
	record := slices.ContainsFunc(p, func(b byte) bool { return b != 0 })
	if record && f.before {
		f.die()
	}
	n, err := f.JournalFile.WriteAt(p, off)
	if record && err == nil {
		f.written.Store(true)
	}
	return n, err
}

func (f *failpointFile) Sync() error {
	err := f.JournalFile.Sync()
	if err == nil && f.written.Swap(false) && !f.before {
		f.die()
	}
	return err
}
