package mcpfront

import (
	"encoding/json"
	"reflect"
	"strings"
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

// stayArgs is an input of the read tools' shape: strings, aliases of one
// argument, an optional integer and a plain one.
type stayArgs struct {
	Property  string `json:"property"`
	RoomType  string `json:"roomtype"`
	RoomTypeC string `json:"roomType"`
	Checkin   string `json:"checkin"`
	Guests    *int   `json:"guests"`
	Page      int    `json:"page,omitempty"`
}

func stayCheck(t testing.TB) (*quickCheck, *jsonschema.Resolved) {
	t.Helper()
	one := 1.0
	schema := Object([]string{"property", "roomtype", "roomType", "checkin", "guests", "page"}, map[string]*jsonschema.Schema{
		"property": Str(20, "Property."), "roomtype": Str(20, "Room type."), "roomType": Str(20, "Room type."),
		"checkin": Str(10, "Arrival."), "guests": {Type: "integer", Minimum: &one}, "page": {Type: "integer", Minimum: &one},
	}, "property")
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	quick := newQuickCheck(schema).bind(reflect.TypeFor[stayArgs]())
	if quick == nil || quick.in == nil {
		t.Fatal("the quick check is not bound to an input of strings, an int and an *int")
	}
	return quick, resolved
}

// checkDecode holds decode to what it promises for raw: when it says
// yes, raw is JSON the validator accepts, and it decoded exactly what
// encoding/json decodes.
func checkDecode(t *testing.T, quick *quickCheck, resolved *jsonschema.Resolved, raw []byte) bool {
	t.Helper()
	var got stayArgs
	if !quick.decode(raw, &got) {
		return false
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		t.Fatalf("decode accepted %q, which is not a JSON object: %v", raw, err)
	}
	if err := resolved.Validate(args); err != nil {
		t.Fatalf("decode accepted %q, which the validator refuses: %v", raw, err)
	}
	var want stayArgs
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("decode accepted %q, which encoding/json refuses: %v", raw, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decode(%q) = %+v, encoding/json %+v", raw, got, want)
	}
	return true
}

// TestQuickDecodeIsEncodingJSONs: the ordinary arguments are decoded
// without encoding/json, into exactly what it would decode; anything it
// reads differently, or refuses, is left to it.
func TestQuickDecodeIsEncodingJSONs(t *testing.T) {
	quick, resolved := stayCheck(t)
	for _, raw := range []string{
		`{"property":"riverside"}`,
		`{"property":"riverside","roomType":"double","checkin":"2027-01-05","guests":2}`,
		`{"property":"río","roomtype":"twin","guests":1,"page":3}`,
		" {\t\"property\" :\n\"x\" , \"page\" : 12 }\r\n",
		`{"checkin":"2027-01-05","property":"a b"}`,
	} {
		if !checkDecode(t, quick, resolved, []byte(raw)) {
			t.Errorf("decode(%s) said no to ordinary arguments", raw)
		}
	}
	for _, raw := range []string{
		`{"property":"x","guests":2.0}`, // encoding/json refuses 2.0 for an int
		`{"property":"x","guests":2e0}`,
		`{"property":"x","guests":99999999999999999999}`,
		`{"property":"x","guests":0}`,
		`{"property":"x","guests":"2"}`,
		`{"property":"x","guests":null}`,
		`{"property":"x","page":[1]}`,
		`{"property":"x\u0041"}`,
		"{\"property\":\"x\ty\"}",
		"{\"property\":\"\xff\"}",
		`{"property":"x","property":"y"}`,
		`{"property":"x","Property":"y"}`,
		`{"property":"x","extra":1}`,
		`{"roomtype":"twin"}`,
		`{"property":"x"} {}`,
		`{"property":"x",}`,
		`{"property":"x"`,
		`{"property":01}`,
		`{"property":"x","page":-}`,
		`{"property":"x","page":1.}`,
		`{"property":"x","page":1e}`,
		`[{"property":"x"}]`,
		`null`, ``, `{}`,
	} {
		if checkDecode(t, quick, resolved, []byte(raw)) {
			t.Errorf("decode(%s) said yes", raw)
		}
	}
	// Bound only to an input whose fields it can fill as encoding/json does.
	schema := Object([]string{"a"}, map[string]*jsonschema.Schema{"a": Str(3, "")})
	for name, in := range map[string]reflect.Type{
		"no field for a property": reflect.TypeFor[struct {
			B string `json:"b"`
		}](),
		"a field of another type": reflect.TypeFor[struct {
			A int `json:"a"`
		}](),
		"a field named only by case": reflect.TypeFor[struct{ A string }](),
		"a string option": reflect.TypeFor[struct {
			A string `json:"a,string"`
		}](),
		"not a struct": reflect.TypeFor[map[string]any](),
		"a field that decodes itself": reflect.TypeFor[struct {
			A upper `json:"a"`
		}](),
	} {
		if newQuickCheck(schema).bind(in).in != nil {
			t.Errorf("bound to an input with %s", name)
		}
	}
	var other struct {
		Property string `json:"property"`
	}
	if quick.decode([]byte(`{"property":"x"}`), &other) {
		t.Error("decode filled a struct other than the one it is bound to")
	}
}

// FuzzQuickDecode: whatever the bytes, decode says yes only to JSON the
// validator accepts, and then decodes what encoding/json decodes.
func FuzzQuickDecode(f *testing.F) {
	for _, seed := range []string{
		`{"property":"riverside","roomType":"double","checkin":"2027-01-05","guests":2}`,
		`{"property":"x","page":1e2}`, `{"property":"x","guests":-0}`, ` {"property":"\u00e9"} `,
	} {
		f.Add([]byte(seed))
	}
	quick, resolved := stayCheck(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if quick.passesRaw(raw) && !json.Valid(raw) {
			t.Fatalf("passesRaw accepted %q, which is not JSON", raw)
		}
		checkDecode(t, quick, resolved, raw)
	})
}

// upper decodes itself, as encoding/json lets a type: into upper case.
type upper string

func (u *upper) UnmarshalText(b []byte) error {
	*u = upper(strings.ToUpper(string(b)))
	return nil
}

// BenchmarkArguments: a quote's arguments checked and decoded by the
// quick check alone, beside the check followed by encoding/json, which
// is what every ordinary call did before decode.
func BenchmarkArguments(b *testing.B) {
	quick, _ := stayCheck(b)
	raw := []byte(`{"property":"riverside","roomType":"double","checkin":"2027-01-05","guests":2}`)
	b.Run("check+encoding/json", func(b *testing.B) {
		for b.Loop() {
			var in stayArgs
			if !quick.passesRaw(raw) || json.Unmarshal(raw, &in) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var in stayArgs
			if !quick.decode(raw, &in) {
				b.Fatal("refused")
			}
		}
	})
}
