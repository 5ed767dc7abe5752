package config

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Parse decodes a TOML file. Unknown keys and values of the wrong type are
// errors that name the key with its indexes (locations[0].units[1].count)
// and its line, so a typo never silently falls back to a default. Every such
// problem is reported at once; only a file that is not TOML at all stops at
// its first error.
func Parse(data []byte) (Config, error) {
	c, problems, err := decode(data)
	if err != nil {
		return Config{}, err
	}
	return c, joinErrors(problems)
}

// Load parses and validates a file, reporting the problems of both steps
// together: check-config and serve show everything wrong with a file in
// one pass.
func Load(data []byte) (Config, error) {
	c, problems, err := decode(data)
	if err != nil {
		return Config{}, err
	}
	if verr := c.Validate(); verr != nil {
		// A value that could not be read is reported once, as unreadable,
		// not again as the default that stood in for it.
		lines := keyLines(data)
		for _, e := range verr.(interface{ Unwrap() []error }).Unwrap() {
			if !slices.ContainsFunc(problems, func(p error) bool { return samePath(p, e) }) {
				problems = append(problems, withLine(e, lines))
			}
		}
	}
	if len(problems) > 0 {
		return Config{}, joinErrors(problems)
	}
	return c, nil
}

// decode reads data into the defaults. A syntax error is fatal; unknown
// keys and mistyped values are problems, left out of the result so the
// rest can still be checked.
func decode(data []byte) (Config, []error, error) {
	// The file is parsed once: each top-level value is kept as parsed,
	// read as plain values for the checks, and decoded into the defaults
	// from the same parse when the checks find nothing.
	var top map[string]toml.Primitive
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&top)
	if err != nil {
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	raw := make(map[string]any, len(top))
	for k, p := range top {
		var v any
		if err := md.PrimitiveDecode(p, &v); err != nil {
			return Config{}, nil, fmt.Errorf("config: %w", err)
		}
		raw[k] = v
	}
	ck := checker{data: data, fields: map[reflect.Type]map[string]reflect.StructField{}}
	ck.table(raw, reflect.TypeFor[Config](), "")
	problems := ck.out
	if p, ok := tlsWithoutMode(raw, ck.keyLines); ok {
		problems = append(problems, p)
	}
	slices.SortStableFunc(problems, func(a, b located) int { return a.line - b.line })

	c := Defaults()
	if len(problems) == 0 {
		// Every key is known and every value fits its field.
		dst := reflect.ValueOf(&c).Elem()
		for k, p := range top {
			f, _ := ck.field(dst.Type(), k)
			if err := md.PrimitiveDecode(p, dst.FieldByIndex(f.Index).Addr().Interface()); err != nil {
				return Config{}, nil, fmt.Errorf("config: %s: %w", k, err)
			}
		}
	} else {
		// The checked map holds only known keys of the right type;
		// decoding it again into the defaults cannot fail.
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(raw); err != nil {
			return Config{}, nil, fmt.Errorf("config: %w", err)
		}
		if _, err := toml.NewDecoder(&buf).Decode(&c); err != nil {
			return Config{}, nil, fmt.Errorf("config: %w", err)
		}
	}
	c.fillLocationDefaults()
	c.foldDeprecated(raw)
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p.err
	}
	return c, errs, nil
}

type located struct {
	line int
	err  error
}

// checker finds the unknown keys and mistyped values of a decoded file.
type checker struct {
	data   []byte
	lines  map[string]int // key paths' lines, read from data on the first problem
	fields map[reflect.Type]map[string]reflect.StructField
	out    []located
}

// keyLines returns the lines of the file's keys; only a file with a
// problem needs them, so they are read once, when first asked for.
func (ck *checker) keyLines() map[string]int {
	if ck.lines == nil {
		ck.lines = keyLines(ck.data)
	}
	return ck.lines
}

// table removes from m every key that t does not have and every value
// of the wrong type, recording a problem for each.
func (ck *checker) table(m map[string]any, t reflect.Type, path string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := k
		if path != "" {
			p = path + "." + k
		}
		add := func(format string, args ...any) {
			line := ck.keyLines()[p]
			msg := fmt.Sprintf(format, args...)
			if line > 0 {
				msg += fmt.Sprintf(" (line %d)", line)
			}
			ck.out = append(ck.out, located{line: line, err: fmt.Errorf("%s: %s", p, msg)})
			delete(m, k)
		}
		f, ok := ck.field(t, k)
		if !ok {
			add("unknown setting")
			continue
		}
		if want, ok := ck.fits(m[k], f.Type, p); !ok {
			add("must be %s, got %s", want, describe(m[k]))
		}
	}
}

// fits reports whether v can be decoded into a field of type t, checking
// nested tables on the way; want names the expected kind.
func (ck *checker) fits(v any, t reflect.Type, path string) (want string, ok bool) {
	switch t.Kind() {
	case reflect.String:
		_, ok = v.(string)
		return "text in quotes", ok
	case reflect.Int, reflect.Int64:
		_, ok = v.(int64)
		return "a whole number", ok
	case reflect.Float64:
		switch v.(type) {
		case int64, float64:
			return "", true
		}
		return "a number", false
	case reflect.Bool:
		_, ok = v.(bool)
		return "true or false", ok
	case reflect.Struct:
		sub, ok := v.(map[string]any)
		if ok {
			ck.table(sub, t, path)
		}
		return "a table", ok
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			tables, ok := v.([]map[string]any)
			if !ok {
				return "a list of tables ([[" + path + "]])", false
			}
			for i, sub := range tables {
				ck.table(sub, t.Elem(), path+"["+strconv.Itoa(i)+"]")
			}
			return "", true
		}
		items, ok := v.([]any)
		if !ok {
			return "a list of text values", false
		}
		for _, item := range items {
			if _, ok := item.(string); !ok {
				return "a list of text values", false
			}
		}
		return "", true
	}
	return t.String(), false
}

// field finds the field of t decoded from key, a field of an embedded
// struct included. Each type's fields are indexed once: a file of
// thousands of locations asks the same few types again and again.
func (ck *checker) field(t reflect.Type, key string) (reflect.StructField, bool) {
	byTag, ok := ck.fields[t]
	if !ok {
		byTag = map[string]reflect.StructField{}
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				continue
			}
			if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name != "-" {
				if _, taken := byTag[name]; !taken {
					byTag[name] = f
				}
			}
		}
		ck.fields[t] = byTag
	}
	f, ok := byTag[key]
	return f, ok
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("the text %q", v)
	case int64:
		return fmt.Sprintf("the number %d", v)
	case float64:
		return fmt.Sprintf("the number %g", v)
	case bool:
		return fmt.Sprintf("%t", v)
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "a list of tables"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}

// keyLines maps each key path of a plainly written TOML file (table
// headers and key = value lines) to its line, with array-table indexes as
// in locations[1].units[0].count. Keys it cannot place get no line.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	counts := map[string]int{} // indexed array-table path → tables seen
	current := ""
	// resolve turns a dotted header into an indexed path, using the latest
	// index of every array table along it.
	resolve := func(dotted string) string {
		path := ""
		for _, part := range strings.Split(dotted, ".") {
			part = strings.Trim(strings.TrimSpace(part), `"'`)
			if path != "" {
				path += "."
			}
			path += part
			if n, ok := counts[path]; ok {
				path += fmt.Sprintf("[%d]", n-1)
			}
		}
		return path
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "[["):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "[["), "]]")
			parent, last := "", strings.TrimSpace(name)
			if i := strings.LastIndex(name, "."); i >= 0 {
				parent, last = resolve(name[:i]), strings.TrimSpace(name[i+1:])
			}
			array := last
			if parent != "" {
				array = parent + "." + last
			}
			counts[array]++
			current = fmt.Sprintf("%s[%d]", array, counts[array]-1)
			lines[current] = n
		case strings.HasPrefix(line, "["):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
			current = resolve(name)
			lines[current] = n
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			key, _, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			key = strings.Trim(strings.TrimSpace(key), `"'`)
			if current != "" {
				key = current + "." + key
			}
			if _, seen := lines[key]; !seen {
				lines[key] = n
			}
		}
	}
	return lines
}

// tlsWithoutMode refuses a [tls] table that sets anything but its mode:
// the mode defaults to "off", so certificate files or ACME settings
// without it would serve plain HTTP without a word.
func tlsWithoutMode(raw map[string]any, keyLines func() map[string]int) (located, bool) {
	t, ok := raw["tls"].(map[string]any)
	if !ok || len(t) == 0 {
		return located{}, false
	}
	if _, ok := t["mode"]; ok {
		return located{}, false
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lines := keyLines()
	line := lines["tls"]
	if line == 0 {
		line = lines["tls."+keys[0]]
	}
	var msg string
	switch {
	case t["cert_file"] != nil || t["key_file"] != nil:
		msg = `cert_file and key_file are set but mode is not, so serve would speak plain HTTP: add mode = "files" to [tls] to serve HTTPS with them, or mode = "off" to keep plain HTTP`
	case slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "acme_") }):
		msg = `ACME settings are set but mode is not, so serve would speak plain HTTP: add mode = "acme" to [tls] to obtain certificates, or mode = "off" to keep plain HTTP`
	default:
		msg = fmt.Sprintf(`%s is set but mode is not, so serve would speak plain HTTP: add mode = "acme" or mode = "files" to [tls] to serve HTTPS, or mode = "off" to keep plain HTTP`, strings.Join(keys, ", "))
	}
	if line > 0 {
		msg += fmt.Sprintf(" (line %d)", line)
	}
	return located{line: line, err: fmt.Errorf("tls.mode: %s", msg)}, true
}

// withLine adds to a validation error the line of the setting it names,
// or, for a setting the file leaves out, the line of the table that
// would hold it; an error about something the file does not write stays
// as it is.
func withLine(err error, lines map[string]int) error {
	path, _, ok := strings.Cut(err.Error(), ": ")
	if !ok {
		return err
	}
	if n := lines[path]; n > 0 {
		return fmt.Errorf("%w (line %d)", err, n)
	}
	for p := parentPath(path); p != ""; p = parentPath(p) {
		if n := lines[p]; n > 0 {
			return fmt.Errorf("%w (in the table at line %d)", err, n)
		}
	}
	return err
}

// parentPath is the path one level up: locations[0].units[1].count →
// locations[0].units[1] → locations[0] → "".
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndex(p, "["); i > 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexAny(p, ".["); i > 0 {
		return p[:i]
	}
	return ""
}

// samePath reports whether two problems name the same setting.
func samePath(a, b error) bool {
	pa, _, _ := strings.Cut(a.Error(), ": ")
	pb, _, _ := strings.Cut(b.Error(), ": ")
	return pa == pb
}

// renamed are old keys and the key that replaced them.
var renamed = []struct{ table, key, now string }{
	{"usp", "allow_private_profiles", "outbound.allow_private"},
	{"orp", "fetch_private_addresses", "outbound.allow_private"},
}

// foldDeprecated reads the old names of outbound.allow_private into it:
// either one set to true turns it on, and each old key the file wrote is
// a warning naming its replacement.
func (c *Config) foldDeprecated(raw map[string]any) {
	for _, r := range renamed {
		t, _ := raw[r.table].(map[string]any)
		if _, ok := t[r.key]; !ok {
			continue
		}
		c.deprecated = append(c.deprecated, fmt.Sprintf("%s.%s is deprecated: write %s instead", r.table, r.key, r.now))
	}
	c.Outbound.AllowPrivate = c.AllowPrivate()
	// The profile fetcher is built from the [usp] table alone.
	c.USP.AllowPrivateProfiles = c.Outbound.AllowPrivate
}
