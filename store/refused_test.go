package store

import "testing"

// TestWriteErrorRefused: a refused write is told by what it is, not by
// where it stood in the batch.
func TestWriteErrorRefused(t *testing.T) {
	rec := func(kind, key string) Write { return Write{Op: OpCreate, Record: Record{Kind: kind, Key: key}} }
	e := &WriteError{Index: 0, Write: rec("payment-event", "stripe evt_1"), Err: ErrExists}
	for _, tc := range []struct {
		w    Write
		want bool
	}{
		{rec("payment-event", "stripe evt_1"), true},
		{rec("payment-event", "stripe evt_2"), false},
		{rec("payment", "stripe evt_1"), false},
		{Write{Op: OpSwap, Record: Record{Kind: "payment-event", Key: "stripe evt_1"}}, false},
		{Write{Op: OpCreate, Hold: &Hold{ID: "stripe evt_1"}}, false},
	} {
		if got := e.Refused(tc.w); got != tc.want {
			t.Errorf("Refused(%v %s/%s) = %v, want %v", tc.w.Op, tc.w.Record.Kind, tc.w.Record.Key, got, tc.want)
		}
	}
	hold := &WriteError{Write: Write{Op: OpHold, Hold: &Hold{ID: "h1"}}, Err: ErrFull}
	if !hold.Refused(Write{Op: OpHold, Hold: &Hold{ID: "h1", Units: 2}}) || hold.Refused(Write{Op: OpHold, Hold: &Hold{ID: "h2"}}) {
		t.Error("a hold is told by its id")
	}
	tally := &WriteError{Write: Write{Op: OpTake, Tally: &Tally{Name: "codes", Bucket: 7}}, Err: ErrFull}
	if !tally.Refused(Write{Op: OpTake, Tally: &Tally{Name: "codes", Bucket: 7, Limit: 3}}) || tally.Refused(Write{Op: OpTake, Tally: &Tally{Name: "other", Bucket: 7}}) {
		t.Error("a counter is told by its name and bucket")
	}
}
