package orp

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"frontdesk/store"
)

// JournalFile is one file of the click journal. Sync must make what
// was written durable; the files OpenJournalFile opens use fdatasync
// where there is one. Tests pass files whose writes or syncs fail.
type JournalFile interface {
	io.Reader
	io.WriterAt
	Sync() error
	Close() error
}

// OpenJournalFile opens a journal file for reading and writing, creating
// it when it is missing.
func OpenJournalFile(path string) (JournalFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return dataSyncFile{f}, nil
}

// journalSize is the length each journal file is written to with zeros
// when opened, so an append overwrites blocks the file already has and
// its sync writes data alone, not the file's size or block map. A file
// grows past it only when folds fall behind.
const journalSize = 1 << 20

// ClickJournal is the click log on the local disk next to a SQLite store: a
// group of clicks is durable once one write and one fsync of a plain file
// return, which costs a fraction of a database commit. Appends alternate
// between two files: a fold switches appends to the idle file, counts the
// other into the store and empties it. Each fold stores, in the same
// transaction as the counts, the sequence number of the last record it
// counted (the mark), so a record a crash left behind is counted once
// whether or not its file was emptied.
//
// A record is a group: its body's length and CRC-32C, then its sequence
// number and clicks. Records are written from the start of a file one
// after another; emptying a file only moves the next write back to its
// start, since what it held is at or below the mark. Reading stops at
// the first record that is short or fails its checksum (a write torn by
// a crash, or the zeros after the last record); only a group whose sync
// returned was acknowledged, and every one after it was written later.
type ClickJournal struct {
	mu      sync.Mutex
	files   [2]JournalFile
	size    [2]int64 // bytes of whole, synced records in each file
	pending [2][]journalRecord
	// broken marks a file whose last write or sync failed: the next
	// append overwrites its first record header with zeros first.
	broken [2]bool
	cur    int    // the file appends go to
	seq    uint64 // the last sequence number used
	buf    []byte
	// ids finds the clicks of the pending records by click id, so a
	// conversion sees a click the moment its redirect is answered.
	ids map[string]clickRef
}

type journalRecord struct {
	seq    uint64
	events []clickEvent
}

// kindClickMark holds the journal's mark: the last record counted.
const kindClickMark = "orp.clickmark"

type clickMark struct {
	Seq uint64 `json:"seq"`
}

// maxJournalRecord bounds one record's body, so a corrupt length reads
// as a torn record rather than an allocation.
const maxJournalRecord = 64 << 20

// OpenClickJournal opens (or creates) the click journal in dir for a
// host on db and reads what it holds, cutting each file after its last
// whole record; open opens its files (nil: OpenJournalFile). The host
// given it in Options counts what it holds, appends to it and closes it
// on Close.
func OpenClickJournal(ctx context.Context, dir string, db store.Records, open func(path string) (JournalFile, error)) (*ClickJournal, error) {
	if open == nil {
		open = OpenJournalFile
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("click journal: %w", err)
	}
	// Numbers continue above the mark, even when a fold emptied both files.
	j := &ClickJournal{ids: map[string]clickRef{}}
	r, err := db.Get(ctx, kindClickMark, "journal")
	switch {
	case err == nil:
		var mark clickMark
		if err := json.Unmarshal(r.Value, &mark); err != nil {
			return nil, fmt.Errorf("click journal: decode mark: %w", err)
		}
		j.seq = mark.Seq
	case !errors.Is(err, store.ErrNotFound):
		return nil, fmt.Errorf("click journal: read mark: %w", err)
	}
	if err := j.load(dir, open); err != nil {
		return nil, errors.Join(fmt.Errorf("click journal: %w", err), j.Close())
	}
	return j, nil
}

// load opens the two files in dir and reads their records.
func (j *ClickJournal) load(dir string, open func(path string) (JournalFile, error)) error {
	var newest [2]uint64
	for i := range j.files {
		f, err := open(filepath.Join(dir, fmt.Sprintf("clicks-%d.journal", i)))
		if err != nil {
			return err
		}
		j.files[i] = f
		raw, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		recs, n := decodeJournal(raw)
		if len(raw) < journalSize {
			if err := zero(f, int64(len(raw)), journalSize); err != nil {
				return err
			}
		}
		j.size[i], j.pending[i] = int64(n), recs
		for _, r := range recs {
			j.seq = max(j.seq, r.seq)
			newest[i] = max(newest[i], r.seq)
			j.index(r.events)
		}
	}
	// Appends go on in the file written last, so a fold counts the older
	// one first and clicks are counted in the order they came.
	if newest[0] > newest[1] {
		j.cur = 0
	} else {
		j.cur = 1
	}
	// The files' directory entries must be durable before any click is.
	return syncDir(dir)
}

// zero writes zeros to f from off to end and syncs it.
func zero(f JournalFile, off, end int64) error {
	buf := make([]byte, 64<<10)
	for off < end {
		n, err := f.WriteAt(buf[:min(int64(len(buf)), end-off)], off)
		if err != nil {
			return err
		}
		off += int64(n)
	}
	return f.Sync()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// Close closes the journal's files; Host.Close calls it after its last
// fold.
func (j *ClickJournal) Close() error {
	var errs []error
	for _, f := range j.files {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	return errors.Join(errs...)
}

// append makes one group durable: it returns nil only once the group's
// record is written and synced. After a failed write or sync the file is
// cut back to its last synced record before anything else is appended,
// so a click whose redirect went out plain is never counted.
func (j *ClickJournal) append(events []clickEvent) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	f, at := j.files[j.cur], j.size[j.cur]
	if j.broken[j.cur] {
		// The failed write may have reached the disk: zeros where its
		// header is end the file there again.
		if err := zero(f, at, at+8); err != nil {
			return fmt.Errorf("repair click journal: %w", err)
		}
		j.broken[j.cur] = false
	}
	j.seq++
	j.buf = encodeJournal(j.buf[:0], j.seq, events)
	_, err := f.WriteAt(j.buf, at)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		j.broken[j.cur] = true
		return fmt.Errorf("append click journal: %w", err)
	}
	j.size[j.cur] += int64(len(j.buf))
	j.pending[j.cur] = append(j.pending[j.cur], journalRecord{seq: j.seq, events: events})
	j.index(events)
	if cap(j.buf) > 1<<20 {
		j.buf = nil // one burst does not keep its buffer
	}
	return nil
}

// index makes events findable by click id until they are folded.
func (j *ClickJournal) index(events []clickEvent) {
	for _, e := range events {
		if e.id != "" {
			j.ids[e.id] = clickRef{Token: e.token, Class: e.class, At: e.at}
		}
	}
}

// lookup finds a click the journal holds and has not folded yet.
func (j *ClickJournal) lookup(id string) (clickRef, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	ref, ok := j.ids[id]
	return ref, ok
}

// fold counts one file's records into the store and empties the file. It
// counts the idle file when a failed fold left records there, else it
// switches appends to the idle file and counts the one they left. It
// returns how many records it counted.
func (j *ClickJournal) fold(ctx context.Context, h *Host) (int, error) {
	j.mu.Lock()
	f := 1 - j.cur
	if len(j.pending[f]) == 0 {
		j.cur, f = f, j.cur
	}
	recs := j.pending[f]
	j.mu.Unlock()
	for start := 0; start < len(recs); {
		end, clicks := start, 0
		for end < len(recs) && (end == start || clicks+len(recs[end].events) <= foldClicks) {
			clicks += len(recs[end].events)
			end++
		}
		if err := h.foldJournal(ctx, recs[start:end]); err != nil {
			return 0, err
		}
		start = end
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pending[f] = nil
	// The clicks are in the store's pages now, where a lookup finds them.
	for _, r := range recs {
		for _, e := range r.events {
			delete(j.ids, e.id)
		}
	}
	// Every record in the file is counted now and at or below the mark:
	// the next append to it may start over them. A failed write's bytes
	// after them are not, and go first.
	if j.broken[f] {
		if err := zero(j.files[f], j.size[f], j.size[f]+8); err != nil {
			h.log.Error("repair click journal", "err", err)
			return len(recs), nil
		}
	}
	j.size[f], j.broken[f] = 0, false
	return len(recs), nil
}

// foldClicks is about how many clicks one fold transaction counts.
const foldClicks = 2000

// foldJournal counts recs, in sequence order, with the mark in the same
// transaction; records at or below the stored mark are counted already.
func (h *Host) foldJournal(ctx context.Context, recs []journalRecord) error {
	var verified map[string]time.Time
	err := h.retry(ctx, func() error {
		var mark clickMark
		r, err := h.get(ctx, kindClickMark, "journal", &mark)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		var batch []clickEvent
		last := mark.Seq
		for _, rec := range recs {
			if rec.seq > mark.Seq {
				batch = append(batch, rec.events...)
				last = max(last, rec.seq)
			}
		}
		if last == mark.Seq {
			return nil
		}
		now := h.clock.Now()
		w := create(kindClickMark, "journal", clickMark{Seq: last}, now)
		if exists {
			w = swap(r, clickMark{Seq: last}, now)
		}
		verified, err = h.tryWriteClicks(ctx, batch, []store.Write{w})
		return err
	})
	if err != nil {
		h.log.Error("write clicks", "err", err)
		return err
	}
	h.verifyAll(ctx, verified)
	return nil
}

// encodeJournal appends one record to b.
func encodeJournal(b []byte, seq uint64, events []clickEvent) []byte {
	start := len(b)
	b = append(b, make([]byte, 8)...)
	b = binary.BigEndian.AppendUint64(b, seq)
	b = binary.AppendUvarint(b, uint64(len(events)))
	for _, e := range events {
		b = binary.AppendVarint(b, e.at.UnixNano())
		for _, s := range [...]string{e.token, e.class, e.source, e.id} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	body := b[start+8:]
	binary.BigEndian.PutUint32(b[start:], uint32(len(body)))
	binary.BigEndian.PutUint32(b[start+4:], crc32.Checksum(body, castagnoli))
	return b
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decodeJournal reads the whole records at the start of raw and returns
// them with the length they take.
func decodeJournal(raw []byte) ([]journalRecord, int) {
	var recs []journalRecord
	n := 0
	for len(raw)-n >= 8 {
		size := binary.BigEndian.Uint32(raw[n:])
		if size > maxJournalRecord || uint64(len(raw)-n-8) < uint64(size) {
			break
		}
		body := raw[n+8 : n+8+int(size)]
		if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(raw[n+4:]) {
			break
		}
		rec, ok := decodeRecord(body)
		if !ok {
			break
		}
		recs = append(recs, rec)
		n += 8 + int(size)
	}
	return recs, n
}

func decodeRecord(body []byte) (journalRecord, bool) {
	if len(body) < 8 {
		return journalRecord{}, false
	}
	rec := journalRecord{seq: binary.BigEndian.Uint64(body)}
	body = body[8:]
	count, k := binary.Uvarint(body)
	if k <= 0 || count > uint64(len(body)) {
		return journalRecord{}, false
	}
	body = body[k:]
	rec.events = make([]clickEvent, 0, count)
	for range count {
		at, k := binary.Varint(body)
		if k <= 0 {
			return journalRecord{}, false
		}
		body = body[k:]
		var s [4]string
		for i := range s {
			l, k := binary.Uvarint(body)
			if k <= 0 || l > uint64(len(body)-k) {
				return journalRecord{}, false
			}
			s[i] = string(body[k : k+int(l)])
			body = body[k+int(l):]
		}
		rec.events = append(rec.events, clickEvent{at: time.Unix(0, at).UTC(), token: s[0], class: s[1], source: s[2], id: s[3]})
	}
	return rec, len(body) == 0
}
