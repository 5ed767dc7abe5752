package uspmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"frontdesk/mcpfront"
	"frontdesk/usp"
)

// USP tool descriptions (the MCP binding of USP, §9.2). Arguments are the
// operation's parameters with _meta.usp inside them; results carry the
// usp object, the operation's data and messages[] in structuredContent,
// and a one-line summary in content.
var uspTools = map[string]struct{ title, description string }{
	"usp_services_list": {"List services",
		"Lists this business's bookable services (rooms sold by the stay, timed services such as an airport shuttle) with type, duration, price in minor units, location and policies. Optional free-text query, filters (type, category_id, categories, location_id, price in minor units) and pagination (limit, cursor). Public: no credentials."},
	"usp_services_get": {"Get a service",
		"Returns one service by service_id. An unknown id is a service_not_found protocol error. Public: no credentials."},
	"usp_services_lookup": {"Look up services",
		"Returns the services named in ids (up to 100), each once; ids that name no service are reported in messages[] as service_not_found. Public: no credentials."},
	"usp_services_feed": {"Catalog feed",
		"Returns the catalog as a feed for indexing: every service with when it last changed (state updated, or deleted with its id only), in (modified_at, id) order. Pass pagination.next_cursor back as cursor for the next page; limit defaults to 50 (at most 200); location_id narrows to one location. Public: no credentials."},
	"usp_services_feed_subscribe": {"Subscribe to catalog changes",
		"Registers callback_url (https) for catalog events: service.created, service.updated, service.deleted (or the events listed), for the categories listed or all. Events are POSTed signed like booking webhooks. Privileged: credentials and _meta.usp.profile."},
	"usp_services_feed_subscription_get": {"Get a feed subscription",
		"Returns one of this platform's feed subscriptions by subscription_id, with its status (active, paused or canceled). Privileged."},
	"usp_services_feed_unsubscribe": {"Cancel a feed subscription",
		"Cancels one of this platform's feed subscriptions for good: no more catalog events. Privileged."},
	"usp_services_feed_subscription_pause": {"Pause a feed subscription",
		"Stops catalog events to the subscription until it is resumed; changes in between are not sent later (read the feed instead). Privileged."},
	"usp_services_feed_subscription_resume": {"Resume a feed subscription",
		"Sends catalog events to a paused subscription again. A canceled subscription cannot be resumed (invalid_transition in messages[]). Privileged."},
	"usp_availability_query": {"Query availability",
		"Returns the open slots of one service between start_date and end_date (RFC 3339 dates, whole local days, or date-times; at most 31 days), in ascending start order, as instants with offsets. Optional timezone for dates and answers, party_size, location_id, resource_id, limit (default 50, at most 500) and cursor. Public: no credentials."},
	"usp_availability_hold": {"Hold a slot",
		"Holds spots (default 1) of one slot for 10 minutes so a booking can follow; an appointment slot takes one hold at a time. A slot that is gone is slot_unavailable in messages[]. Privileged: credentials and _meta.usp.profile; send _meta.usp.idempotency_key."},
	"usp_availability_release": {"Release a hold",
		"Releases a hold of this platform before it expires, freeing its spots. Releasing a hold that already ended answers its status. Privileged."},
	"usp_bookings_create": {"Create a booking",
		"Books a slot for a buyer (first_name, last_name, email; phone_number optional), converting hold_id when given. A service's confirmation_mode says how its bookings are confirmed: auto (the shuttle) answers a confirmed booking at once; manual (rooms) leaves it pending until staff confirm, and cancelled if still pending when the slot starts. A service that takes payment when booking answers requires_action with a payment action (payment_context, continue_url for the buyer, expires_at): pay through the continue_url page or your checkout and usp_bookings_confirm_payment. slot_unavailable, hold_expired and capacity_exceeded come in messages[]. Privileged; send _meta.usp.idempotency_key."},
	"usp_bookings_get": {"Get a booking",
		"Returns one booking of this platform with its status and revision. Privileged."},
	"usp_bookings_update": {"Update a booking",
		"Changes the buyer, recipient or notes of a booking that has not ended. Optional _meta.usp.if_match with the booking's revision. Privileged."},
	"usp_bookings_confirm": {"Confirm a booking",
		"The business's manual confirmation: staff only, never a platform's credentials."},
	"usp_bookings_cancel": {"Cancel a booking",
		"Cancels a pending, requires_action or confirmed booking and frees its slot; cancellation states the fee and the refund_amount of the service's policy (a payment your checkout took is refunded by it). Another status is invalid_transition in messages[]. Optional reason and _meta.usp.if_match. Privileged."},
	"usp_waitlist_join": {"Join a slot's waitlist",
		"Queues a buyer (first_name, last_name, email) for a service_id: for one full slot (slot_id), or without slot_id for any slot its preferred_slots take (start_date and end_date as RFC 3339 dates, both inclusive, time_of_day morning before 12:00, afternoon 12:00-17:00 or evening from 17:00, in the service's time zone; no preferred_slots takes any slot). When a place frees, the first entry in line that would take it is offered it, held for 15 minutes (status offered, offered_slot, offer_expires_at; webhook waitlist.spot_offered). A place free that the entry would take is slot_available in messages[]: book it instead; a full queue is waitlist_full. Privileged."},
	"usp_waitlist_list": {"List waitlist entries",
		"Lists this platform's waitlist entries, optionally of one service_id or status (waiting, offered, accepted, expired, declined, removed), with their positions. Privileged."},
	"usp_waitlist_get": {"Get a waitlist entry",
		"Returns one of this platform's waitlist entries by entry_id, with its status and position. Privileged."},
	"usp_waitlist_leave": {"Leave a waitlist",
		"Takes an entry out of its queue; a place it was offered goes to the next in line. Privileged."},
	"usp_waitlist_accept": {"Accept a waitlist offer",
		"Books the place offered to an entry: its hold becomes a booking in one write and the entry accepted (webhook waitlist.converted). An offer past its time is offer_expired in messages[]. Privileged."},
	"usp_waitlist_decline": {"Decline a waitlist offer",
		"Declines the place offered to an entry, which leaves the queue; the place goes to the next in line. Privileged."},
	"usp_bookings_confirm_payment": {"Confirm a booking's payment",
		"The callback after your checkout took a booking's payment (§5.3.7): payment_result with status, transaction_id, amount_paid (the amount_due, minor units), currency and optional order_reference confirms a requires_action booking (a manual one then waits for staff). payment_amount_mismatch, payment_expired and invalid_transition come in messages[]. Privileged."},
	"usp_bookings_reschedule": {"Reschedule a booking",
		"Moves a pending or confirmed booking to another slot_id of its service, optionally using hold_id on the new slot. Either the booking moves or it stays on its slot with the reason in messages[]. Optional _meta.usp.if_match. Privileged."},
}

// meta is the USP part of a tool call's _meta argument.
type meta struct {
	Meta struct {
		USP struct {
			Profile        string          `json:"profile"`
			CorrelationID  string          `json:"correlation_id"`
			Authorization  json.RawMessage `json:"authorization"`
			IdempotencyKey string          `json:"idempotency_key"`
			IfMatch        string          `json:"if_match"`
		} `json:"usp"`
	} `json:"_meta"`
}

// New returns the MCP server of the USP binding: one usp_* tool per
// method the business serves. Protocol errors are JSON-RPC errors with
// data.code; business outcomes are results with messages[].
func New(b *usp.Business, opts mcpfront.Options) *mcp.Server { return newServer(b, opts, nil) }

// NewAtHub is New at a split deployment's hub: the same tools, whose
// calls naming something a location owns are that location's, sent to
// its own USP MCP endpoint through locs, and whose calls spanning the
// locations are asked of each and merged. The hub's business answers
// the rest from its config, as New's does. Without locations (a nil
// *hub.Proxy: one process) it is New.
func NewAtHub(b *usp.Business, opts mcpfront.Options, locs Locations) *mcp.Server {
	if locs == nil || len(locs.USPLocations()) == 0 {
		return New(b, opts)
	}
	return newServer(b, opts, observing{Locations: locs, observe: b.Observe})
}

func newServer(b *usp.Business, opts mcpfront.Options, locs Locations) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "frontdesk-usp", Title: "USP business binding", Version: opts.Version}, nil)
	log := opts.Log()
	s.AddReceivingMiddleware(mcpfront.LogCalls(log, "usp"))
	for _, m := range b.Served() {
		about := uspTools[m.Name]
		tool := &mcp.Tool{
			Name: m.Name, Title: about.title, Description: about.description,
			InputSchema: usp.InputSchema(m.Name),
			Annotations: &mcp.ToolAnnotations{
				Title: about.title, ReadOnlyHint: m.Access == usp.Public || m.Name == "usp_bookings_get" || m.Name == "usp_waitlist_get" || m.Name == "usp_waitlist_list",
				DestructiveHint: ptr(m.Name == "usp_bookings_cancel" || m.Name == "usp_availability_release" || m.Name == "usp_waitlist_leave" || m.Name == "usp_waitlist_decline"),
				// Writes are idempotent with _meta.usp.idempotency_key.
				IdempotentHint: true, OpenWorldHint: ptr(false),
			},
		}
		name := m.Name
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			v, err := b.Within(withSession(ctx, req.Session), func(ctx context.Context) (any, error) {
				if locs != nil {
					if f, ok, err := route(ctx, locs, name, req); ok {
						return f, err
					}
				}
				return callUSP(ctx, b, name, req)
			})
			res, _ := v.(*mcp.CallToolResult)
			outcome := "ok"
			if f, ok := v.(forwarded); ok && err == nil {
				res = f.res
				if f.err != nil {
					outcome = "refused" // the location answered the protocol error, and logged it if it was its own fault
					mcpfront.ReportOutcome(ctx, f.err.Message, false)
					res, err = nil, f.err
				}
			} else if err != nil {
				e, internal := usp.AsError(err)
				outcome = "refused"
				if internal {
					outcome = "error"
					log.ErrorContext(ctx, "usp tool failed", "tool", name, "err", err)
				}
				mcpfront.ReportOutcome(ctx, string(e.Code), internal)
				err = rpcError(e, correlationOf(req))
			}
			opts.Metrics.ToolCall("usp", name, outcome, time.Since(start).Seconds())
			return res, err
		})
	}
	return s
}

func correlationOf(req *mcp.CallToolRequest) string {
	var m meta
	_ = json.Unmarshal(req.Params.Arguments, &m) // checked or written by this code already; what does not decode reads as empty
	if m.Meta.USP.CorrelationID == "" && req.Extra != nil && req.Extra.Header != nil {
		return req.Extra.Header.Get(CorrelationHeader)
	}
	return m.Meta.USP.CorrelationID
}

// rpcError renders a protocol error as the JSON-RPC error of §9.4.3: the
// code's bucket number, the code as message and data.code, and the
// correlation id echoed.
func rpcError(e *usp.Error, correlation string) error {
	data := map[string]any{"code": string(e.Code), "content": e.Message}
	if nonce := usp.Nonce(e); nonce != "" {
		data["nonce"] = nonce // proof_nonce_required: retry with a proof carrying it
	}
	if e.RetryAfter > 0 {
		data["retry_after"] = e.RetryAfter // service_unavailable: seconds, as REST's Retry-After
	}
	if correlation != "" {
		data["correlation_id"] = correlation
	}
	raw, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: usp.RPCCode(e.Code), Message: string(e.Code), Data: raw}
}

// callUSP parses the arguments, calls the business and renders the dual
// envelope.
func callUSP(ctx context.Context, b *usp.Business, name string, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw := req.Params.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	var m meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &usp.Error{Code: usp.CodeInvalidRequest, Message: "Tool arguments must be a JSON object with _meta.usp as an object."}
	}
	call := usp.Call{Profile: m.Meta.USP.Profile, CorrelationID: m.Meta.USP.CorrelationID,
		IdempotencyKey: m.Meta.USP.IdempotencyKey, IfMatch: m.Meta.USP.IfMatch,
		Credentials: usp.Credentials{Authorization: m.Meta.USP.Authorization, Params: raw}}
	if req.Extra != nil {
		call.Credentials.Header = req.Extra.Header
		// Over HTTP the header is the same join id; the argument wins
		// when both are sent (they should agree, §9.2.2).
		if call.CorrelationID == "" && req.Extra.Header != nil {
			call.CorrelationID = req.Extra.Header.Get(CorrelationHeader)
		}
	}
	parse := func(v any) error { return usp.Decode(raw, v) }
	var (
		res     any
		summary string
		err     error
	)
	switch name {
	case "usp_services_list":
		res, summary, err = tool(parse, func(in usp.ListRequest) (*usp.ListResult, error) { return b.ListServices(ctx, call, in) },
			func(r *usp.ListResult) string {
				return summarize(r.Messages, fmt.Sprintf("%d services%s.", len(r.Services), more(r.Pagination)))
			})
	case "usp_services_get":
		res, summary, err = tool(parse, func(in serviceArg) (*usp.GetResult, error) { return b.GetService(ctx, call, in.ServiceID) },
			func(r *usp.GetResult) string {
				text := ""
				if r.Service != nil {
					text = r.Service.Name + " (" + r.Service.Type + ")."
				}
				return summarize(r.Messages, text)
			})
	case "usp_services_lookup":
		asked := 0
		res, summary, err = tool(parse, func(in usp.LookupRequest) (*usp.LookupResult, error) {
			asked = len(in.IDs)
			return b.LookupServices(ctx, call, in)
		}, func(r *usp.LookupResult) string {
			return summarize(r.Messages, fmt.Sprintf("%d of %d services found.", len(r.Services), asked))
		})
	case "usp_services_feed_subscription_get", "usp_services_feed_unsubscribe", "usp_services_feed_subscription_pause", "usp_services_feed_subscription_resume":
		res, summary, err = tool(parse, func(in subscriptionArg) (*usp.SubscriptionResult, error) {
			return b.SubscriptionOp(ctx, call, name, in.SubscriptionID)
		}, subscriptionSummary)
	case "usp_services_feed_subscribe":
		res, summary, err = tool(parse, func(in usp.SubscribeRequest) (*usp.SubscriptionResult, error) { return b.Subscribe(ctx, call, in) },
			subscriptionSummary)
	case "usp_services_feed":
		res, summary, err = tool(parse, func(in usp.FeedRequest) (*usp.FeedResult, error) { return b.Feed(ctx, call, in) },
			func(r *usp.FeedResult) string {
				return summarize(r.Messages, fmt.Sprintf("%d feed records%s.", len(r.Items), more(usp.Pagination{HasMore: r.Pagination.HasMore})))
			})
	case "usp_availability_query":
		res, summary, err = tool(parse, func(in usp.QueryRequest) (*usp.QueryResult, error) { return b.QueryAvailability(ctx, call, in) },
			func(r *usp.QueryResult) string {
				text := fmt.Sprintf("%d open slots for %s%s.", len(r.Slots), r.ServiceID, more(r.Pagination))
				if len(r.Slots) > 0 {
					text = fmt.Sprintf("%d open slots for %s from %s%s.", len(r.Slots), r.ServiceID, r.Slots[0].Start, more(r.Pagination))
				}
				return summarize(r.Messages, text)
			})
	case "usp_availability_hold":
		res, summary, err = tool(parse, func(in usp.HoldRequest) (*usp.HoldResult, error) { return b.HoldSlot(ctx, call, in) }, holdSummary)
	case "usp_availability_release":
		res, summary, err = tool(parse, func(in holdArg) (*usp.HoldResult, error) {
			if in.HoldID == "" {
				return nil, &usp.Error{Code: usp.CodeInvalidRequest, Message: "hold_id is required."}
			}
			return b.ReleaseSlot(ctx, call, in.HoldID)
		}, holdSummary)
	case "usp_waitlist_join", "usp_waitlist_list", "usp_waitlist_get", "usp_waitlist_leave", "usp_waitlist_accept", "usp_waitlist_decline":
		res, summary, err = callWaitlist(ctx, b, name, call, parse)
	default:
		res, summary, err = callBooking(ctx, b, name, call, parse)
	}
	if err != nil {
		return nil, err
	}
	// The SDK encodes the result once, with the rest of the response.
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary}}, StructuredContent: res}
	if call.CorrelationID != "" {
		out.Meta = mcp.Meta{"usp": map[string]any{"correlation_id": call.CorrelationID}}
	}
	return out, nil
}

// The arguments of the tools that name one thing by its id.
type (
	serviceArg struct {
		ServiceID string `json:"service_id"`
	}
	subscriptionArg struct {
		SubscriptionID string `json:"subscription_id"`
	}
	holdArg struct {
		HoldID string `json:"hold_id"`
	}
)

// tool parses the arguments into an In, runs op on them and returns its
// result with the one-line summary text words.
func tool[In, R any](parse func(any) error, op func(In) (R, error), text func(R) string) (any, string, error) {
	var in In
	if err := parse(&in); err != nil {
		return nil, "", err
	}
	r, err := op(in)
	if err != nil {
		return nil, "", err
	}
	return r, text(r), nil
}

// callBooking runs the booking tools, which all answer a booking.
func callBooking(ctx context.Context, b *usp.Business, name string, call usp.Call, parse func(any) error) (any, string, error) {
	var in struct {
		BookingID string `json:"booking_id"`
	}
	if name != "usp_bookings_create" {
		if err := parse(&in); err != nil {
			return nil, "", err
		}
		if in.BookingID == "" {
			return nil, "", &usp.Error{Code: usp.CodeInvalidRequest, Message: "booking_id is required."}
		}
	}
	var (
		r   *usp.BookingResult
		err error
	)
	switch name {
	case "usp_bookings_create":
		var req usp.CreateRequest
		if err = parse(&req); err == nil {
			r, err = b.CreateBooking(ctx, call, req)
		}
	case "usp_bookings_get":
		r, err = b.GetBooking(ctx, call, in.BookingID)
	case "usp_bookings_update":
		var req usp.UpdateRequest
		if err = parse(&req); err == nil {
			r, err = b.UpdateBooking(ctx, call, in.BookingID, req)
		}
	case "usp_bookings_confirm":
		r, err = b.ConfirmBooking(ctx, call, in.BookingID)
	case "usp_bookings_confirm_payment":
		var req usp.ConfirmPaymentRequest
		if err = parse(&req); err == nil {
			r, err = b.ConfirmPayment(ctx, call, in.BookingID, req)
		}
	case "usp_bookings_cancel":
		var req usp.CancelRequest
		if err = parse(&req); err == nil {
			r, err = b.CancelBooking(ctx, call, in.BookingID, req)
		}
	case "usp_bookings_reschedule":
		var req usp.RescheduleRequest
		if err = parse(&req); err == nil {
			r, err = b.RescheduleBooking(ctx, call, in.BookingID, req)
		}
	default:
		return nil, "", &usp.Error{Code: usp.CodeServerError, Message: "The business could not process the request."}
	}
	if err != nil {
		return nil, "", err
	}
	return r, summarize(r.Messages, bookingText(r.Booking)), nil
}

// bookingText is the summary of an answer that may carry a booking.
func bookingText(k *usp.Booking) string {
	if k == nil {
		return "No booking was made."
	}
	return fmt.Sprintf("Booking %s of %s at %s is %s.", k.ID, k.ServiceName, k.Slot.Start, k.Status)
}

// callWaitlist runs the waitlist tools.
func callWaitlist(ctx context.Context, b *usp.Business, name string, call usp.Call, parse func(any) error) (any, string, error) {
	var in struct {
		EntryID string `json:"entry_id"`
	}
	if name != "usp_waitlist_join" && name != "usp_waitlist_list" {
		if err := parse(&in); err != nil {
			return nil, "", err
		}
		if in.EntryID == "" {
			return nil, "", &usp.Error{Code: usp.CodeInvalidRequest, Message: "entry_id is required."}
		}
	}
	entry := func(r *usp.WaitlistResult, err error) (any, string, error) {
		if err != nil {
			return nil, "", err
		}
		text := "The entry left the waitlist."
		if e := r.Entry; e != nil {
			text = fmt.Sprintf("Waitlist entry %s is %s, position %d.", e.ID, e.Status, e.Position)
		}
		return r, summarize(r.Messages, text), nil
	}
	switch name {
	case "usp_waitlist_join":
		var req usp.JoinRequest
		if err := parse(&req); err != nil {
			return nil, "", err
		}
		r, err := b.JoinWaitlist(ctx, call, req)
		if err == nil && r.Entry == nil {
			return r, summarize(r.Messages, "No entry was made."), nil
		}
		return entry(r, err)
	case "usp_waitlist_list":
		return tool(parse, func(in usp.WaitlistListRequest) (*usp.WaitlistListResult, error) {
			return b.ListWaitlist(ctx, call, in)
		}, func(r *usp.WaitlistListResult) string {
			return summarize(r.Messages, fmt.Sprintf("%d waitlist entries.", len(r.Entries)))
		})
	case "usp_waitlist_get":
		return entry(b.GetWaitlistEntry(ctx, call, in.EntryID))
	case "usp_waitlist_leave":
		return entry(b.LeaveWaitlist(ctx, call, in.EntryID))
	case "usp_waitlist_decline":
		return entry(b.DeclineOffer(ctx, call, in.EntryID))
	default: // usp_waitlist_accept
		return tool(parse, func(req usp.AcceptRequest) (*usp.WaitlistAcceptResult, error) {
			return b.AcceptOffer(ctx, call, in.EntryID, req)
		}, func(r *usp.WaitlistAcceptResult) string { return summarize(r.Messages, bookingText(r.Booking)) })
	}
}

func holdSummary(r *usp.HoldResult) string {
	if r.Hold == nil {
		return "No hold was made."
	}
	return fmt.Sprintf("Hold %s of %s is %s until %s.", r.Hold.ID, r.Hold.SlotID, r.Hold.Status, r.Hold.ExpiresAt)
}

func more(p usp.Pagination) string {
	if p.HasMore {
		return "; more on the next page"
	}
	return ""
}

// summarize leads with the first error message when there is one, as the
// binding's business-outcome example does.
func summarize(messages []usp.Message, text string) string {
	for _, m := range messages {
		if m.Type == "error" {
			return "Error: " + m.Content
		}
	}
	var warn []string
	for _, m := range messages {
		warn = append(warn, m.Content)
	}
	return strings.TrimSpace(text + " " + strings.Join(warn, " "))
}

func ptr[T any](v T) *T { return &v }

// CorrelationHeader is the HTTP header of the observability join (§9.7).
const CorrelationHeader = "USP-Correlation-Id"

// EchoCorrelation answers every HTTP request of the MCP binding with the
// USP-Correlation-Id it carried, as the REST binding does: when MCP runs
// over HTTP the header and _meta.usp.correlation_id are one join id.
func EchoCorrelation(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(CorrelationHeader); id != "" {
			w.Header().Set(CorrelationHeader, id)
		}
		h.ServeHTTP(w, r)
	})
}

// subscriptionSummary is the one-line summary of a feed subscription's
// answer.
func subscriptionSummary(r *usp.SubscriptionResult) string {
	text := ""
	if r.Subscription != nil {
		text = "Subscription " + r.Subscription.ID + " is " + r.Subscription.Status + "."
	}
	return summarize(r.Messages, text)
}
