package orp

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"frontdesk/internal/jsonappend"
	"frontdesk/store"
)

// Clicks are stored in pages, not one record each: a flush of the click
// writer stores, for every link and every second its clicks fall in, one
// page of that link's clicks, and for every second one page of click ids.
// A record per click (and a second one to find it by click id) cost more
// than the redirect itself; a page costs one write for hundreds of clicks.
//
//	orp.clicks    <token>/<second>/<page>  the link's clicks, for outcomes
//	orp.clickids  <second>/<page>          click id → link, for conversions
//
// <second> is the click's own Unix second, zero-padded, so a period's
// clicks are one key range however the batches fell, and a clock that
// moved backward files a click under the second it carries.
const (
	kindClickPage   = "orp.clicks"
	kindClickIDPage = "orp.clickids"
)

// StoredClick is one stored click: its class, when and where from (the
// referring domain), and the click id its redirect added. Nothing in it
// identifies the client (T5).
type StoredClick struct {
	Class  string
	At     time.Time
	Source string
	ID     string
}

// clickRef is what a conversion needs of the click its click id names.
type clickRef struct {
	Token string
	Class string
	At    time.Time
}

// Click ids are a 5-byte Unix second followed by 128 random bits, 28
// characters of base64url. The random part makes the id unguessable and
// new for every click (T3); the second says which id page holds it, so a
// conversion finds its click with one short read. It tells the
// destination nothing it does not already know: when the visitor arrived.
const (
	clickIDBytes  = 5 + 16
	clickIDLength = 28
)

func newClickID(at time.Time, random []byte) string {
	var b [clickIDBytes]byte
	var sec [8]byte
	binary.BigEndian.PutUint64(sec[:], uint64(at.Unix()))
	copy(b[:5], sec[3:])
	copy(b[5:], random)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// clickIDSecond is the Unix second a click id was issued in.
func clickIDSecond(id string) (int64, bool) {
	if len(id) != clickIDLength {
		return 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil || len(b) != clickIDBytes {
		return 0, false
	}
	var sec [8]byte
	copy(sec[3:], b[:5])
	return int64(binary.BigEndian.Uint64(sec[:])), true
}

func secondKey(sec int64) string { return fmt.Sprintf("%011d", sec) }

// pages collects one flush's clicks into page values.
type pages struct {
	byLink map[linkSecond][]byte // JSON array being built
	byID   map[int64][]byte      // by second; JSON array being built
	order  []linkSecond          // keys of byLink in first-seen order
}

type linkSecond struct {
	token string
	sec   int64
}

func newPages() *pages {
	return &pages{byLink: map[linkSecond][]byte{}, byID: map[int64][]byte{}}
}

// add appends one click. Tokens, classes, sources and click ids are
// plain ASCII without quotes or backslashes, so they are written as JSON
// strings as they are; anything else goes through the JSON encoder.
func (p *pages) add(token string, c StoredClick) {
	sec, at := c.At.Unix(), c.At.UnixNano()
	link := linkSecond{token, sec}
	b, ok := p.byLink[link]
	if !ok {
		p.order = append(p.order, link)
	}
	b = nextRow(b)
	b = jsonappend.String(b, c.Class)
	b = append(b, ',')
	b = strconv.AppendInt(b, at, 10)
	b = append(b, ',')
	b = jsonappend.String(b, c.Source)
	b = append(b, ',')
	b = jsonappend.String(b, c.ID)
	p.byLink[link] = append(b, ']')

	if c.ID == "" {
		return
	}
	b = nextRow(p.byID[sec])
	b = jsonappend.String(b, c.ID)
	b = append(b, ',')
	b = jsonappend.String(b, token)
	b = append(b, ',')
	b = jsonappend.String(b, c.Class)
	b = append(b, ',')
	b = strconv.AppendInt(b, at, 10)
	p.byID[sec] = append(b, ']')
}

// writes are the creates of every page, each key ending in page, a name
// unique to this flush.
func (p *pages) writes(page string, now time.Time) []store.Write {
	ws := make([]store.Write, 0, len(p.byLink)+len(p.byID))
	for _, link := range p.order {
		ws = append(ws, store.Write{Op: store.OpCreate, Record: store.Record{
			Kind: kindClickPage, Key: link.token + "/" + secondKey(link.sec) + "/" + page, Value: append(p.byLink[link], ']'), UpdatedAt: now,
		}})
	}
	for sec, b := range p.byID {
		ws = append(ws, store.Write{Op: store.OpCreate, Record: store.Record{
			Kind: kindClickIDPage, Key: secondKey(sec) + "/" + page, Value: append(b, ']'), UpdatedAt: now,
		}})
	}
	return ws
}

// nextRow starts a row of a page being built: the page's opening bracket
// before its first row, a comma before the others.
func nextRow(b []byte) []byte {
	if len(b) == 0 {
		b = append(b, '[')
	} else {
		b = append(b, ',')
	}
	return append(b, '[')
}

// StoredClicks returns the stored clicks of the link with token whose
// time is in [from, to), oldest page first.
func (h *Host) StoredClicks(ctx context.Context, token string, from, to time.Time) ([]StoredClick, error) {
	var out []StoredClick
	prefix := token + "/"
	after := prefix + secondKey(from.Unix()-1) + "/~"
	end := prefix + secondKey(to.Unix()) + "/~"
	for {
		recs, err := h.store.List(ctx, kindClickPage, prefix, after, 100)
		if err != nil {
			return nil, fmt.Errorf("list clicks: %w", err)
		}
		for _, r := range recs {
			if r.Key > end {
				return out, nil
			}
			var rows [][4]json.RawMessage
			if err := json.Unmarshal(r.Value, &rows); err != nil {
				return nil, fmt.Errorf("click page %s: %w", r.Key, err)
			}
			for _, row := range rows {
				var c StoredClick
				var at int64
				if err := decodeRow(row[:], &c.Class, &at, &c.Source, &c.ID); err != nil {
					return nil, fmt.Errorf("click page %s: %w", r.Key, err)
				}
				c.At = time.Unix(0, at).UTC()
				if !c.At.Before(from) && c.At.Before(to) {
					out = append(out, c)
				}
			}
		}
		if len(recs) < 100 {
			return out, nil
		}
		after = recs[len(recs)-1].Key
	}
}

// lookupClick finds the click a click id names, or store.ErrNotFound.
// A click is found from the moment its redirect is answered: the click
// log is read before the pages, the journal's groups first of all, since
// a fold removes a click from the log only in the transaction that adds
// it to a page (and from the journal only after that commit), so a click
// missing from the log when it is read is in a page when those are.
func (h *Host) lookupClick(ctx context.Context, id string) (clickRef, error) {
	sec, ok := clickIDSecond(id)
	if !ok {
		return clickRef{}, store.ErrNotFound
	}
	if j := h.journal; j != nil {
		if ref, ok := j.lookup(id); ok {
			return ref, nil
		}
	}
	if ref, err := h.lookupLoggedClick(ctx, id, sec); err == nil || !errors.Is(err, store.ErrNotFound) {
		return ref, err
	}
	return h.lookupPagedClick(ctx, id, sec)
}

// logLookback is how long before a click id's second the store's click
// log is read for it: a group is logged after its clicks, but a clock
// stepped back may file it a little earlier.
const logLookback = 5 * time.Minute

// lookupLoggedClick finds a click in the store's click log, which holds
// what the writer has not folded yet, or store.ErrNotFound.
func (h *Host) lookupLoggedClick(ctx context.Context, id string, sec int64) (clickRef, error) {
	after := fmt.Sprintf("%019d", max(time.Unix(sec, 0).Add(-logLookback).UnixNano(), 0))
	for {
		recs, err := h.store.List(ctx, kindClickLog, "", after, 100)
		if err != nil {
			return clickRef{}, fmt.Errorf("list click log: %w", err)
		}
		for _, r := range recs {
			var logged []loggedClick
			if err := json.Unmarshal(r.Value, &logged); err != nil {
				return clickRef{}, fmt.Errorf("decode click log %s: %w", r.Key, err)
			}
			for _, c := range logged {
				if c.ID == id {
					return clickRef{Token: c.Token, Class: c.Class, At: c.At}, nil
				}
			}
		}
		if len(recs) < 100 {
			return clickRef{}, store.ErrNotFound
		}
		after = recs[len(recs)-1].Key
	}
}

// lookupPagedClick finds a folded click in the click id pages, or
// store.ErrNotFound.
func (h *Host) lookupPagedClick(ctx context.Context, id string, sec int64) (clickRef, error) {
	prefix := secondKey(sec) + "/"
	after := ""
	for {
		recs, err := h.store.List(ctx, kindClickIDPage, prefix, after, 100)
		if err != nil {
			return clickRef{}, fmt.Errorf("list click ids: %w", err)
		}
		for _, r := range recs {
			var rows [][4]json.RawMessage
			if err := json.Unmarshal(r.Value, &rows); err != nil {
				return clickRef{}, fmt.Errorf("click id page %s: %w", r.Key, err)
			}
			for _, row := range rows {
				var got string
				var ref clickRef
				var at int64
				if err := decodeRow(row[:], &got, &ref.Token, &ref.Class, &at); err != nil {
					return clickRef{}, fmt.Errorf("click id page %s: %w", r.Key, err)
				}
				if got == id {
					ref.At = time.Unix(0, at).UTC()
					return ref, nil
				}
			}
		}
		if len(recs) < 100 {
			return clickRef{}, store.ErrNotFound
		}
		after = recs[len(recs)-1].Key
	}
}

// decodeRow decodes the fields of one page row into dst, each a *string
// or an *int64.
func decodeRow(row []json.RawMessage, dst ...any) error {
	for i, d := range dst {
		var err error
		switch d := d.(type) {
		case *string:
			err = json.Unmarshal(row[i], d)
		case *int64:
			*d, err = strconv.ParseInt(string(row[i]), 10, 64)
		default:
			err = errors.New("unsupported field")
		}
		if err != nil {
			return fmt.Errorf("field %d: %w", i, err)
		}
	}
	return nil
}
