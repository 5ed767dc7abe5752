package channel

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"

	"frontdesk/business"
	"frontdesk/internal/civil"
	"frontdesk/store"
)

// Listing is one physical unit of a night unit type: the export feed a
// channel's listing of that unit imports.
type Listing struct {
	Location string
	Unit     string
	Number   int    // 1 to the type's count
	Token    string // the secret in the feed's address
	// Feeds are the channel feeds whose blocks this listing's export
	// leaves out: the channel it is given to.
	Feeds []string
}

// Path is the listing's export address on this server.
func (l Listing) Path() string { return "/channels/" + l.Token + ".ics" }

// exportRecord is what the store keeps of one listing's export.
type exportRecord struct {
	Token string `json:"token"`
	// Hash and Since say when the nights listed last changed: the
	// feed's Last-Modified and DTSTAMP.
	Hash  string    `json:"hash,omitempty"`
	Since time.Time `json:"since,omitzero"`
}

func exportKey(loc, unit string, n int) string { return loc + "/" + unit + "/" + strconv.Itoa(n) }

// Listings lists every night unit's export, drawing the token of one
// that has none yet.
func (s *Service) Listings(ctx context.Context) ([]Listing, error) {
	feeds, err := s.Feeds(ctx)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var out []Listing
	for _, l := range s.locs {
		for _, u := range l.NightUnits() {
			for n := 1; n <= u.Count; n++ {
				rec, err := s.export(ctx, l, exportKey(l.Slug, u.Type, n), now)
				if err != nil {
					return nil, err
				}
				li := Listing{Location: l.Slug, Unit: u.Type, Number: n, Token: rec.Token}
				for _, f := range feeds {
					if f.Location == l.Slug && f.Unit == u.Type && f.Listing == n {
						li.Feeds = append(li.Feeds, f.Name)
					}
				}
				out = append(out, li)
			}
		}
	}
	return out, nil
}

// export reads a listing's export record, creating it with a new token
// of location l.
func (s *Service) export(ctx context.Context, l business.Location, key string, now time.Time) (exportRecord, error) {
	return store.Update(ctx, s.st, KindExport, key, now, func(e *exportRecord, found bool) error {
		if found {
			return store.ErrNoChange
		}
		tok, err := s.token(l)
		if err != nil {
			return err
		}
		*e = exportRecord{Token: tok}
		return nil
	})
}

// Rotate gives a listing's export a new token: the old address stops
// answering at once.
func (s *Service) Rotate(ctx context.Context, loc, unit string, n int) error {
	l, ok := s.location(loc)
	if !ok {
		return fmt.Errorf("rotate export: %q is no location of this server", loc)
	}
	now := s.clock.Now()
	key := exportKey(loc, unit, n)
	if _, err := s.export(ctx, l, key, now); err != nil {
		return err
	}
	rec, err := s.st.Get(ctx, KindExport, key)
	if err != nil {
		return err
	}
	tok, err := s.token(l)
	if err != nil {
		return err
	}
	rec.Value, rec.UpdatedAt = encode(exportRecord{Token: tok}), now
	_, err = s.st.Swap(ctx, rec)
	return err
}

// token draws a feed token of location l: its located form
// (business.Location.Token) around 20 random bytes in lowercase base32,
// so a split deployment's hub can route the feed to l. Tokens drawn
// before they named their location are the random part alone; they keep
// their address until rotated.
func (s *Service) token(l business.Location) (string, error) {
	var b [20]byte
	s.randM.Lock()
	_, err := io.ReadFull(s.rand, b[:])
	s.randM.Unlock()
	if err != nil {
		return "", fmt.Errorf("draw token: %w", err)
	}
	return l.Token(strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))), nil
}

// ErrUnknownToken answers an export address whose token is no listing's.
var ErrUnknownToken = errors.New("channel: no export has this token")

// Exported is one export feed as served.
type Exported struct {
	Body     []byte
	ETag     string
	Modified time.Time
	Nights   []string // the nights listed
}

// Export builds the feed of the listing whose token is tok: every night
// from today to the horizon on which at least Number units of the type
// are held by any door, not counting the blocks of the channel the
// listing is given to; one all-day event per run of nights, summary
// "Reserved", with no guest data.
func (s *Service) Export(ctx context.Context, tok string) (Exported, error) {
	listings, err := s.Listings(ctx)
	if err != nil {
		return Exported{}, err
	}
	var li *Listing
	for i := range listings {
		if subtle.ConstantTimeCompare([]byte(listings[i].Token), []byte(tok)) == 1 {
			li = &listings[i]
		}
	}
	if li == nil || tok == "" {
		return Exported{}, ErrUnknownToken
	}
	loc, _ := s.location(li.Location)
	now := s.clock.Now()
	today := civil.Of(now, loc.Zone())
	until := today.AddDays(s.o.Horizon)
	counts, err := s.st.Counts(ctx, li.Location, today.String(), until.String())
	if err != nil {
		return Exported{}, err
	}
	held := map[string]int{}
	for _, c := range counts {
		if c.Unit == li.Unit {
			held[c.Slot] += c.Held
		}
	}
	for _, name := range li.Feeds {
		blocks, err := s.blocks(ctx, name)
		if err != nil {
			return Exported{}, err
		}
		for _, b := range blocks {
			for _, n := range b.Held {
				held[n]--
			}
		}
	}
	var nights []string
	for d := today; d.Before(until); d = d.AddDays(1) {
		if held[d.String()] >= li.Number {
			nights = append(nights, d.String())
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(nights, ",")))
	hash := hex.EncodeToString(sum[:16])
	key := exportKey(li.Location, li.Unit, li.Number)
	since, err := s.since(ctx, key, hash, now)
	if err != nil {
		return Exported{}, err
	}
	body := render(loc, *li, nights, since)
	tag := sha256.Sum256(body)
	return Exported{Body: body, ETag: `"` + hex.EncodeToString(tag[:16]) + `"`, Modified: since, Nights: nights}, nil
}

// since is when the listing's nights last changed: the stored time while
// hash is the stored one, now (stored) when it is not.
func (s *Service) since(ctx context.Context, key, hash string, now time.Time) (time.Time, error) {
	e, rec, err := store.GetJSON[exportRecord](ctx, s.st, KindExport, key)
	if err != nil {
		return now, err
	}
	if e.Hash == hash && !e.Since.IsZero() {
		return e.Since, nil
	}
	e.Hash, e.Since = hash, now.UTC().Truncate(time.Second)
	rec.Value, rec.UpdatedAt = encode(e), now
	if _, err := s.st.Swap(ctx, rec); err != nil && !errors.Is(err, store.ErrConflict) {
		return now, err
	}
	return e.Since, nil
}

// render writes the feed with the iCalendar library's serializer.
func render(loc business.Location, li Listing, nights []string, since time.Time) []byte {
	cal := ics.NewCalendarFor("frontdesk")
	cal.SetMethod(ics.MethodPublish)
	cal.SetCalscale("GREGORIAN")
	cal.SetXWRCalName(fmt.Sprintf("%s %s %d", loc.Name, li.Unit, li.Number))
	for i := 0; i < len(nights); {
		j := i
		for j+1 < len(nights) && next(nights[j]) == nights[j+1] {
			j++
		}
		first, _ := civil.Parse(nights[i])
		last, _ := civil.Parse(nights[j])
		uid := sha256.Sum256([]byte(exportKey(li.Location, li.Unit, li.Number) + "/" + nights[i]))
		ev := cal.AddEvent(hex.EncodeToString(uid[:10]) + "@frontdesk")
		ev.SetDtStampTime(since)
		ev.SetAllDayStartAt(first.At(0, 0, time.UTC))
		ev.SetAllDayEndAt(last.AddDays(1).At(0, 0, time.UTC))
		ev.SetSummary("Reserved")
		ev.SetTimeTransparency(ics.TransparencyOpaque)
		i = j + 1
	}
	return []byte(cal.Serialize())
}

func next(night string) string {
	d, err := civil.Parse(night)
	if err != nil {
		return ""
	}
	return d.AddDays(1).String()
}

// Handler serves GET /channels/{token}.ics: the export, with ETag and
// Last-Modified, answering a conditional GET with 304, and 404 for an
// unknown token.
func (s *Service) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutSuffix(r.PathValue("file"), ".ics")
		if !ok {
			http.NotFound(w, r)
			return
		}
		e, err := s.Export(r.Context(), tok)
		if errors.Is(err, ErrUnknownToken) {
			http.NotFound(w, r)
			return
		}
		if err != nil {
			s.log.ErrorContext(r.Context(), "channel export", "err", err)
			http.Error(w, "The calendar could not be read; try again.", http.StatusServiceUnavailable)
			return
		}
		h := w.Header()
		h.Set("ETag", e.ETag)
		h.Set("Last-Modified", e.Modified.UTC().Format(http.TimeFormat))
		h.Set("Cache-Control", "private, max-age=300")
		h.Set("X-Robots-Tag", "noindex")
		if notModified(r, e) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", "text/calendar; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(e.Body)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(e.Body)
		}
	})
}

// notModified applies If-None-Match, or without it If-Modified-Since.
func notModified(r *http.Request, e Exported) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for t := range strings.SplitSeq(inm, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == e.ETag || t == "*" {
				return true
			}
		}
		return false
	}
	if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil {
		return !e.Modified.Truncate(time.Second).After(ims)
	}
	return false
}
