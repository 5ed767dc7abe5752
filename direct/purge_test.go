package direct

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"frontdesk/config"
	"frontdesk/mail"
	"frontdesk/sqlite"
)

// TestPurgedGuestDataLeavesTheFile starts a booking that is never proved,
// lets the sweep purge it, and greps the SQLite file and its write-ahead
// log for the guest's name, email, phone and notes: none may remain, in a
// live row or a free page. The code mail goes to a mailbox in another
// file, since the dev mailbox keeps what it delivered on purpose.
func TestPurgedGuestDataLeavesTheFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "fd.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	box, err := sqlite.Open(ctx, filepath.Join(dir, "mailbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	w := newWorldOn(t, config.Demo(), st)
	w.mail.dev = mail.NewDev(box, w.clock, nil)

	secrets := []string{"Zebulon Quartermaine", "zebulon.purge@example.org", "555 0142", "purgecanary-notes"}
	a := stayArgs("guest_name", secrets[0], "email", secrets[1], "phone", "+1 303 555 0142", "notes", secrets[3]+" near the lift")
	if _, err := w.start(ctx, web, a); err != nil {
		t.Fatal(refusalText(err))
	}
	w.clock.Advance(codeLifetime)
	if res := w.sweep(); res.Purged != 1 {
		t.Fatalf("purged %d, want the expired intent", res.Purged)
	}
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s still holds %q after the purge", filepath.Base(f), s)
			}
		}
	}
}
