package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// Bundle returns the schema file name as one self-contained document, for
// clients that cannot fetch the other files, such as an MCP tool's input
// schema: another file it refers to is inlined where it is referenced,
// and the definitions of defs.schema.json it reaches, directly or through
// each other, are copied under its own $defs with their references
// rewritten to point there. $id is dropped, since the document no longer
// lives at that address.
func Bundle(name string) ([]byte, error) {
	b := bundler{defs: map[string]any{}}
	if err := b.loadDefs(); err != nil {
		return nil, err
	}
	doc, err := b.file(name)
	if err != nil {
		return nil, err
	}
	delete(doc, "$id")
	if len(b.used) > 0 {
		defs := map[string]any{}
		for _, n := range b.usedNames() {
			defs[n] = b.used[n]
		}
		doc["$defs"] = defs
	}
	return json.Marshal(doc)
}

type bundler struct {
	defs map[string]any // the $defs of defs.schema.json
	used map[string]any // the ones the bundle reaches, rewritten
}

func (b *bundler) loadDefs() error {
	var d struct {
		Defs map[string]any `json:"$defs"`
	}
	raw, err := fs.ReadFile(FS(), "defs.schema.json")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("bundle: defs: %w", err)
	}
	b.defs, b.used = d.Defs, map[string]any{}
	return nil
}

func (b *bundler) file(name string) (map[string]any, error) {
	raw, err := fs.ReadFile(FS(), name)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("bundle: %s: %w", name, err)
	}
	v, err := b.rewrite(doc, false)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// rewrite walks v, turning each $ref into one the bundle resolves.
// inDefs says v comes from defs.schema.json, whose "#/$defs/X" refer to
// that file.
func (b *bundler) rewrite(v any, inDefs bool) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, c := range v {
			if k == "$ref" {
				ref, _ := c.(string)
				local, inline, err := b.resolve(ref, inDefs)
				if err != nil {
					return nil, err
				}
				if inline != nil {
					for ik, iv := range inline {
						if ik != "$id" && ik != "$schema" {
							out[ik] = iv
						}
					}
					continue
				}
				out[k] = local
				continue
			}
			r, err := b.rewrite(c, inDefs)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			r, err := b.rewrite(c, inDefs)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// resolve turns ref into a reference local to the bundle, or returns the
// whole other file to inline in its place.
func (b *bundler) resolve(ref string, inDefs bool) (string, map[string]any, error) {
	file, pointer, _ := strings.Cut(ref, "#")
	switch {
	case file == "" && !inDefs:
		return ref, nil, nil // the file's own definitions
	case file == "" || file == "defs.schema.json":
		name, ok := strings.CutPrefix(pointer, "/$defs/")
		if !ok || b.defs[name] == nil {
			return "", nil, fmt.Errorf("bundle: unknown definition %q", ref)
		}
		if _, done := b.used[name]; !done {
			b.used[name] = nil // taken before the walk, so cycles end
			def, err := b.rewrite(b.defs[name], true)
			if err != nil {
				return "", nil, err
			}
			b.used[name] = def
		}
		return "#/$defs/" + name, nil, nil
	case pointer == "":
		doc, err := b.file(file)
		return "", doc, err
	}
	return "", nil, fmt.Errorf("bundle: cannot inline %q", ref)
}

func (b *bundler) usedNames() []string {
	names := make([]string, 0, len(b.used))
	for n := range b.used {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
