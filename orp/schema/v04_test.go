package schema_test

import (
	"os"
	"path/filepath"
	"testing"

	"frontdesk/orp/schema"
)

// TestSpecExamples04 checks the specification's ORP 0.4 examples (the
// freshness offer of §20.4 and the referral chain deal of §20.6) against
// the 0.4 schemas, which they now must satisfy in full.
func TestSpecExamples04(t *testing.T) {
	s := set(t)
	files, err := filepath.Glob(filepath.Join("testdata", "examples", "*-04.json"))
	if err != nil || len(files) != 2 {
		t.Fatalf("0.4 examples = %v %v, want 2", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(schema.Message, decode(t, b)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	// The 0.4 rules bite: a role outside the eight, a percent over 100,
	// and leave on 0.3.
	for name, c := range map[string]struct{ doc, pointer string }{
		"unknown role": {`{"orp":"0.4","type":"offer","id":"m_test_0001","ts":"2026-10-26T12:00:00Z","from":"orp:hub.example/p_a","body":{"terms":{"title":"t","obligations":[{"id":"place","by":"acceptor","action":"place","proof":["link"]}]},
			"parties":[{"id":"orp:hub.example/p_a","role":"boss","required":true},{"id":"orp:hub.example/p_b","role":"acceptor","required":true}]}}`, "/body/parties/0/role"},
		"percent over 100": {`{"orp":"0.4","type":"offer","id":"m_test_0001","ts":"2026-10-26T12:00:00Z","from":"orp:hub.example/p_a","body":{"terms":{"title":"t","obligations":[{"id":"place","by":"acceptor","action":"place","proof":["link"]}]},
			"parties":[{"id":"orp:hub.example/p_a","role":"offerer","required":true,"terms":{"percent":101}},{"id":"orp:hub.example/p_b","role":"acceptor","required":true}]}}`, "/body/parties/0/terms/percent"},
		"leave on 0.3": {`{"orp":"0.3","type":"leave","id":"m_test_0001","ts":"2026-10-26T12:00:00Z","from":"orp:hub.example/p_a","deal":"deal_1","body":{}}`, "/type"},
	} {
		err := s.Validate(schema.Message, decode(t, []byte(c.doc)))
		p, ok := err.(*schema.Problem)
		if !ok || p.Pointer != c.pointer {
			t.Errorf("%s: %v, want a problem at %s", name, err, c.pointer)
		}
	}
}
