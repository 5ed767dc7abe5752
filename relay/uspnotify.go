package relay

import (
	"context"
	"encoding/json"
	"time"
)

// USP webhooks as MCP notifications across a split deployment. A
// platform's MCP session lives at the hub, which forwards its tool calls
// to the locations; a location's webhook events are its own. So a
// location offers each event's body to the hub, which sends it on the
// streams of that platform's sessions as one process does. It is best
// effort like the notification itself: the signed HTTP webhook is the
// durable delivery, and never waits long for this.

// OpUSPNotify is a webhook body offered to a platform's MCP sessions at
// the hub: a location calls it there.
const OpUSPNotify = "usp_notify"

// uspNotifyLimit bounds a location's offer of one notification, which
// comes before the event's HTTP webhook.
const uspNotifyLimit = 2 * time.Second

// Notifier offers a webhook body to a platform's MCP sessions in this
// process and returns how many streams it reached (uspmcp.Webhooks.Notify).
type Notifier func(ctx context.Context, platform string, body []byte) int

// uspNotice is OpUSPNotify's arguments.
type uspNotice struct {
	Platform string          `json:"platform"`
	Body     json.RawMessage `json:"body"`
}

// ServeUSPNotify makes the hub offer the locations' webhook bodies to
// its MCP sessions with notify. Elsewhere it does nothing.
func (s *Split) ServeUSPNotify(notify Notifier) {
	if s == nil || s.Backend == nil {
		return
	}
	s.Server.Add(OpUSPNotify, Operation{Run: func(ctx context.Context, call Call) (any, error) {
		var a uspNotice
		if err := json.Unmarshal(call.Args, &a); err != nil || a.Platform == "" || !json.Valid(a.Body) {
			return nil, s.Server.worded(CodeUnknownOperation, "")
		}
		return notify(ctx, a.Platform, a.Body), nil
	}})
}

// USPNotify is what the webhook outbox of this process calls for an
// event's first attempt: local's sessions, and at a location of a split
// the hub's too, where the platforms' sessions are.
func (s *Split) USPNotify(local Notifier) func(ctx context.Context, platform string, body []byte) {
	return func(ctx context.Context, platform string, body []byte) {
		local(ctx, platform, body)
		if s == nil || s.hub == nil {
			return
		}
		ctx, cancel := context.WithTimeout(ctx, uspNotifyLimit)
		defer cancel()
		if err := s.hub.Call(ctx, hubSlug, OpUSPNotify, Lookup, uspNotice{Platform: platform, Body: body}, nil); err != nil {
			s.log.WarnContext(ctx, "usp notification not offered to the hub", "platform", platform, "err", err)
		}
	}
}
