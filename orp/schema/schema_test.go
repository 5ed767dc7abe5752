package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"frontdesk/internal/golden"
	"frontdesk/orp/schema"
)

// Example is one JSON block of the specification with the marker that
// precedes it.
type Example struct {
	N      int
	Marker string // "", "invalid", "skip" or "0.4"
	JSON   []byte
}

var block = regexp.MustCompile("(?s)(<!-- orp:([a-z0-9.]+) -->\n)?```json\n(.*?)```")

// specPath is the ORP specification's text: the file FRONTDESK_ORP_SPEC
// names, else ../shared/spec/orp.md beside the repository. The text is not
// yet published under a licence, so it is not copied into the repository;
// its JSON examples are kept in testdata/examples and every other test
// reads those.
func specPath() string {
	if p := os.Getenv("FRONTDESK_ORP_SPEC"); p != "" {
		return p
	}
	return filepath.Join("..", "..", "..", "shared", "spec", "orp.md")
}

// specExamples extracts every JSON block of the specification, numbered in
// order, with the marker comment before it.
func specExamples(spec []byte) []Example {
	var out []Example
	for i, m := range block.FindAllSubmatch(spec, -1) {
		out = append(out, Example{N: i + 1, Marker: string(m[2]), JSON: m[3]})
	}
	return out
}

func (e Example) name() string {
	name := fmt.Sprintf("%02d", e.N)
	if e.Marker != "" {
		name += "-" + strings.ReplaceAll(e.Marker, ".", "")
	}
	return name
}

// examples reads the specification's JSON examples from testdata/examples,
// named NN or NN-marker.
func examples(t *testing.T) []Example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "examples", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	markers := map[string]string{"04": "0.4", "invalid": "invalid", "skip": "skip"}
	var out []Example
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		num, marker, _ := strings.Cut(base, "-")
		var e Example
		if _, err := fmt.Sscanf(num, "%d", &e.N); err != nil {
			t.Fatalf("example file %s: %v", f, err)
		}
		e.Marker = markers[marker]
		if e.JSON, err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// TestExamplesMatchTheSpecification checks that testdata/examples holds
// exactly the specification's JSON blocks, byte for byte (rewritten with
// -update). It needs the specification's text, and skips without it
// (.ci/skips-allowed names it): the stored examples are checked either way.
func TestExamplesMatchTheSpecification(t *testing.T) {
	spec, err := os.ReadFile(specPath())
	if err != nil {
		t.Skipf("the ORP specification's text is not here (%v); set FRONTDESK_ORP_SPEC to orp.md to compare the stored examples with it", err)
	}
	ex := specExamples(spec)
	for _, e := range ex {
		golden.Check(t, filepath.Join("examples", e.name()+".json"), e.JSON)
	}
	if stored := examples(t); len(stored) != len(ex) {
		t.Fatalf("testdata/examples holds %d examples, the specification %d", len(stored), len(ex))
	}
}

// schemaFor says which schema a valid example belongs to, by its shape.
func schemaFor(t *testing.T, doc map[string]any) string {
	switch doc["orp"].(type) {
	case string:
		return schema.Message
	case []any:
		return schema.Discovery
	}
	switch {
	case doc["steps"] != nil && doc["budget"] != nil:
		return schema.Constraints
	case doc["text"] != nil:
		return schema.SuggestRequest
	case doc["party"] != nil && doc["token"] != nil:
		return schema.JoinResponse
	}
	t.Fatalf("no schema for example %v", doc)
	return ""
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

func set(t *testing.T) *schema.Set {
	t.Helper()
	s, err := schema.New()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSpecExamples checks every JSON example of the specification:
// a valid example validates, an invalid one fails, and a skipped one is a
// template whose placeholders fail too. The 0.4 examples are checked for
// envelope shape; the host refuses them with unsupported_version (E2).
func TestSpecExamples(t *testing.T) {
	s := set(t)
	ex := examples(t)
	if len(ex) != 26 {
		t.Fatalf("found %d JSON examples in the specification, want 26", len(ex))
	}
	for _, e := range ex {
		t.Run(e.name(), func(t *testing.T) {
			doc := decode(t, e.JSON)
			if e.Marker == "invalid" || e.Marker == "skip" {
				// A skipped example is a template whose placeholders
				// ("p_<random>") must not pass for real values.
				if s.Validate(schema.Message, doc) == nil {
					t.Fatalf("%s example validates", e.Marker)
				}
				return
			}
			err := s.Validate(schemaFor(t, doc.(map[string]any)), doc)
			if e.Marker == "invalid" {
				if err == nil {
					t.Fatalf("invalid example validates")
				}
				return
			}
			if err != nil {
				t.Fatalf("valid example fails: %v", err)
			}
		})
	}
}

// TestInvalidMessages checks hand-written invalid messages: each must fail
// at the JSON Pointer named in the file name's companion table.
func TestInvalidMessages(t *testing.T) {
	s := set(t)
	want := map[string]string{
		"semver-version.json":           "/orp",
		"unknown-envelope-field.json":   "/email",
		"unknown-body-field.json":       "/body/email",
		"pr68-party-id.json":            "/from",
		"hex-hash.json":                 "/body/terms_hash",
		"short-id.json":                 "/id",
		"offset-timestamp.json":         "/ts",
		"agent-parentheses.json":        "/agent/name",
		"unknown-obligation-field.json": "/body/terms/obligations/0/buyer_email",
		"pay-field-on-place.json":       "/body/terms/obligations/0/rate_bps",
		"request-without-to.json":       "/to",
		"accept-without-deal.json":      "/body/offer",
		"outcome-full-url-source.json":  "/body/rows/0/sources/0/source",
		"float-amount.json":             "/body/terms/obligations/1/amount/amount_minor",
		"too-many-ext.json":             "/ext",
		"space-put-with-status.json":    "/body",
	}
	files, err := filepath.Glob(filepath.Join("testdata", "invalid", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Fatalf("%d invalid examples, %d expectations", len(files), len(want))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(schema.Message, decode(t, b))
			p, ok := err.(*schema.Problem)
			if !ok {
				t.Fatalf("Validate = %v, want a *Problem", err)
			}
			if p.Pointer != want[name] {
				t.Fatalf("pointer = %q (%s), want %q", p.Pointer, p.Detail, want[name])
			}
		})
	}
}

// TestSchemasAreClosed checks that every object schema in the files that
// declares properties also refuses unknown ones, as §2 requires, except
// the open ext, legacy and body-dispatch objects.
func TestSchemasAreClosed(t *testing.T) {
	open := map[string]bool{"envelope.schema.json#/properties/body": true, "envelope.schema.json#/properties/ext": true,
		"discovery.schema.json#/properties/legacy":  true,
		"0.4/envelope.schema.json#/properties/body": true, "0.4/envelope.schema.json#/properties/ext": true,
		"0.4/discovery.schema.json#/properties/legacy": true}
	err := filepath.Walk(filepath.Join("files"), func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel("files", path)
		walkObjects(doc, rel+"#", func(at string, obj map[string]any) {
			if obj["type"] != "object" || open[at] || (strings.HasPrefix(at, "messages/") || strings.HasPrefix(at, "0.4/messages/")) && strings.HasSuffix(at, ".schema.json#") {
				return
			}
			_, ap := obj["additionalProperties"]
			_, up := obj["unevaluatedProperties"]
			if !ap && !up && obj["properties"] != nil {
				t.Errorf("%s: object schema is open", at)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func walkObjects(v any, at string, fn func(string, map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(at, v)
		for k, c := range v {
			walkObjects(c, at+"/"+k, fn)
		}
	case []any:
		for i, c := range v {
			walkObjects(c, fmt.Sprintf("%s/%d", at, i), fn)
		}
	}
}
