package reservation

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"frontdesk/store"
)

func TestTerms(t *testing.T) {
	r := Reservation{Reference: "A1B2C3D4E5F60718", Contact: Contact{Name: "Mary-Jane  O'Neil", Email: " Mary.Jane@Example.com ", Phone: "+1 (555) 010-4477"}}
	want := []string{"#a1b2c3d4e5f60718", "com", "example", "jane", "mary", "mary-jane", "mary.jane@example.com", "neil", "o", "o'neil", "~77440105551"}
	if got := r.terms(); !slices.Equal(got, want) {
		t.Fatalf("terms = %q, want %q", got, want)
	}
	if got := (Reservation{Reference: "RIV-X"}).terms(); !slices.Equal(got, []string{"#riv-x", "#x"}) {
		t.Fatalf("terms without a contact = %q, want the reference alone", got)
	}
}

func TestQuery(t *testing.T) {
	tests := []struct {
		q    string
		want string
	}{
		{"Ana", "[[ana]]"},
		{"  ana   MORENO ", "[[ana moreno] [#anamoreno]]"},
		{"A1B2 C3D4 E5F6 0718", "[[a1b2 c3d4 e5f6 0718] [#a1b2c3d4e5f60718]]"},
		{"4477", "[[4477] [~7744]]"},
		{"+1 555 010 4477", "[[+1 555 010 4477] [#+15550104477] [~77440105551]]"},
		{"ana@example.com", "[[ana@example.com] [#ana@example.com]]"},
		{"a b c d e f g h i j", "[[a b c d e f g h] [#abcdefghij]]"},
	}
	for _, tt := range tests {
		got, err := query(tt.q)
		if err != nil || fmt.Sprint(got) != tt.want {
			t.Errorf("query(%q) = %v, %v; want %s", tt.q, got, err, tt.want)
		}
	}
	if _, err := query("   "); err != ErrEmptySearch {
		t.Errorf("an empty query = %v, want ErrEmptySearch", err)
	}
}

// TestSearchMatches: a search finds a reservation by its guest's name
// in any order or case, their email, their phone however it is typed,
// or its reference or the code in it, and nothing else.
func TestSearchMatches(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	_, err := NewDesk(st).Create(ctx, New{Kind: KindConfirmed, Reference: "RIV-0CD87274D67084CA", Unit: double, Slots: nights, Source: SourceChat,
		Contact: Contact{Name: "Grace Hopper", Email: "grace@example.com", Phone: "+1 303 555 0142"}, By: "guest", At: now, Guests: 1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q    string
		want bool
	}{
		{"hopper", true},
		{"Hopper Grace", true},
		{"gra hop", true},
		{"GRACE@example.com", true},
		{"(303) 555-0142", true},
		{"5550142", true},
		{"riv-0cd87274d67084ca", true},
		{"0CD872", true},
		{"0CD8 7274 D670 84CA", true},
		{"RIV-0CD8 7274 D670 84CA", true},
		{" riv-0cd8 7274 d670 84ca ", true},
		{"RIV-0CD8 7274 D670 84CB", false},
		{"ada", false},
		{"grace lovelace", false},
		{"555-0199", false},
		{"RIV", false},
		{"87274D", false},
	}
	for _, tt := range tests {
		rs, err := Search(ctx, st, tt.q, "", "2026-12-01", 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rs) == 1; got != tt.want {
			t.Errorf("search %q finds it = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// TestSearchFindsEveryField books guests through the desk on both
// engines, with many other stays around them, and finds each by every
// field staff search by; a redacted guest is found by none of them.
func TestSearchFindsEveryField(t *testing.T) {
	for name, open := range engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			desk := NewDesk(st)
			big := Unit{Location: "riverside", Type: "double", Capacity: 1000}
			book := func(ref, night string, c Contact) Reservation {
				t.Helper()
				r, err := desk.Create(ctx, New{Kind: KindConfirmed, Reference: ref, Unit: big, Slots: []string{night}, Source: SourceChat, Contact: c, By: "guest", At: now, Guests: 1})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			for i := range 300 {
				book(fmt.Sprintf("OTHER%011d", i), fmt.Sprintf("2026-%02d-%02d", 1+i%12, 1+i%28), Contact{Name: fmt.Sprintf("Guest %d", i), Email: fmt.Sprintf("g%d@example.org", i)})
			}
			past := book("0A0B0C0D0E0F0102", "2025-12-05", Contact{Name: "Ana Moreno", Email: "ana@example.com", Phone: "+34 600 111 222"})
			next := book("1A1B1C1D1E1F1112", "2026-12-09", Contact{Name: "Ana Moreno", Email: "ana@example.com", Phone: "+34 600 111 222"})
			find := func(q string) []string {
				t.Helper()
				rs, err := Search(ctx, st, q, "", "2026-12-06", 50)
				if err != nil {
					t.Fatal(err)
				}
				var refs []string
				for _, r := range rs {
					refs = append(refs, r.Reference)
				}
				return refs
			}
			both := []string{next.Reference, past.Reference}
			for _, q := range []string{"ana moreno", "Moreno", "ana@example.com", "ANA@EXAMPLE", "+34 600 111 222", "111 222", "1A1B1C1D", "1a1b 1c1d 1e1f 1112"} {
				got := find(q)
				want := both
				if q == "1A1B1C1D" || q == "1a1b 1c1d 1e1f 1112" {
					want = []string{next.Reference}
				}
				if !slices.Equal(got, want) {
					t.Errorf("search %q = %v, want %v", q, got, want)
				}
			}
			if _, err := desk.Redact(ctx, Change{Read: past, By: "forget", At: now}, "forgotten"); err != nil {
				t.Fatal(err)
			}
			if got := find("ana moreno"); !slices.Equal(got, []string{next.Reference}) {
				t.Errorf("after redacting the past stay: %v, want only the next one", got)
			}
		})
	}
}

// TestIndexTerms: reservations stored before the index of terms existed
// are indexed once, their rows and versions untouched, and the second
// run reads one record.
func TestIndexTerms(t *testing.T) {
	for name, open := range engines(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			var writes []store.Write
			for i := range 450 {
				r := Reservation{Reference: fmt.Sprintf("OLD%013d", i), Location: "riverside", Unit: "double", Slots: []string{"2026-01-02"}, State: Completed, Source: SourceChat,
					Contact: Contact{Name: fmt.Sprintf("Person%d Kept", i)}, Version: 1}
				row := r.Row(now)
				row.Terms = nil // as written before the index existed
				writes = append(writes, store.Write{Op: store.OpCreateReservation, Reservation: &row})
			}
			for chunk := range slices.Chunk(writes, 100) {
				if _, err := st.Apply(ctx, chunk); err != nil {
					t.Fatal(err)
				}
			}
			if rs, err := Search(ctx, st, "kept", "", "2026-12-06", 10); err != nil || len(rs) != 0 {
				t.Fatalf("before indexing: %d found, %v", len(rs), err)
			}
			if err := IndexTerms(ctx, st, now); err != nil {
				t.Fatal(err)
			}
			rs, err := Search(ctx, st, "person449", "", "2026-12-06", 10)
			if err != nil || len(rs) != 1 || rs[0].Version != 1 {
				t.Fatalf("after indexing: %+v, %v; want OLD…449 at version 1", rs, err)
			}
			if rs, err := Search(ctx, st, "kept", "", "2026-12-06", 1000); err != nil || len(rs) != 450 {
				t.Fatalf("after indexing: %d found, %v; want 450", len(rs), err)
			}
			if err := IndexTerms(ctx, st, now); err != nil {
				t.Fatalf("second run: %v", err)
			}
		})
	}
}
