package mcpfront

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestQuickCheckNeverPassesWhatTheValidatorRefuses: for the shape of
// schema the tools use, the quick check lets through only arguments the
// validator accepts, and it does let the ordinary ones through, or it
// would spare nothing. A schema with any other keyword gets no quick
// check at all.
func TestQuickCheckNeverPassesWhatTheValidatorRefuses(t *testing.T) {
	one := 1.0
	page := &jsonschema.Schema{Type: "integer", Minimum: &one, Description: "Page."}
	schema := Object([]string{"property", "checkin", "page"}, map[string]*jsonschema.Schema{
		"property": Str(5, "Property."), "checkin": Str(10, "Arrival."), "page": page,
	}, "checkin")
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	quick := newQuickCheck(schema)
	if quick == nil {
		t.Fatal("no quick check for an object of bounded strings and integers")
	}
	tests := []struct {
		args     string
		validity bool // what the validator says
	}{
		{`{"checkin":"2026-01-01"}`, true},
		{`{"checkin":"2026-01-01","property":"río","page":2}`, true},
		{`{"checkin":"2026-01-01","page":1.0}`, true},
		{`{"checkin":"2026-01-01","property":"ríoxy"}`, true}, // five code points, six bytes
		{`{"checkin":"2026-01-01","property":"riverside"}`, false},
		{`{"checkin":"2026-01-01","page":0}`, false},
		{`{"checkin":"2026-01-01","page":1.5}`, false},
		{`{"checkin":"2026-01-01","page":"2"}`, false},
		{`{"checkin":2026}`, false},
		{`{"checkin":null}`, false},
		{`{"checkin":"2026-01-01","extra":1}`, false},
		{`{"property":"x"}`, false},
		{`{}`, false},
		{` { "checkin" : "2026-01-01" , "page" : 3 } `, true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			var args map[string]any
			if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
				t.Fatal(err)
			}
			valid := resolved.Validate(args) == nil
			if valid != tt.validity {
				t.Fatalf("validator says %v, the table %v", valid, tt.validity)
			}
			if got := quick.passes(args); got != valid {
				t.Errorf("quick check passes = %v, want %v (the validator's answer)", got, valid)
			}
			if got := quick.passesRaw([]byte(tt.args)); got != valid {
				t.Errorf("quick check passesRaw = %v, want %v (the validator's answer)", got, valid)
			}
		})
	}
	// What the bytes alone cannot settle as encoding/json would goes to
	// the map and the validator.
	for _, raw := range []string{
		`{"checkin":"2026-01-01","page":1e400}`, `{"checkin":"2026-01-01","checkin":"2026-01-02"}`,
		`{"checkin":"2026-01-\u0030"}`, "{\"checkin\":\"2026-01-\xff\"}", `{"checkin":"2026-01-01"`, `null`, ``, `[]`,
	} {
		if quick.passesRaw([]byte(raw)) {
			t.Errorf("passesRaw(%s) = true, want false", raw)
		}
	}
	for name, s := range map[string]*jsonschema.Schema{
		"pattern":    Object([]string{"a"}, map[string]*jsonschema.Schema{"a": {Type: "string", Pattern: "^x$"}}),
		"number":     Object([]string{"a"}, map[string]*jsonschema.Schema{"a": {Type: "number"}}),
		"enum":       Object([]string{"a"}, map[string]*jsonschema.Schema{"a": {Type: "string", Enum: []any{"x"}}}),
		"open":       {Type: "object", Properties: map[string]*jsonschema.Schema{"a": Str(3, "")}},
		"min length": Object([]string{"a"}, map[string]*jsonschema.Schema{"a": {Type: "string", MinLength: &[]int{2}[0]}}),
	} {
		if newQuickCheck(s) != nil {
			t.Errorf("a schema with %s has a quick check", name)
		}
	}
}
