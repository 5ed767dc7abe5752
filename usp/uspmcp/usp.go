package uspmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
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
		"Returns the catalog as a feed for indexing: every service with when it last changed (state updated, or deleted with its id only), in (modified_at, id) order. Pass pagination.cursor back as cursor for the next page; limit defaults to 50 (at most 200); location_id narrows to one location. Public: no credentials."},
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
		"Books a slot for a buyer (first_name, last_name, email; phone_number optional), converting hold_id when given. Bookings are confirmed by staff by hand: the booking is pending until then and cancelled if still pending when the slot starts. No payment is taken. slot_unavailable, hold_expired and capacity_exceeded come in messages[]. Privileged; send _meta.usp.idempotency_key."},
	"usp_bookings_get": {"Get a booking",
		"Returns one booking of this platform with its status and revision. Privileged."},
	"usp_bookings_update": {"Update a booking",
		"Changes the buyer, recipient or notes of a booking that has not ended. Optional _meta.usp.if_match with the booking's revision. Privileged."},
	"usp_bookings_confirm": {"Confirm a booking",
		"The business's manual confirmation: staff only, never a platform's credentials."},
	"usp_bookings_cancel": {"Cancel a booking",
		"Cancels a pending or confirmed booking and frees its slot; no fee, nothing to refund. Another status is invalid_transition in messages[]. Optional reason and _meta.usp.if_match. Privileged."},
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

func openObject(props map[string]*jsonschema.Schema, required ...string) *jsonschema.Schema {
	if required == nil {
		required = []string{}
	}
	return &jsonschema.Schema{Type: "object", Properties: props, Required: required}
}

func uspInputSchema(name string) *jsonschema.Schema {
	text := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: d} }
	integer := func(d string) *jsonschema.Schema { return &jsonschema.Schema{Type: "integer", Description: d} }
	metaArg := openObject(map[string]*jsonschema.Schema{
		"usp": openObject(map[string]*jsonschema.Schema{
			"profile":         text("The platform's profile URI (https), for capability negotiation."),
			"correlation_id":  text("Optional join id, echoed in the result's _meta.usp."),
			"idempotency_key": text("For state-changing tools: a UUID; a retry with the same key and arguments answers the first result."),
			"if_match":        text("For booking writes: the revision the booking must still have."),
			"authorization":   openObject(map[string]*jsonschema.Schema{"mechanism": text("An accepted mechanism, such as api_key."), "credential": text("The credential, when not sent on the HTTP Authorization header.")}, "mechanism"),
		}),
	})
	props := map[string]*jsonschema.Schema{"_meta": metaArg}
	var required []string
	switch name {
	case "usp_services_list":
		props["query"] = text("Free-text search across names, descriptions and categories.")
		props["filters"] = openObject(map[string]*jsonschema.Schema{
			"type": text("Service vertical: appointment, group or reservation."), "category_id": text("Category id: lodging or timed."),
			"categories":  {Type: "array", Items: text("Category id.")},
			"location_id": text("Location id (the property slug)."),
			"price":       openObject(map[string]*jsonschema.Schema{"min": integer("Minimum price in minor units."), "max": integer("Maximum price in minor units.")}),
		})
		props["pagination"] = openObject(map[string]*jsonschema.Schema{"limit": integer("Page size, default 20, at most 100."), "cursor": {Types: []string{"string", "null"}}})
	case "usp_services_get":
		props["service_id"] = text("The service id.")
		required = []string{"service_id"}
	case "usp_services_lookup":
		props["ids"] = &jsonschema.Schema{Type: "array", Items: text("A service id.")}
		required = []string{"ids"}
	case "usp_services_feed_subscription_get", "usp_services_feed_unsubscribe", "usp_services_feed_subscription_pause", "usp_services_feed_subscription_resume":
		props["subscription_id"] = text("The subscription's id, from usp_services_feed_subscribe.")
		required = []string{"subscription_id"}
	case "usp_services_feed_subscribe":
		props["callback_url"] = text("The https URL catalog events are POSTed to.")
		props["categories"] = &jsonschema.Schema{Type: "array", Items: text("A category id: lodging or timed.")}
		props["events"] = &jsonschema.Schema{Type: "array", Items: text("service.created, service.updated, service.deleted or service.suspended.")}
		required = []string{"callback_url"}
	case "usp_services_feed":
		props["cursor"] = text("The pagination.cursor of the previous page; omit for the first.")
		props["limit"] = integer("Page size, default 50, at most 200.")
		props["location_id"] = text("Only this location's services (the property slug).")
	case "usp_availability_query":
		props["service_id"] = text("The service to query.")
		props["start_date"] = text("Start of range: RFC 3339 date or date-time.")
		props["end_date"] = text("End of range: RFC 3339 date (inclusive) or date-time (exclusive).")
		props["timezone"] = text("IANA time zone for dates and answers; default the location's.")
		props["resource_id"] = text("Only slots of this resource.")
		props["party_size"] = integer("Places needed; default 1.")
		props["location_id"] = text("Only slots at this location.")
		props["locale"] = text("BCP 47 language tag.")
		props["cursor"] = text("Cursor from the previous page.")
		props["limit"] = integer("Page size, default 50, at most 500.")
		required = []string{"service_id", "start_date", "end_date"}
	case "usp_availability_hold":
		props["service_id"] = text("The service.")
		props["slot_id"] = text("The slot to hold, from usp_availability_query.")
		props["spots"] = integer("Places or rooms to hold; default 1.")
		required = []string{"slot_id", "service_id"}
	case "usp_availability_release":
		props["hold_id"] = text("The hold to release.")
		required = []string{"hold_id"}
	case "usp_bookings_create":
		buyer := openObject(map[string]*jsonschema.Schema{"first_name": text("First name."), "last_name": text("Last name."), "email": text("Email address."), "phone_number": text("Phone number, E.164.")}, "first_name", "last_name", "email")
		props["service_id"] = text("The service to book.")
		props["slot_id"] = text("The slot, from usp_availability_query.")
		props["hold_id"] = text("A hold of this slot to convert.")
		props["buyer"] = buyer
		props["recipient"] = openObject(buyer.Properties)
		props["party_size"] = integer("Places or rooms; default 1.")
		props["resource_id"] = text("The slot's resource, when given.")
		props["notes"] = text("Notes for the business.")
		required = []string{"service_id", "slot_id", "buyer"}
	case "usp_bookings_get", "usp_bookings_confirm":
		props["booking_id"] = text("The booking id.")
		required = []string{"booking_id"}
	case "usp_bookings_update":
		buyer := openObject(map[string]*jsonschema.Schema{"first_name": text("First name."), "last_name": text("Last name."), "email": text("Email address."), "phone_number": text("Phone number.")})
		props["booking_id"] = text("The booking id.")
		props["buyer"] = buyer
		props["recipient"] = buyer
		props["notes"] = text("Notes for the business.")
		required = []string{"booking_id"}
	case "usp_bookings_cancel":
		props["booking_id"] = text("The booking id.")
		props["reason"] = text("Why it is cancelled.")
		required = []string{"booking_id"}
	case "usp_bookings_reschedule":
		props["booking_id"] = text("The booking id.")
		props["slot_id"] = text("The new slot.")
		props["hold_id"] = text("A hold of the new slot to use.")
		required = []string{"booking_id", "slot_id"}
	}
	return openObject(props, required...)
}

// New returns the MCP server of the USP binding: one usp_* tool per
// method the business serves. Protocol errors are JSON-RPC errors with
// data.code; business outcomes are results with messages[].
func New(b *usp.Business, opts mcpfront.Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "frontdesk-usp", Title: "USP business binding", Version: opts.Version}, nil)
	log := opts.Log()
	s.AddReceivingMiddleware(mcpfront.LogCalls(log, "usp"))
	for _, m := range b.Served() {
		about := uspTools[m.Name]
		tool := &mcp.Tool{
			Name: m.Name, Title: about.title, Description: about.description,
			InputSchema: uspInputSchema(m.Name),
			Annotations: &mcp.ToolAnnotations{
				Title: about.title, ReadOnlyHint: m.Access == usp.Public || m.Name == "usp_bookings_get",
				DestructiveHint: ptr(m.Name == "usp_bookings_cancel" || m.Name == "usp_availability_release"),
				// Writes are idempotent with _meta.usp.idempotency_key.
				IdempotentHint: true, OpenWorldHint: ptr(false),
			},
		}
		name := m.Name
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			res, err := callUSP(withSession(ctx, req.Session), b, name, req)
			outcome := "ok"
			if err != nil {
				e, internal := usp.AsError(err)
				outcome = "refused"
				if internal {
					outcome = "error"
					log.ErrorContext(ctx, "usp tool failed", "tool", name, "err", err)
				}
				mcpfront.ReportOutcome(ctx, string(e.Code), internal)
				err = rpcError(e, correlationOf(req))
			}
			if opts.Metrics != nil {
				opts.Metrics.ToolCalls.WithLabelValues("usp", name, outcome).Inc()
				opts.Metrics.ToolSeconds.WithLabelValues("usp", name).Observe(time.Since(start).Seconds())
			}
			return res, err
		})
	}
	return s
}

func correlationOf(req *mcp.CallToolRequest) string {
	var m meta
	_ = json.Unmarshal(req.Params.Arguments, &m) // checked or written by this code already; what does not decode reads as empty
	return m.Meta.USP.CorrelationID
}

// rpcError renders a protocol error as the JSON-RPC error of §9.4.3: the
// code's bucket number, the code as message and data.code, and the
// correlation id echoed.
func rpcError(e *usp.Error, correlation string) error {
	data := map[string]string{"code": string(e.Code), "content": e.Message}
	if e.Nonce != "" {
		data["nonce"] = e.Nonce // proof_nonce_required: retry with a proof carrying it
	}
	if correlation != "" {
		data["correlation_id"] = correlation
	}
	raw, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: e.Code.RPCCode(), Message: string(e.Code), Data: raw}
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
	}
	parse := func(v any) error {
		if err := json.Unmarshal(raw, v); err != nil {
			return &usp.Error{Code: usp.CodeInvalidRequest, Message: "Tool arguments do not have the types " + name + " takes: " + err.Error()}
		}
		return nil
	}
	var (
		res     any
		summary string
		err     error
	)
	switch name {
	case "usp_services_list":
		var in usp.ListRequest
		if err = parse(&in); err == nil {
			var r *usp.ListResult
			if r, err = b.ListServices(ctx, call, in); err == nil {
				res, summary = r, summarize(r.Messages, fmt.Sprintf("%d services%s.", len(r.Services), more(r.Pagination)))
			}
		}
	case "usp_services_get":
		var in struct {
			ServiceID string `json:"service_id"`
		}
		if err = parse(&in); err == nil {
			var r *usp.GetResult
			if r, err = b.GetService(ctx, call, in.ServiceID); err == nil {
				text := ""
				if r.Service != nil {
					text = r.Service.Name + " (" + r.Service.Type + ")."
				}
				res, summary = r, summarize(r.Messages, text)
			}
		}
	case "usp_services_lookup":
		var in usp.LookupRequest
		if err = parse(&in); err == nil {
			var r *usp.LookupResult
			if r, err = b.LookupServices(ctx, call, in); err == nil {
				res, summary = r, summarize(r.Messages, fmt.Sprintf("%d of %d services found.", len(r.Services), len(in.IDs)))
			}
		}
	case "usp_services_feed_subscription_get", "usp_services_feed_unsubscribe", "usp_services_feed_subscription_pause", "usp_services_feed_subscription_resume":
		var in struct {
			SubscriptionID string `json:"subscription_id"`
		}
		if err = parse(&in); err == nil {
			var r *usp.SubscriptionResult
			if r, err = b.SubscriptionOp(ctx, call, name, in.SubscriptionID); err == nil {
				text := ""
				if r.Subscription != nil {
					text = "Subscription " + r.Subscription.ID + " is " + r.Subscription.Status + "."
				}
				res, summary = r, summarize(r.Messages, text)
			}
		}
	case "usp_services_feed_subscribe":
		var in usp.SubscribeRequest
		if err = parse(&in); err == nil {
			var r *usp.SubscriptionResult
			if r, err = b.Subscribe(ctx, call, in); err == nil {
				text := ""
				if r.Subscription != nil {
					text = "Subscription " + r.Subscription.ID + " is " + r.Subscription.Status + "."
				}
				res, summary = r, summarize(r.Messages, text)
			}
		}
	case "usp_services_feed":
		var in usp.FeedRequest
		if err = parse(&in); err == nil {
			var r *usp.FeedResult
			if r, err = b.Feed(ctx, call, in); err == nil {
				res, summary = r, summarize(r.Messages, fmt.Sprintf("%d feed records%s.", len(r.Items), more(r.Pagination)))
			}
		}
	case "usp_availability_query":
		var in usp.QueryRequest
		if err = parse(&in); err == nil {
			var r *usp.QueryResult
			if r, err = b.QueryAvailability(ctx, call, in); err == nil {
				text := fmt.Sprintf("%d open slots for %s%s.", len(r.Slots), r.ServiceID, more(r.Pagination))
				if len(r.Slots) > 0 {
					text = fmt.Sprintf("%d open slots for %s from %s%s.", len(r.Slots), r.ServiceID, r.Slots[0].Start, more(r.Pagination))
				}
				res, summary = r, summarize(r.Messages, text)
			}
		}
	case "usp_availability_hold":
		var in usp.HoldRequest
		if err = parse(&in); err == nil {
			var r *usp.HoldResult
			if r, err = b.HoldSlot(ctx, call, in); err == nil {
				res, summary = r, summarize(r.Messages, holdSummary(r))
			}
		}
	case "usp_availability_release":
		var in struct {
			HoldID string `json:"hold_id"`
		}
		if err = parse(&in); err == nil {
			if in.HoldID == "" {
				err = &usp.Error{Code: usp.CodeInvalidRequest, Message: "hold_id is required."}
				break
			}
			var r *usp.HoldResult
			if r, err = b.ReleaseSlot(ctx, call, in.HoldID); err == nil {
				res, summary = r, summarize(r.Messages, holdSummary(r))
			}
		}
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
	text := "No booking was made."
	if k := r.Booking; k != nil {
		text = fmt.Sprintf("Booking %s of %s at %s is %s.", k.ID, k.ServiceName, k.Slot.Start, k.Status)
	}
	return r, summarize(r.Messages, text), nil
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
