package relay

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"frontdesk/direct"
	"frontdesk/internal/fault"
	"frontdesk/internal/secretring"
)

// The hub's control operations (direct-booking.md §4): each location
// calls them over the same authenticated relay, in the other direction,
// before it admits a code send, a pending reservation or a same-email
// decision.
const (
	OpControlAdmit   = "control_admit"
	OpControlRefund  = "control_refund"
	OpControlPending = "control_pending"
	OpControlClaim   = "control_claim"
	OpControlRelease = "control_release"
	OpControlMark    = "control_mark"
	OpControlSettle  = "control_settle"
	OpControlRestate = "control_restate"
)

// The control operations' refusals, which the location reads back into
// direct's: a full budget or ceiling (Field names which), and a contact
// marker another call holds.
const (
	CodeControlFull Code = "control_full"
	CodeControlBusy Code = "control_busy"
)

// hubSlug is the name a location's client gives the hub's origin.
const hubSlug = "hub"

// controlArgs are every control operation's arguments; each reads its own.
type controlArgs struct {
	Mailboxes []string            `json:"mailboxes,omitempty"` // newest first
	Cancel    bool                `json:"cancel,omitempty"`    // a cancellation code's admission
	Gone      bool                `json:"gone,omitempty"`      // a restated stay that holds no room
	Ref       string              `json:"ref,omitempty"`
	Until     time.Time           `json:"until,omitzero"`
	Admitted  *direct.Admitted    `json:"admitted,omitempty"`
	Marker    *direct.Marker      `json:"marker,omitempty"`
	Made      *direct.ControlStay `json:"made,omitempty"`
	To        *direct.ControlStay `json:"to,omitempty"` // what a restated stay became
}

// ServeControl adds the hub's control operations on c to s.
func ServeControl(s *Server, c *direct.ControlStore) {
	add := func(name string, run func(ctx context.Context, a controlArgs) (any, error)) {
		s.Add(name, Operation{Run: func(ctx context.Context, call Call) (any, error) {
			var a controlArgs
			if err := json.Unmarshal(call.Args, &a); err != nil {
				return nil, s.worded(CodeUnknownOperation, "")
			}
			out, err := run(ctx, a)
			return out, controlRefusal(err)
		}})
	}
	add(OpControlAdmit, func(ctx context.Context, a controlArgs) (any, error) {
		if a.Cancel {
			return c.AdmitCancel(ctx)
		}
		return c.Admit(ctx, a.Mailboxes)
	})
	add(OpControlRefund, func(ctx context.Context, a controlArgs) (any, error) {
		if a.Admitted == nil {
			return nil, errors.New("refund: no admission")
		}
		return true, c.Refund(ctx, *a.Admitted)
	})
	add(OpControlPending, func(ctx context.Context, a controlArgs) (any, error) { return c.Pending(ctx) })
	add(OpControlClaim, func(ctx context.Context, a controlArgs) (any, error) { return true, c.Claim(ctx, a.Ref, a.Until) })
	add(OpControlRelease, func(ctx context.Context, a controlArgs) (any, error) { return true, c.Release(ctx, a.Ref) })
	add(OpControlMark, func(ctx context.Context, a controlArgs) (any, error) { return c.Mark(ctx, a.Mailboxes) })
	add(OpControlSettle, func(ctx context.Context, a controlArgs) (any, error) {
		if a.Marker == nil {
			return nil, errors.New("settle: no marker")
		}
		return true, c.Settle(ctx, *a.Marker, a.Made)
	})
	add(OpControlRestate, func(ctx context.Context, a controlArgs) (any, error) {
		if a.Made == nil {
			return nil, errors.New("restate: no stay")
		}
		to := a.To
		switch {
		case a.Gone && to != nil:
			return nil, errors.New("restate: a stay both gone and kept")
		case !a.Gone && to == nil:
			// A location from before stays could move: its stay was
			// confirmed.
			kept := *a.Made
			kept.Pending = false
			to = &kept
		}
		return true, c.Restate(ctx, a.Mailboxes, *a.Made, to)
	})
}

// controlRefusal words the control data's own refusals for the wire; any
// other error is the hub's failure, sent without detail.
func controlRefusal(err error) error {
	if full, ok := errors.AsType[*direct.ControlFull](err); ok {
		return &fault.Error{Code: CodeControlFull, Message: "The group's limit is reached.", Field: full.Budget}
	}
	if errors.Is(err, direct.ErrControlBusy) {
		return &fault.Error{Code: CodeControlBusy, Message: "Another call holds this contact's marker."}
	}
	return err
}

// control is a location's direct.Control: the hub's operations over the
// relay. A mailbox leaves the location keyed with the shared secret's
// newest version, so every location names one mailbox alike and the hub
// never sees an address.
type control struct {
	client *Client
	keys   [][]byte // newest first
}

var _ direct.Control = (*control)(nil)

// hubClient is a location's client of the hub at o.Hub.
func hubClient(o SplitOptions, keys []Key) (*Client, error) {
	return NewClient(ClientOptions{Origins: map[string]string{hubSlug: o.Hub}, Keys: keys, Clock: o.Clock, Rand: o.Rand})
}

// newControl returns the Control of the hub that client reaches, keying
// mailboxes with the secret's versions of o.
func newControl(o SplitOptions, client *Client) (*control, error) {
	vs, err := secretring.Parse(o.Secret)
	if err != nil {
		return nil, err
	}
	c := &control{client: client}
	for i := len(vs) - 1; i >= 0; i-- {
		c.keys = append(c.keys, macOf(vs[i].Key, []byte("frontdesk control mailbox v1")))
	}
	return c, nil
}

// mailboxes are email's keys under every live version, newest first.
func (c *control) mailboxes(email string) []string {
	out := make([]string, len(c.keys))
	for i, k := range c.keys {
		out[i] = hex.EncodeToString(macOf(k, []byte(email)))
	}
	return out
}

// call runs op at the hub and reads its refusals back into direct's.
func (c *control) call(ctx context.Context, op string, kind Kind, a controlArgs, out any) error {
	err := c.client.Call(ctx, hubSlug, op, kind, a, out)
	var f *fault.Error
	if errors.As(err, &f) {
		switch f.Code {
		case CodeControlFull:
			return &direct.ControlFull{Budget: f.Field}
		case CodeControlBusy:
			return direct.ErrControlBusy
		}
	}
	return err
}

func (c *control) Admit(ctx context.Context, email string) (direct.Admitted, error) {
	var a direct.Admitted
	err := c.call(ctx, OpControlAdmit, Mutation, controlArgs{Mailboxes: c.mailboxes(email)}, &a)
	return a, err
}

func (c *control) AdmitCancel(ctx context.Context) (direct.Admitted, error) {
	var a direct.Admitted
	err := c.call(ctx, OpControlAdmit, Mutation, controlArgs{Cancel: true}, &a)
	return a, err
}

func (c *control) Refund(ctx context.Context, a direct.Admitted) error {
	return c.call(ctx, OpControlRefund, Mutation, controlArgs{Admitted: &a}, nil)
}

func (c *control) Pending(ctx context.Context) (int, error) {
	var n int
	err := c.call(ctx, OpControlPending, Lookup, controlArgs{}, &n)
	return n, err
}

func (c *control) Claim(ctx context.Context, ref string, until time.Time) error {
	return c.call(ctx, OpControlClaim, Mutation, controlArgs{Ref: ref, Until: until}, nil)
}

func (c *control) Release(ctx context.Context, ref string) error {
	return c.call(ctx, OpControlRelease, Mutation, controlArgs{Ref: ref}, nil)
}

func (c *control) Mark(ctx context.Context, email string) (direct.Marker, error) {
	var m direct.Marker
	err := c.call(ctx, OpControlMark, Mutation, controlArgs{Mailboxes: c.mailboxes(email)}, &m)
	return m, err
}

func (c *control) Settle(ctx context.Context, m direct.Marker, made *direct.ControlStay) error {
	return c.call(ctx, OpControlSettle, Mutation, controlArgs{Marker: &m, Made: made}, nil)
}

func (c *control) Restate(ctx context.Context, email string, stay direct.ControlStay, to *direct.ControlStay) error {
	return c.call(ctx, OpControlRestate, Mutation, controlArgs{Mailboxes: c.mailboxes(email), Made: &stay, Gone: to == nil, To: to}, nil)
}
