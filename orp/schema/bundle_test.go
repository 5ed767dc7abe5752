package schema

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestBundleValidatesLikeTheFiles: each bundled request schema, compiled
// on its own with nothing else to fetch, accepts and refuses what the
// schema files do.
func TestBundleValidatesLikeTheFiles(t *testing.T) {
	set, err := New()
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]string{
		JoinRequest: {`{}`, `{"agent":{"name":"agent one","version":"1"}}`, `{"agent":{"name":"bad (name)","version":"1"}}`,
			`{"email":"a@b.example"}`, `{"key":{"kty":"OKP","crv":"Ed25519","x":"kdyMDwk4CBcDCgiyPImPfJuJr-2QdJ7l72X-4lztu1o"}}`, `{"key":{"kty":"RSA"}}`},
		SuggestRequest: {`{"text":"a draft"}`, `{}`, `{"text":"x","limit":21}`, `{"text":"x","platform":"newsletter","join":{}}`,
			`{"text":"x","platform":"fax"}`, `{"text":"x","join":{"domain":"x.example"}}`, `{"text":"x","lang":"en-GB","space_kind":"newsletter.issue"}`},
	}
	for name, cases := range docs {
		b, err := Bundle(name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("defs.schema.json")) || bytes.Contains(b, []byte(`"$id"`)) {
			t.Fatalf("%s bundle still refers to other files: %s", name, b)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///bundle.json", doc); err != nil {
			t.Fatal(err)
		}
		bundled, err := c.Compile("mem:///bundle.json")
		if err != nil {
			t.Fatalf("%s bundle does not compile: %v", name, err)
		}
		for _, d := range cases {
			v, _ := jsonschema.UnmarshalJSON(strings.NewReader(d))
			want := set.Validate(name, v) == nil
			if got := bundled.Validate(v) == nil; got != want {
				t.Errorf("%s: bundle accepts %s = %v, the files say %v", name, d, got, want)
			}
		}
	}
}
