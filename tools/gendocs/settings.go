package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sessionls/sessionls/config"
	"github.com/sessionls/sessionls/internal/glob"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// What config's settings table generates: the JSON schema of the file,
// VS Code's settings for the ones editors may set, and the README's table.

// kv and obj are a JSON object that keeps its keys in order.
type kv struct {
	k string
	v any
}

type obj []kv

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := textfmt.JSON(e.k)
		if err != nil {
			return nil, err
		}
		v, err := textfmt.JSON(e.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.k, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// indented is v as JSON indented two spaces a level (as npm writes
// package.json), every line after the first starting with prefix.
func indented(v any, prefix string) ([]byte, error) {
	compact, err := textfmt.JSON(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, prefix, "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// spellings is "`a`" or "`a` (old spelling: `b`)".
func spellings(names []string) string {
	if len(names) == 0 {
		return ""
	}
	s := "`" + names[0] + "`"
	if len(names) > 1 {
		s += " (old spelling" + plural(len(names)-1) + ": `" + strings.Join(names[1:], "`, `") + "`)"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func editorNames(s config.Setting) []string {
	out := s.EditorNames()
	for i := range out {
		out[i] = "sessionls." + out[i]
	}
	return out
}

// schemaDoc is a setting's description in the schema: its documentation
// and its other names.
func schemaDoc(s config.Setting) string {
	doc := s.Doc
	if d, ok := s.Default.([]string); ok && len(d) > 0 {
		doc += " Default: " + config.FormatValue(d) + "."
	}
	if f := s.FlagNames(); len(f) > 0 {
		doc += " Flag: " + spellings(f) + "."
	}
	if e := editorNames(s); len(e) > 0 {
		doc += " Editor setting: " + spellings(e) + "."
	}
	return doc
}

// schemaFile is schema/sessionls.schema.json, whole.
func schemaFile(_ []byte, in inputs) ([]byte, error) {
	definition := func(s config.Setting) (obj, error) {
		d := obj{{"description", schemaDoc(s)}}
		switch s.Kind {
		case config.KindChars, config.KindTokens:
			d = append(d, kv{"type", "integer"}, kv{"minimum", 1})
		case config.KindBool:
			d = append(d, kv{"type", "boolean"})
		case config.KindEnum:
			d = append(d, kv{"type", "string"}, kv{"enum", s.ValueNames()}, kv{"default", s.Default})
		case config.KindCodes:
			d = append(d, kv{"type", "array"}, kv{"uniqueItems", true},
				kv{"items", obj{{"type", "string"}, {"enum", in.codes()}}})
		default:
			return nil, fmt.Errorf("setting %s: no schema for its kind", s.Key)
		}
		return d, nil
	}
	props := obj{}
	overrideProps := obj{{"files", obj{
		{"description", "Globs of the files this table applies to, relative to the configuration file's directory."},
		{"$ref", "#/definitions/globs"},
		{"minItems", 1},
	}}}
	defs := obj{}
	for _, s := range in.settings {
		if !s.InFile && !s.InOverride {
			continue
		}
		if s.Kind == config.KindGlobs {
			if s.InOverride && s.Key != "files" {
				return nil, fmt.Errorf("setting %s: only files may be globs in [[overrides]]", s.Key)
			}
			props = append(props, kv{s.Key, obj{{"description", schemaDoc(s)}, {"$ref", "#/definitions/globs"}}})
			continue
		}
		d, err := definition(s)
		if err != nil {
			return nil, err
		}
		defs = append(defs, kv{s.Key, d})
		ref := obj{{"$ref", "#/definitions/" + s.Key}}
		if s.InFile {
			props = append(props, kv{s.Key, ref})
		}
		if s.InOverride {
			overrideProps = append(overrideProps, kv{s.Key, ref})
		}
	}
	props = append(props, kv{"overrides", obj{
		{"description", fmt.Sprintf("Settings for parts of the tree. Each table applies to the files its `files` globs match; later tables win over earlier ones and over the top-level keys. At most %d tables.", config.MaxOverrides)},
		{"type", "array"},
		{"maxItems", config.MaxOverrides},
		{"items", obj{
			{"type", "object"},
			{"additionalProperties", false},
			{"required", []string{"files"}},
			{"properties", overrideProps},
		}},
	}})
	defs = append(defs, kv{"globs", obj{
		{"type", "array"},
		{"maxItems", glob.MaxPatterns},
		{"items", obj{{"type", "string"}, {"minLength", 1}, {"maxLength", glob.MaxPatternLen}}},
	}})
	schema := obj{
		{"$schema", "http://json-schema.org/draft-07/schema#"},
		{"$id", "https://github.com/sessionls/sessionls/blob/main/schema/sessionls.schema.json"},
		{"title", "sessionls.toml"},
		{"description", fmt.Sprintf("sessionls configuration (sessionls.toml or .sessionls.toml), read by `sessionls check`, `budget`, `trim`, `map` and the language server. "+
			"The closest file at or above a session file applies; globs are relative to the file's directory. "+
			"Bounds: %d MiB a file, arrays and tables nested %d deep, keys of %d bytes, %d KiB of globs in all. "+
			"Generated from the settings table in config/settings.go: do not edit.",
			config.MaxFileSize>>20, config.MaxDepth, config.MaxKeyLen, config.MaxGlobBytes>>10)},
		{"type", "object"},
		{"additionalProperties", false},
		{"properties", props},
		{"definitions", defs},
	}
	out, err := indented(schema, "")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// vscodeSetting is one entry of contributes.configuration.properties.
func vscodeSetting(s config.Setting, in inputs) (obj, error) {
	doc := s.EditorDoc
	if doc == "" {
		doc = s.Doc
	}
	switch s.Kind {
	case config.KindChars, config.KindTokens:
		return obj{{"type", []string{"number", "null"}}, {"default", nil}, {"minimum", 1}, {"markdownDescription", doc}}, nil
	case config.KindBool:
		return obj{{"type", "boolean"}, {"default", s.Default}, {"markdownDescription", doc}}, nil
	case config.KindGlobs:
		return obj{{"type", "array"}, {"default", s.Default}, {"items", obj{{"type", "string"}}}, {"markdownDescription", doc}}, nil
	case config.KindCodes:
		descs := make([]string, len(in.rules))
		for i, r := range in.rules {
			descs[i] = r.Summary
		}
		return obj{{"type", "array"}, {"default", []string{}}, {"uniqueItems", true}, {"markdownDescription", doc},
			{"items", obj{{"type", "string"}, {"enum", in.codes()}, {"enumDescriptions", descs}}}}, nil
	case config.KindEnum:
		var values, labels, descs []any
		for _, v := range s.Values {
			values, labels, descs = append(values, v.Name), append(labels, v.Name), append(descs, v.Doc)
		}
		// Unset (null): the document's sessionls.toml decides.
		values = append(values, nil)
		labels = append(labels, fmt.Sprintf("from sessionls.toml (else %v)", s.Default))
		descs = append(descs, fmt.Sprintf("Unset: the `%s` of the document's `sessionls.toml`, else `%v`.", s.Key, s.Default))
		return obj{{"type", []string{"string", "null"}}, {"enum", values}, {"enumItemLabels", labels},
			{"markdownEnumDescriptions", descs}, {"default", nil}, {"markdownDescription", doc}}, nil
	}
	return nil, fmt.Errorf("setting %s: no VS Code setting for its kind", s.Key)
}

// vscodeName is the name VS Code's extension declares a setting by.
func vscodeName(s config.Setting) string {
	if s.VSCodeName != "" {
		return "sessionls." + s.VSCodeName
	}
	return "sessionls." + s.Editor
}

// packageJSON rewrites the entries of contributes.configuration.properties
// for the settings editors may set, in the table's order. They must be
// written together (the extension's own settings, such as sessionls.path,
// come before or after them); JSON has no comments, so the entries are
// found by their names, and the rest of the file keeps its bytes.
func packageJSON(src []byte, in inputs) ([]byte, error) {
	if !json.Valid(src) {
		return nil, errors.New("not valid JSON")
	}
	generated := map[string]bool{}
	var entries []kv
	for _, s := range in.settings {
		if s.Editor == "" {
			continue
		}
		e, err := vscodeSetting(s, in)
		if err != nil {
			return nil, err
		}
		generated[vscodeName(s)] = true
		entries = append(entries, kv{vscodeName(s), e})
	}
	const props = `"properties": {`
	conf := bytes.Index(src, []byte(`"configuration": {`))
	if conf < 0 {
		return nil, errors.New(`no "configuration" object`)
	}
	open := bytes.Index(src[conf:], []byte(props))
	if open < 0 {
		return nil, errors.New(`no "properties" object in "configuration"`)
	}
	open += conf + len(props) - 1
	// Each property's span: from its key's quote to the end of its value.
	type span struct {
		name       string
		start, end int
	}
	var spans []span
	dec := json.NewDecoder(bytes.NewReader(src[open:]))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	for dec.More() {
		before := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		start := open + before + bytes.IndexByte(src[open+before:], '"')
		spans = append(spans, span{tok.(string), start, open + int(dec.InputOffset())})
	}
	first, last := -1, -1
	for i, sp := range spans {
		if generated[sp.name] {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("none of the settings %v in contributes.configuration", keys(entries))
	}
	for _, sp := range spans[first : last+1] {
		if !generated[sp.name] {
			return nil, fmt.Errorf("%s is written between the generated settings: move it before or after them", sp.name)
		}
	}
	start, end := spans[first].start, spans[last].end
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	indent := string(src[lineStart:start])
	var b bytes.Buffer
	for i, e := range entries {
		if i > 0 {
			b.WriteString(",\n" + indent)
		}
		k, _ := textfmt.JSON(e.k)
		v, err := indented(e.v, indent)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	out := append(append(append([]byte{}, src[:start]...), b.Bytes()...), src[end:]...)
	if !json.Valid(out) {
		return nil, errors.New("the rewrite is not valid JSON (a bug in gendocs)")
	}
	return out, nil
}

func keys(entries []kv) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.k
	}
	return out
}

// valuesText says what values a setting takes and its default, for the
// README.
func valuesText(s config.Setting) string {
	switch s.Kind {
	case config.KindChars:
		return "whole number ≥ 1 (characters); default: none"
	case config.KindTokens:
		return "whole number ≥ 1 (tokens); default: none"
	case config.KindBool:
		return fmt.Sprintf("`true` or `false`; default `%v`", s.Default)
	case config.KindEnum:
		return "`" + strings.Join(s.ValueNames(), "`, `") + fmt.Sprintf("`; default `%v`", s.Default)
	case config.KindCodes:
		return "finding codes; default: none"
	case config.KindGlobs:
		if d, _ := s.Default.([]string); len(d) > 0 {
			return "globs; default `" + config.FormatValue(d) + "`"
		}
		return "globs; default: none"
	}
	return ""
}

// settingsTable is the README's table of settings.
func settingsTable(in inputs) string {
	var b strings.Builder
	b.WriteString("\n| `sessionls.toml` | flag | editor setting | values | meaning |\n|---|---|---|---|---|\n")
	dash := func(s string) string {
		if s == "" {
			return "—"
		}
		return s
	}
	var notes []string
	for _, s := range in.settings {
		key := ""
		switch {
		case s.InFile && s.InOverride:
			key = "`" + s.Key + "`"
		case s.InFile:
			key = "`" + s.Key + "` (not in `[[overrides]]`)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", dash(key), dash(spellings(s.FlagNames())), dash(spellings(editorNames(s))),
			valuesText(s), strings.ReplaceAll(s.Doc, "|", `\|`))
		if s.VSCodeName != "" && s.VSCodeName != s.Editor {
			notes = append(notes, fmt.Sprintf("VS Code's extension still declares `sessionls.%s` (its old spelling) for `sessionls.%s`.", s.VSCodeName, s.Editor))
		}
	}
	b.WriteString("\nOld spellings are accepted as before and mean the same; new configurations should use the first name.")
	for _, n := range notes {
		b.WriteString(" " + n)
	}
	b.WriteString("\n")
	return b.String()
}
