package baseline

import (
	"crypto/rand"
	"encoding/binary"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// durableSize is the length the durable baseline's file is written to
// with zeros before it serves, as frontdesk's click journal is, so a
// sync writes data alone; appends wrap around to the start at the end.
const durableSize = 64 << 20

// recordSize is one click's record: its id, its time and a checksum's
// room, about what the click journal writes per click.
const recordSize = 48

// Durable is the least a durable redirect can do: Redirect's answer,
// sent only after the click's id and time are on the disk. Clicks that
// arrive together share one write and one data sync (a group commit),
// as frontdesk's click journal does; it keeps nothing else. Its cost
// beside Redirect's is the floor of any redirect that keeps its clicks
// through a crash.
type Durable struct {
	f    *os.File
	sync func(*os.File) error
	kick chan struct{}

	mu    sync.Mutex
	buf   []byte
	spare []byte
	group *group
	off   int64
}

// group is the clicks written by one write and sync.
type group struct {
	done chan struct{}
	err  error
}

// OpenDurable creates path at its full length, synced, and starts the
// goroutine that writes groups to it.
func OpenDurable(path string) (*Durable, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteAt(make([]byte, durableSize), 0); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	d := &Durable{f: f, sync: dataSync, kick: make(chan struct{}, 1), group: &group{done: make(chan struct{})}}
	go d.write()
	return d, nil
}

// ServeHTTP answers as Redirect does once the click is durable.
func (d *Durable) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	id := make([]byte, 16)
	if _, err := io.ReadFull(rand.Reader, id); err != nil {
		http.Error(w, "no click id", http.StatusInternalServerError)
		return
	}
	if err := d.add(id); err != nil {
		http.Error(w, "click not stored", http.StatusServiceUnavailable)
		return
	}
	found(w, id)
}

// add appends the click's record to the group being gathered and waits
// until that group is written and synced.
func (d *Durable) add(id []byte) error {
	var rec [recordSize]byte
	copy(rec[:], id)
	binary.LittleEndian.PutUint64(rec[16:], uint64(time.Now().UnixNano()))
	d.mu.Lock()
	d.buf = append(d.buf, rec[:]...)
	g := d.group
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default: // a write is already due; it takes this record too
	}
	<-g.done
	return g.err
}

// write writes each gathered group with one write and one sync, then
// wakes its clicks.
func (d *Durable) write() {
	for range d.kick {
		d.mu.Lock()
		buf, g := d.buf, d.group
		d.buf, d.spare = d.spare[:0], buf
		d.group = &group{done: make(chan struct{})}
		d.mu.Unlock()
		if len(buf) == 0 {
			continue
		}
		if d.off+int64(len(buf)) > durableSize {
			d.off = 0
		}
		_, g.err = d.f.WriteAt(buf, d.off)
		d.off += int64(len(buf))
		if g.err == nil {
			g.err = d.sync(d.f)
		}
		close(g.done)
	}
}
