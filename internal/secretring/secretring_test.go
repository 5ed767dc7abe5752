package secretring_test

import (
	"strings"
	"testing"

	"frontdesk/internal/secretring"
)

func TestParse(t *testing.T) {
	k1, k2 := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	vs, err := secretring.Parse(" 2:" + k2 + "\n1:" + k1 + ",\r\n")
	if err != nil || len(vs) != 2 || vs[0].N != 1 || vs[1].N != 2 || vs[0].Key[0] != 0xab {
		t.Fatalf("Parse = %+v, %v; want versions 1 and 2, oldest first", vs, err)
	}
	if vs, err := secretring.Parse(""); err != nil || len(vs) != 0 {
		t.Fatalf("empty: %+v, %v", vs, err)
	}
	for _, bad := range []string{"1" + k1, "0:" + k1, "x:" + k1, "1:zz", "1:" + k1[:62], "1:" + k1 + ",1:" + k2} {
		_, err := secretring.Parse(bad)
		if err == nil {
			t.Errorf("Parse(%q) accepted it", bad)
		} else if strings.Contains(err.Error(), k1[:8]) {
			t.Errorf("Parse(%q) error shows the key: %v", bad, err)
		}
	}
}
