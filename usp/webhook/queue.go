package webhook

import (
	"context"
	"time"

	"frontdesk/internal/metrics"
	"frontdesk/store"
)

// Depth reads the outbox as monitoring shows it at now: the events
// waiting (up to 1,000), the oldest one's age and the events given up.
func Depth(ctx context.Context, st store.Records, now time.Time) (metrics.Queue, error) {
	events, oldest, err := store.Oldest(ctx, st, Kind, 1000)
	if err != nil {
		return metrics.Queue{}, err
	}
	dead, _, err := store.Oldest(ctx, st, DeadKind, 1000)
	if err != nil {
		return metrics.Queue{}, err
	}
	return metrics.Queue{Name: "webhook", Depth: events, OldestSeconds: metrics.Age(now, oldest), Dead: dead}, nil
}
