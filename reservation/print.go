package reservation

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"frontdesk/store"
)

// StateNames lists every state, comma-separated.
func StateNames() string {
	var names []string
	for _, s := range States() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// PrintList writes every reservation list gives for f, page by page, as
// `frontdesk staff list` shows them.
func PrintList(ctx context.Context, list func(context.Context, store.ReservationFilter) ([]Reservation, error), f store.ReservationFilter, out io.Writer) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REFERENCE\tLOCATION\tUNIT\tARRIVAL\tDEPARTURE\tNIGHTS\tSTATE\tSOURCE\tATTENTION")
	for {
		page, err := list(ctx, f)
		if err != nil {
			return err
		}
		for _, r := range page {
			// A stay of nights shows its departure, the day after its last
			// night; a timed booking its start and its slot count.
			arrival, departure, nights := r.FirstSlot(), "-", fmt.Sprint(len(r.Slots))
			if in, out, err := r.Stay(); err == nil {
				arrival, departure = in.String(), out.String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Reference, r.Location, r.Unit, arrival, departure, nights, r.State, r.Source, r.Attention)
		}
		if len(page) < f.Limit {
			break
		}
		f.After = store.ReservationCursor{FirstSlot: page[len(page)-1].FirstSlot(), Reference: page[len(page)-1].Reference}
	}
	return tw.Flush()
}

// PrintSetAside writes the events set aside, as `frontdesk outbox list`
// shows them.
func PrintSetAside(w io.Writer, aside []Failure) error {
	if len(aside) == 0 {
		fmt.Fprintln(w, "No event is set aside.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONSUMER\tPOSITION\tREFERENCE\tCHANGE\tATTEMPTS\tFIRST FAILED\tLAST FAILED\tERROR")
	for _, f := range aside {
		change := string(f.Event.From) + ">" + string(f.Event.To)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\n", f.Consumer, f.Position, f.Reference, change, f.Attempts,
			f.First.Format(time.RFC3339), f.Last.Format(time.RFC3339), f.Error)
	}
	return tw.Flush()
}
