package store

import (
	"context"
	"time"
)

// Oldest counts the records of kind, at most limit, and finds when the
// oldest of them was last written (zero when there is none): the depth
// and age of a queue kept as records.
func Oldest(ctx context.Context, st Records, kind string, limit int) (int, time.Time, error) {
	rs, err := st.List(ctx, kind, "", "", limit)
	if err != nil {
		return 0, time.Time{}, err
	}
	var oldest time.Time
	for _, r := range rs {
		if oldest.IsZero() || r.UpdatedAt.Before(oldest) {
			oldest = r.UpdatedAt
		}
	}
	return len(rs), oldest, nil
}
