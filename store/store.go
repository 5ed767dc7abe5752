// Package store declares the storage contracts that every engine
// implements: versioned records with conditional create and
// compare-and-swap, and the availability index where units are held. One
// Apply commits writes of both in a single transaction.
//
// It holds interfaces, records and sentinel errors, and in update.go the
// read-then-conditional-write cycles with bounded retries that features
// run on their records instead of writing the loop: Update and UpdateWith
// change a JSON record, Ensure creates a record once, Remove deletes one
// at whatever version. It imports nothing of this module; the engines live in sqlite/ and postgres/ and
// their shared contract suite in storetest/.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sentinel errors returned by every engine. Callers compare with errors.Is.
// A conflict is contention, not an outage: the caller re-reads and retries.
var (
	ErrNotFound = errors.New("store: not found")
	ErrExists   = errors.New("store: already exists")
	ErrConflict = errors.New("store: version conflict")
	ErrFull     = errors.New("store: no capacity left")
)

// Outages tells an engine's errors that say the store is out of service
// (unreachable, timed out, out of disk, read-only) from those of a bad
// request or a bug. A door answers an outage as a retryable "try again
// later", never as a server error. Both engines implement it, mapping
// driver result codes, never message text.
type Outages interface {
	IsOutage(err error) bool
}

// Record is one versioned value. Version starts at 1 on create and grows by
// one with every successful swap.
type Record struct {
	Kind      string // what the value is, such as "intent"; part of the key
	Key       string
	Value     []byte
	Version   int64
	UpdatedAt time.Time // the caller's clock, stored as a UTC instant
}

// Key names one record.
type Key struct {
	Kind string
	Key  string
}

// MaxGetMany is the most keys one GetMany may ask for.
const MaxGetMany = 100

// Records stores versioned values with conditional writes only.
type Records interface {
	// Create stores r with version 1. It returns ErrExists if the key is
	// taken and never overwrites.
	Create(ctx context.Context, r Record) (Record, error)
	// Get returns the current record, or ErrNotFound.
	Get(ctx context.Context, kind, key string) (Record, error)
	// GetMany reads several records at once (in one round trip on a
	// networked engine) and returns one record per key, in the order of
	// keys. An absent key gives its Kind and Key with Version 0, which no
	// stored record has. More than MaxGetMany keys is an error; none
	// returns none.
	GetMany(ctx context.Context, keys []Key) ([]Record, error)
	// Swap replaces the value if r.Version is still the current version and
	// returns the record with its new version. It returns ErrConflict for a
	// stale version and ErrNotFound when the key is absent.
	Swap(ctx context.Context, r Record) (Record, error)
	// Delete removes the record if version is still current: ErrConflict
	// for a stale version, ErrNotFound when absent.
	Delete(ctx context.Context, kind, key string, version int64) error
	// List returns up to limit records of one kind whose keys start with
	// prefix and sort after the key after (all when after is ""), in
	// ascending byte order of key. It is how queues and inboxes page. A
	// limit outside 1 to 1000 is an error.
	List(ctx context.Context, kind, prefix, after string, limit int) ([]Record, error)
	// Apply performs every write in one transaction, or none of them:
	// record writes, index writes (OpHold, OpRelease) and reservation
	// writes alike, so a reservation and the units it stands for are
	// saved together. It returns the written records in order (a deleted
	// record as given, the zero Record for an index or reservation
	// write: a created reservation has version 1, a swapped one its
	// version plus one). When one write is refused, nothing changes and
	// the error is a *WriteError wrapping ErrExists,
	// ErrConflict or ErrNotFound, or ErrFull for a hold without capacity.
	// No writes return no records and no error.
	Apply(ctx context.Context, writes []Write) ([]Record, error)
}

// Op is the kind of one conditional write in an Apply.
type Op int

// The conditional writes. Swap and Delete expect Record.Version to be the
// current version. Hold and Release write the availability index, with
// the same rules as Index.Hold and Index.Release.
const (
	OpCreate Op = iota + 1
	OpSwap
	OpDelete
	OpHold    // take Write.Hold: ErrFull without capacity, ErrExists for a held ID
	OpRelease // give back the units of hold Write.Hold.ID at Write.Hold.At, or ErrNotFound
	// OpCreateReservation stores Write.Reservation with version 1, or
	// ErrExists for a taken reference.
	OpCreateReservation
	// OpSwapReservation replaces Write.Reservation if its Version is
	// current: ErrConflict for a stale version, ErrNotFound when absent.
	OpSwapReservation
	// OpTake counts one use in bucket Write.Tally.Bucket of counter
	// Write.Tally.Name, or is refused with ErrFull when Write.Tally.Limit
	// uses already count there (see Count).
	OpTake
	// OpGiveBack uncounts one use taken in bucket Write.Tally.Bucket. A
	// bucket that no longer counts, or holds no use, is left alone: the
	// use already stopped counting.
	OpGiveBack
	// OpClear uncounts every use of counter Write.Tally.Name.
	OpClear
	// OpForget removes counter Write.Tally.Name when no use counts from
	// Write.Tally.Live on, so counters nobody writes do not pile up; it
	// leaves a counter that still counts alone.
	OpForget
	// OpIndexReservation replaces the Terms of reservation
	// Write.Reservation.Reference, leaving the row and its version as
	// they are, if Write.Reservation.Version is current: ErrConflict for
	// a stale version, ErrNotFound when absent. It indexes reservations
	// stored before their terms were kept.
	OpIndexReservation

	// opEnd is one past the last operation, so a test can name them all.
	opEnd
)

// String names the write, as logs and the crash harness's failpoints do.
func (o Op) String() string {
	switch o {
	case OpCreate:
		return "create"
	case OpSwap:
		return "swap"
	case OpDelete:
		return "delete"
	case OpHold:
		return "hold"
	case OpRelease:
		return "release"
	case OpCreateReservation:
		return "create-reservation"
	case OpSwapReservation:
		return "swap-reservation"
	case OpTake:
		return "take"
	case OpGiveBack:
		return "give-back"
	case OpClear:
		return "clear"
	case OpForget:
		return "forget"
	case OpIndexReservation:
		return "index-reservation"
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// Write is one conditional write of an Apply. Record is used by the record
// writes, Hold by the index writes (a release needs only its ID and At),
// Reservation by the reservation writes, Tally by the counter writes.
type Write struct {
	Op          Op
	Record      Record
	Hold        *Hold
	Reservation *Reservation
	Tally       *Tally
}

// Tally is one write of a counter: a ceiling such as "eight codes an
// hour" or "three reservations awaiting staff". A counter keeps its uses
// in buckets, numbered by the caller (a time in nanoseconds, say), and
// the total of the buckets that still count. Buckets numbered below Live
// no longer count: a write first folds them out of the total, once, so
// no write reads more than the buckets that left since the last one, and
// the cost of a write depends neither on the limit nor on history. Every
// write of one counter takes the counter's lock first, so parallel takes
// are decided one after the other and never admit more than Limit.
type Tally struct {
	Name   string
	Bucket int64 // where the use lands, or is given back from; at least 0
	Live   int64 // the first bucket that still counts; at least 0
	Limit  int64 // OpTake: the most uses that may count
}

// WriteError says which write of an Apply was refused, and why. A caller
// tells refusals apart by Write, the refused write itself (its record's
// kind and key, its counter's name), never by Index: the position of a
// write changes whenever a batch is put together differently.
type WriteError struct {
	Index int   // position in the writes
	Write Write // the refused write, as given
	Err   error // ErrExists, ErrConflict, ErrNotFound or ErrFull
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("store: write %d refused: %v", e.Index, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// Refused reports whether w is the write the store refused: the same
// operation on the same record, hold, reservation or counter. A caller
// tells which of its writes failed by this, never by its position in
// the batch, so reordering a batch cannot change the answer.
func (e *WriteError) Refused(w Write) bool {
	a, b := e.Write, w
	switch {
	case a.Op != b.Op:
		return false
	case a.Hold != nil || b.Hold != nil:
		return a.Hold != nil && b.Hold != nil && a.Hold.ID == b.Hold.ID
	case a.Reservation != nil || b.Reservation != nil:
		return a.Reservation != nil && b.Reservation != nil && a.Reservation.Reference == b.Reservation.Reference
	case a.Tally != nil || b.Tally != nil:
		return a.Tally != nil && b.Tally != nil && a.Tally.Name == b.Tally.Name && a.Tally.Bucket == b.Tally.Bucket
	}
	return a.Record.Kind == b.Record.Kind && a.Record.Key == b.Record.Key
}

// OneWrite words the error of a one-write Apply as a single-operation
// method such as Index.Hold reports it: a refusal as its bare sentinel,
// anything else as it is, both under op.
func OneWrite(op string, err error) error {
	if err == nil {
		return nil
	}
	if we, ok := errors.AsType[*WriteError](err); ok {
		err = we.Err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Count is how many units of one type are held in one slot. A slot is a
// night ("2026-12-01") or a timed start ("2026-12-01T10:00"), so slots of
// one location sort by time as plain strings.
type Count struct {
	Unit string
	Slot string
	Held int
}

// Hold takes Units units in every listed slot, or none of them.
type Hold struct {
	ID       string // unique; a second hold with the same ID is ErrExists
	Location string
	Unit     string
	Slots    []string
	Units    int
	Capacity int // the most units of this type that may be held per slot
	At       time.Time
}

// Index is the authoritative availability index: every channel holds units
// through it, so no channel can sell what another already sold.
type Index interface {
	// Counts returns the non-zero held counts of a location for slots in
	// [from, to), ordered by unit then slot.
	Counts(ctx context.Context, location, from, to string) ([]Count, error)
	// Hold applies h atomically with conditional writes. It returns
	// ErrFull if any slot would exceed h.Capacity and ErrExists if h.ID is
	// already held; in both cases nothing changes. It is an Apply of one
	// OpHold.
	Hold(ctx context.Context, h Hold) error
	// Release gives back every unit of hold id, or returns ErrNotFound.
	// It is an Apply of one OpRelease.
	Release(ctx context.Context, id string, at time.Time) error
	// Holds returns up to limit holds whose IDs sort after after (all
	// when after is ""), in byte order of ID, with their Location, Unit,
	// Units and At (when taken) but no Slots. It is how a sweep audits
	// the index. A limit outside 1 to 1000 is an error.
	Holds(ctx context.Context, after string, limit int) ([]Hold, error)
}

// Locker is what an engine shared by several processes provides so that
// scheduled work runs in one of them at a time.
type Locker interface {
	// TryLock takes the lock named name if no other session holds it.
	// ok is false when another holds it; release gives it back.
	TryLock(ctx context.Context, name string) (release func(), ok bool, err error)
}

// Counters reads the counters that OpTake, OpGiveBack, OpClear and
// OpForget write.
type Counters interface {
	// Counted returns how many uses of counter name count in buckets
	// from live on; 0 for a counter never written.
	Counted(ctx context.Context, name string, live int64) (int64, error)
	// Buckets returns the buckets of counter name from live on that hold
	// a use, in ascending order, for a screen that says when a full
	// counter frees up. It reads up to 1000 buckets.
	Buckets(ctx context.Context, name string, live int64) ([]Bucket, error)
	// CounterNames returns up to limit names of counters that start with
	// prefix and sort after after, in byte order, for a sweep to forget
	// the idle ones. A limit outside 1 to 1000 is an error.
	CounterNames(ctx context.Context, prefix, after string, limit int) ([]string, error)
}

// Bucket is one bucket of a counter and the uses it holds.
type Bucket struct {
	Bucket int64
	N      int64
}

// Scrubber is what an engine provides whose files can keep the bytes of
// deleted records after the delete commits (SQLite's write-ahead log
// holds the old pages until a checkpoint). Scrub makes what was deleted
// so far unreadable in the engine's files; a purge of guest data calls it.
type Scrubber interface {
	Scrub(ctx context.Context) error
}

// Store is everything an engine provides.
type Store interface {
	Records
	Index
	Reservations
	Counters
	// Ready reports whether the store is reachable and fully migrated.
	Ready(ctx context.Context) error
	Close() error
}

// Reservation is one row of the reservations table: the typed columns
// that staff screens and other doors filter by, and the whole reservation
// as JSON in Value. Version starts at 1 on create and grows by one with
// every swap, like a Record's.
type Reservation struct {
	Reference  string // unique across locations
	Location   string
	Unit       string
	FirstSlot  string // the first slot held, as in Count.Slot
	LastSlot   string // the last slot held; FirstSlot for one slot
	State      string
	Source     string // the door it came through: "chat", "form", "usp:<platform>", "staff"
	ContactKey string // a keyed hash of the normalized contact, never the contact
	Value      []byte
	Version    int64
	UpdatedAt  time.Time
	// Terms are the words staff search finds the reservation by (see
	// ReservationSearch), kept in an index beside the row and replaced
	// with it on every write. Reads do not return them.
	Terms []string
}

// ReservationFilter selects reservations for ListReservations. Empty
// fields select everything. Rows come in order of FirstSlot, then
// Reference; After continues a listing after the last row of a page.
type ReservationFilter struct {
	Location   string
	From, To   string   // slots overlapping [From, To): LastSlot >= From and FirstSlot < To
	States     []string // any of these
	Source     string
	ContactKey string
	After      ReservationCursor
	Limit      int // 1 to 1000
}

// ReservationSearch finds reservations by the starts of their Terms.
// A reservation matches when, for one of the alternatives in Any, every
// prefix of that alternative starts one of its terms. Matches come
// nearest first: those that have not ended by Near (LastSlot >= Near) in
// order of FirstSlot, then the ones that ended, latest first.
type ReservationSearch struct {
	Any      [][]string // each prefix non-empty; 1 to 4 alternatives of 1 to 8 prefixes
	Location string     // only this location; "" for every one
	Near     string     // a slot, usually today
	Limit    int        // 1 to 1000
}

// ReservationCursor is where a page of reservations ended.
type ReservationCursor struct {
	FirstSlot string
	Reference string
}

// Cursor is the position a page ending at r continues from.
func (r Reservation) Cursor() ReservationCursor {
	return ReservationCursor{FirstSlot: r.FirstSlot, Reference: r.Reference}
}

// Reservations stores reservations in typed, indexed rows. They are
// written through Apply (OpCreateReservation, OpSwapReservation) so a
// reservation commits with its hold and its other records.
type Reservations interface {
	// GetReservation returns the reservation with this reference, or
	// ErrNotFound.
	GetReservation(ctx context.Context, reference string) (Reservation, error)
	// ListReservations returns up to f.Limit reservations matching f, in
	// order of FirstSlot then Reference, after f.After. A limit outside 1
	// to 1000 is an error.
	ListReservations(ctx context.Context, f ReservationFilter) ([]Reservation, error)
	// SearchReservations returns up to s.Limit reservations matching s,
	// nearest first, through the index of terms: its cost follows the
	// matches, not the number of reservations kept.
	SearchReservations(ctx context.Context, s ReservationSearch) ([]Reservation, error)
}
