package keyset

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Print writes the keys the profile publishes at now and what each does,
// as `frontdesk usp keys list` shows them.
func (ks Set) Print(ctx context.Context, now time.Time, out io.Writer) error {
	keys, err := ks.Keys(ctx, now)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY ID\tSIGNS FROM\tSTATE")
	for _, k := range keys {
		state := "signing"
		switch {
		case now.Before(k.ActiveFrom):
			state = "published, not yet signing"
		case !k.RetiredAt.IsZero() && !now.Before(k.RetiredAt):
			state = "retired, verifies until " + k.RetiredAt.Add(max(ks.Grace, MinGrace)).UTC().Format(time.RFC3339)
		case !k.RetiredAt.IsZero():
			state = "signing until " + k.RetiredAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.ID, k.ActiveFrom.UTC().Format(time.RFC3339), state)
	}
	return tw.Flush()
}
