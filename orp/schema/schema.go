// Package schema holds the JSON Schema 2020-12 files of ORP 0.3, written
// from the field tables and examples of the ORP specification, and
// validates documents against them. The files are embedded so the host
// serves exactly the schemas it enforces.
//
// It is part of the orp domain: it imports only the standard library and
// the JSON Schema validator.
package schema

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Files are the schema files, served under /orp/schemas/.
//
//go:embed files
var files embed.FS

// FS returns the schema files rooted at their directory: "defs.schema.json",
// "messages/offer.schema.json" and so on.
func FS() fs.FS {
	sub, err := fs.Sub(files, "files")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}

// Base is the $id prefix of every schema file. The .invalid name cannot
// resolve, so no validator ever fetches it: every file is loaded from FS.
const Base = "https://schemas.frontdesk.invalid/orp/0.3/"

// Names of the top-level schemas.
const (
	Message         = "message.schema.json"
	Envelope        = "envelope.schema.json"
	Discovery       = "discovery.schema.json"
	Constraints     = "constraints.schema.json"
	JoinRequest     = "join-request.schema.json"
	JoinResponse    = "join-response.schema.json"
	SuggestRequest  = "suggest-request.schema.json"
	SuggestResponse = "suggest-response.schema.json"
	Inbox           = "inbox.schema.json"
)

// Set is the compiled schemas. It is immutable after New and safe for
// concurrent use.
type Set struct {
	compiled map[string]*jsonschema.Schema
}

// New compiles every top-level schema and each message type's schema.
func New() (*Set, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseRegexpEngine(sharedPatterns())
	root := FS()
	var names []string
	err := fs.WalkDir(root, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, path)
		if err != nil {
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		names = append(names, path)
		return c.AddResource(Base+path, doc)
	})
	if err != nil {
		return nil, fmt.Errorf("load schemas: %w", err)
	}
	s := &Set{compiled: map[string]*jsonschema.Schema{}}
	for _, n := range names {
		sch, err := c.Compile(Base + n)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", n, err)
		}
		s.compiled[n] = sch
	}
	return s, nil
}

// sharedPatterns compiles each distinct pattern once: many properties
// share one (an identifier's, a slug's), and a compiled pattern with a
// counted repetition such as {1,64} takes tens of kilobytes, which the
// server would otherwise keep dozens of times over.
func sharedPatterns() jsonschema.RegexpEngine {
	var mu sync.Mutex
	compiled := map[string]*regexp.Regexp{}
	return func(pattern string) (jsonschema.Regexp, error) {
		mu.Lock()
		defer mu.Unlock()
		if re, ok := compiled[pattern]; ok {
			return re, nil
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		compiled[pattern] = re
		return re, nil
	}
}

// Problem is the first thing wrong with a document: a JSON Pointer to it
// and a sentence safe to show the sender.
type Problem struct {
	Pointer string
	Detail  string
}

func (p *Problem) Error() string { return p.Detail + " (at " + p.Pointer + ")" }

// Validate checks doc, a value decoded with UseNumber (or jsonschema's
// own UnmarshalJSON), against the named schema. It returns nil or a
// *Problem.
func (s *Set) Validate(name string, doc any) error {
	sch, ok := s.compiled[name]
	if !ok {
		return fmt.Errorf("schema: no schema named %q", name)
	}
	err := sch.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &Problem{Pointer: "", Detail: "The document could not be validated."}
	}
	return problem(ve)
}

var printer = message.NewPrinter(language.English)

// safeName is a property name that may be echoed back in a pointer and a
// message; anything else stops the pointer at its parent.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// problem picks the most specific leaf error: the one deepest in the
// instance, the first such in document order of the schema.
func problem(ve *jsonschema.ValidationError) *Problem {
	leaf := deepest(ve)
	loc := append([]string(nil), leaf.InstanceLocation...)
	detail := leaf.ErrorKind.LocalizedString(printer)
	switch k := leaf.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		if len(k.Properties) > 0 && safeName.MatchString(k.Properties[0]) {
			loc = append(loc, k.Properties[0])
			detail = "unknown field " + k.Properties[0] + "; objects are closed"
		} else {
			detail = "unknown field; objects are closed"
		}
	case *kind.FalseSchema:
		// unevaluatedProperties: false reports the property itself.
		detail = "unknown field; objects are closed"
	case *kind.Required:
		if len(k.Missing) > 0 {
			loc = append(loc, k.Missing[0])
			detail = "missing required field " + k.Missing[0]
		}
	}
	for i, t := range loc {
		if !safeName.MatchString(t) {
			loc = loc[:i] // a name the sender made up is not echoed back
			break
		}
	}
	return &Problem{Pointer: pointer(loc), Detail: detail}
}

func deepest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	best := ve
	for _, c := range ve.Causes {
		d := deepest(c)
		if len(d.InstanceLocation) > len(best.InstanceLocation) || len(best.Causes) > 0 && best == ve {
			best = d
		}
	}
	return best
}

// pointer renders an RFC 6901 JSON Pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
