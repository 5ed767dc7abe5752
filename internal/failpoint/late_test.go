//go:build failpoint

package failpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"frontdesk/sqlite"
	"frontdesk/store"
)

// TestLateCommitLandsAfterItsDeadline: armed, the commit that makes a
// reservation waits its delay past the caller's deadline and then
// commits anyway, as a write already sent would; other requests pass at
// once, and so does the commit once the file is gone.
func TestLateCommitLandsAfterItsDeadline(t *testing.T) {
	ctx := t.Context()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "frontdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	file := filepath.Join(t.TempDir(), "late")
	const delay = 300 * time.Millisecond
	fp, err := Parse("late:" + delay.String() + ":" + file)
	if err != nil {
		t.Fatal(err)
	}
	st := fp.Store(db)
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	began := time.Now()
	if _, err := st.Create(ctx, store.Record{Kind: "k", Key: "a", Value: []byte("1"), UpdatedAt: at}); err != nil || time.Since(began) >= delay {
		t.Fatalf("a create while armed = %v after %v, want it at once", err, time.Since(began))
	}

	commit := func(ref string) (time.Duration, error) {
		r := store.Reservation{Reference: ref, Location: "riverside", Unit: "double", FirstSlot: "2026-12-01", LastSlot: "2026-12-01",
			State: "reserved", Source: "chat", Value: []byte("{}"), UpdatedAt: at}
		call, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		began := time.Now()
		_, err := st.Apply(call, []store.Write{{Op: store.OpCreateReservation, Reservation: &r}})
		return time.Since(began), err
	}
	took, err := commit("R1")
	if err != nil || took < delay {
		t.Fatalf("the armed commit = %v after %v, want it made after %v", err, took, delay)
	}
	if _, err := db.GetReservation(ctx, "R1"); err != nil {
		t.Fatalf("the late commit's reservation: %v", err)
	}

	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if took, err := commit("R2"); err != nil || took >= delay {
		t.Fatalf("the commit once disarmed = %v after %v, want it at once", err, took)
	}
}
