package usp

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"frontdesk/store"
)

// PrintPinnedProfiles writes the pinned platform profiles as a table,
// as `frontdesk usp platform list` shows them.
func PrintPinnedProfiles(ctx context.Context, st store.Records, w io.Writer) error {
	pins, err := PinnedProfiles(ctx, st)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROFILE\tFROM\tPINNED AT")
	for _, p := range pins {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.URI, p.Source, p.PinnedAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}
