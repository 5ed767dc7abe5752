package forget

import (
	"slices"
	"testing"
)

func TestCheck(t *testing.T) {
	waiting := func(string, []byte) (string, bool) { return "", false }
	good := []Kind{{Name: "a", Keeps: "x", Forget: Search}, {Name: "b", Keeps: "y", Forget: SearchWaiting, Waiting: waiting}}
	if err := Check(good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]Kind{
		{{Name: "a", Keeps: "x"}, {Name: "a", Keeps: "y"}},
		{{Name: "a"}},
		{{Name: "a", Keeps: "x", Forget: SearchWaiting}},
		{{Name: "a", Keeps: "x", Waiting: waiting}},
	} {
		if Check(bad) == nil {
			t.Errorf("Check(%+v) passed", bad)
		}
	}
}

func TestMissingAndNames(t *testing.T) {
	kinds := []Kind{{Name: "a", Keeps: "x", Forget: Search}, {Name: "b", Keeps: "y", Forget: ByMailbox}, {Name: "c", Keeps: "z", Forget: Search}}
	if got := Missing(kinds, []string{"z", "a", "y", "z"}); !slices.Equal(got, []string{"y", "z"}) {
		t.Errorf("Missing = %v", got)
	}
	if got := Names(kinds, Search); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Names = %v", got)
	}
}
