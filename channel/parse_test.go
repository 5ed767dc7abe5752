package channel

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/internal/civil"
	"frontdesk/internal/golden"
)

func berlin(t testing.TB) *time.Location {
	z, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// parseOptions reads feeds as a location in Berlin on 2027-01-01.
func parseOptions(t testing.TB) ParseOptions {
	from, _ := civil.Parse("2027-01-01")
	return ParseOptions{Zone: berlin(t), From: from, Until: from.AddDays(730)}
}

// listBlocks writes blocks one a line, as the golden files hold them.
func listBlocks(blocks []Block) []byte {
	var b bytes.Buffer
	for _, bl := range blocks {
		fmt.Fprintf(&b, "%s: %s\n", bl.Key, strings.Join(bl.Nights, " "))
	}
	return b.Bytes()
}

// TestParseFeeds reads feeds in the shapes Airbnb, Booking.com and Vrbo
// publish, and one with the RFC's harder parts (time zones named and
// defined, timed and floating events, folded lines, weekly, daily and
// monthly rules with EXDATE and a moved occurrence, cancelled and free
// events), into the blocks of the golden files; no summary or
// description, where guests' names are, reaches a block.
func TestParseFeeds(t *testing.T) {
	for _, name := range []string{"airbnb", "bookingcom", "vrbo", "rfc"} {
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", name+".ics"))
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := Parse(body, parseOptions(t))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := listBlocks(blocks)
			for _, private := range []string{"Jane", "jane@", "4821", "HMQWERTYUI", "Reserved", "Owner"} {
				if bytes.Contains(got, []byte(private)) {
					t.Errorf("blocks carry %q from a summary or description", private)
				}
			}
			golden.Check(t, "parse-"+name+".txt", got)
		})
	}
}

// TestParseRefusesWhatIsNotAWholeCalendar: garbage, an HTML page, an
// empty body and a calendar cut short are errors, never "no blocks",
// which would free every night the channel sold.
func TestParseRefusesWhatIsNotAWholeCalendar(t *testing.T) {
	whole, err := os.ReadFile(filepath.Join("testdata", "airbnb.ics"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body string
	}{
		{"empty", ""},
		{"garbage", "\x00\x01not a calendar at all"},
		{"html", "<!doctype html><title>Maintenance</title><p>Back soon</p>"},
		{"cut short", string(whole[:len(whole)/2])},
		{"no begin", "VERSION:2.0\r\nEND:VCALENDAR\r\n"},
		{"bad date", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;VALUE=DATE:2027-01-10\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"},
		{"broken property naming a guest", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nSUMMARY;X-GUEST=\"Jane Example\r\nDTSTART;VALUE=DATE:Jane Example\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"},
		{"date naming a guest", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;VALUE=DATE:Jane Example\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"},
		{"rule naming a guest", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;VALUE=DATE:20270110\r\nRRULE:FREQ=DAILY;X-JANE=Example\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"},
		{"unread rule", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;VALUE=DATE:20270110\r\nRRULE:FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks, err := Parse([]byte(tt.body), parseOptions(t))
			if err == nil {
				t.Fatalf("Parse = %v blocks and no error, want an error", len(blocks))
			}
			// The error is logged and shown: it never quotes the feed.
			if strings.Contains(err.Error(), "Jane") || strings.Contains(err.Error(), "JANE") {
				t.Fatalf("error quotes the feed: %v", err)
			}
		})
	}
	if _, err := Parse([]byte("garbage"), parseOptions(t)); !errors.Is(err, ErrNotCalendar) {
		t.Errorf("Parse(garbage) = %v, want ErrNotCalendar", err)
	}
}

// TestParseEmptyCalendar is a whole calendar with no event: no blocks,
// no error (the sync decides whether that is suspect).
func TestParseEmptyCalendar(t *testing.T) {
	blocks, err := Parse([]byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\nEND:VCALENDAR\r\n"), parseOptions(t))
	if err != nil || len(blocks) != 0 {
		t.Fatalf("Parse = %v, %v, want no blocks and no error", blocks, err)
	}
}

// FuzzParse: no feed makes Parse panic or run away, and every block it
// returns has a key and nights in order inside the horizon.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"airbnb", "bookingcom", "vrbo", "rfc"} {
		body, err := os.ReadFile(filepath.Join("testdata", name+".ics"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Add([]byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;VALUE=DATE:20270101\r\nRRULE:FREQ=DAILY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))
	o := parseOptions(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		blocks, err := Parse(body, o)
		if err != nil {
			return
		}
		for _, b := range blocks {
			if b.Key == "" || len(b.Nights) == 0 || len(b.Nights) > maxNights {
				t.Fatalf("block %+v", b)
			}
			for i, n := range b.Nights {
				d, err := civil.Parse(n)
				if err != nil || !d.Before(o.Until) || i > 0 && n <= b.Nights[i-1] {
					t.Fatalf("block %s night %q out of order or range", b.Key, n)
				}
			}
		}
	})
}
