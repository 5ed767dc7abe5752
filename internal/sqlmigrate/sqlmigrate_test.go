package sqlmigrate

import (
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name  string
		files fstest.MapFS
		want  int // migrations loaded; 0 for an error
	}{
		{"in order", fstest.MapFS{"m/0001_a.sql": file("A"), "m/0002_b.sql": file("B")}, 2},
		{"gap", fstest.MapFS{"m/0001_a.sql": file("A"), "m/0003_c.sql": file("C")}, 0},
		{"not numbered", fstest.MapFS{"m/0001_a.sql": file("A"), "m/x_b.sql": file("B")}, 0},
		{"starts at two", fstest.MapFS{"m/0002_b.sql": file("B")}, 0},
		{"empty", fstest.MapFS{"m/.keep": nil}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := Load(tt.files, "m")
			if tt.want == 0 {
				if err == nil {
					t.Fatalf("Load = %v, want an error", ms)
				}
				return
			}
			if err != nil || len(ms) != tt.want {
				t.Fatalf("Load = %d migrations, %v; want %d, nil", len(ms), err, tt.want)
			}
			for i, m := range ms {
				if m.Version != i+1 {
					t.Errorf("migration %d has version %d", i, m.Version)
				}
			}
			if got, want := ms[1].Name+" "+ms[1].SQL, "0002_b.sql B"; got != want {
				t.Errorf("second migration = %q, want %q", got, want)
			}
		})
	}
}
