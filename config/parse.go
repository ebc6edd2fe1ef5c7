package config

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/internal/glob"
)

// Error is one problem in a configuration file, at a 1-based line and
// column (columns count characters).
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errors are all the problems found in one file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// maxErrors bounds how many problems one file reports.
const maxErrors = 20

// keyDef is one key of the file: a setting, or the [[overrides]] tables.
type keyDef struct {
	Setting
	overrides bool
}

// keyDefs are the file's keys: the settings a file can set, then
// overrides. schema/sessionls.schema.json is generated from the same table.
func keyDefs() []keyDef {
	var out []keyDef
	for _, s := range settingTable() {
		if s.InFile || s.InOverride {
			out = append(out, keyDef{Setting: s})
		}
	}
	return append(out, keyDef{Setting: Setting{Key: "overrides", InFile: true}, overrides: true})
}

// Keys returns the top-level keys and the keys of an [[overrides]] table.
func Keys() (top, override []string) {
	for _, k := range keyDefs() {
		if k.InFile {
			top = append(top, k.Key)
		}
		if k.InOverride {
			override = append(override, k.Key)
		}
	}
	return top, override
}

func lookupKey(name string) (keyDef, bool) {
	for _, k := range keyDefs() {
		if k.Key == name {
			return k, true
		}
	}
	return keyDef{}, false
}

// pos is a place in the file.
type pos struct{ line, col int }

type item[T any] struct {
	v   T
	pos pos
}

// layer is the settings one table sets, by key (files and exclude
// aside, which are compiled: see File).
type layer map[string]item[any]

// globList is a compiled list of globs and where it was written.
type globList struct {
	src  []string
	pats []*glob.Pattern
	pos  pos
}

type override struct {
	index int // 1-based
	pos   pos
	files globList
	layer
}

// File is a parsed configuration file.
type File struct {
	// Path is the file's path; Display is how messages name it.
	Path, Display string
	// Dir is the directory its globs are relative to.
	Dir       string
	top       layer
	files     *globList
	exclude   *globList
	overrides []override
}

// Parse reads a configuration file's contents. display names the file in
// errors; dir is the directory its globs are relative to. The error, when
// not nil, is Errors.
func Parse(path, display, dir string, data []byte) (f *File, err error) {
	fail := func(line, col int, format string, args ...any) (*File, error) {
		return nil, Errors{{File: display, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}}
	}
	if len(data) > MaxFileSize {
		return fail(1, 1, "the file is larger than %d bytes: not a sessionls configuration", MaxFileSize)
	}
	data = stripBOM(data)
	idx := newLineIndex(data)
	defer func() {
		// The TOML library is hostile input's first reader; a bug there
		// must not take the CLI or the server down.
		if r := recover(); r != nil {
			f, err = fail(1, 1, "cannot parse the file (TOML parser failure: %v)", r)
		}
	}()
	// Bounded before the TOML library decodes anything: its recursion by
	// the nesting depth, the positions' memory by the keys' lengths.
	if off := scanDepth(data); off >= 0 {
		p := idx.at(off)
		return fail(p.line, p.col, "arrays and tables nested more than %d deep: not a sessionls configuration", MaxDepth)
	}
	at, keyErr := keyPositions(data, idx)
	if keyErr != nil {
		keyErr.File = display
		return nil, Errors{keyErr}
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			line, c := idx.charCol(row, col)
			msg := byteMessage(strings.TrimPrefix(de.Error(), "toml: "), data, idx.offset(row, col))
			return fail(line, c, "%s", msg)
		}
		return fail(1, 1, "%s", strings.TrimPrefix(err.Error(), "toml: "))
	}
	v := &validator{file: display, idx: idx, at: at}
	f = &File{Path: path, Display: display, Dir: dir, top: layer{}}
	v.file = display
	v.top(f, doc)
	if len(v.errs) > 0 {
		sort.SliceStable(v.errs, func(i, j int) bool {
			a, b := v.errs[i], v.errs[j]
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
		if len(v.errs) > maxErrors {
			v.errs = v.errs[:maxErrors]
		}
		return nil, v.errs
	}
	return f, nil
}

type validator struct {
	file string
	idx  *lineIndex
	at   map[string]pos // key path → position of the key (or of an array element)
	errs Errors
	// globBytes counts the bytes of the globs accepted so far (MaxGlobBytes).
	globBytes int
}

func (v *validator) errorf(path string, format string, args ...any) {
	v.errorAt(v.pos(path), format, args...)
}

// valueErrorf reports a problem with the value at key path, at the value.
func (v *validator) valueErrorf(path string, format string, args ...any) {
	p, ok := v.at[path+valueSuffix]
	if !ok {
		p = v.pos(path)
	}
	v.errorAt(p, format, args...)
}

func (v *validator) errorAt(p pos, format string, args ...any) {
	v.errs = append(v.errs, &Error{File: v.file, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)})
}

// pos finds a key path's position, or its closest ancestor's.
func (v *validator) pos(path string) pos {
	for {
		if p, ok := v.at[path]; ok {
			return p
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			return pos{1, 1}
		}
		path = path[:i]
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (v *validator) top(f *File, doc map[string]any) {
	topKeys, _ := Keys()
	for _, k := range sortedKeys(doc) {
		def, ok := lookupKey(k)
		if !ok || !def.InFile {
			v.errorf(k, "unknown key %q%s", k, suggest(k, topKeys))
			continue
		}
		val := doc[k]
		switch {
		case def.overrides:
			v.overrides(f, val)
		case def.Kind == KindGlobs:
			g := v.globs(k, val)
			if g == nil {
				continue
			}
			if k == "files" {
				f.files = g
			} else {
				f.exclude = g
			}
		default:
			v.setting(f.top, k, k, def, val)
		}
	}
}

// setting validates one value of a setting at key path and stores it in l.
func (v *validator) setting(l layer, path, name string, def keyDef, val any) {
	p := v.pos(path)
	switch def.Kind {
	case KindChars, KindTokens:
		n, ok := val.(int64)
		if !ok || n < 1 {
			v.valueErrorf(path, "%s: want a whole number ≥ 1, got %s", name, describe(val))
			return
		}
		l[def.Key] = item[any]{n, p}
	case KindBool:
		b, ok := val.(bool)
		if !ok {
			v.valueErrorf(path, "%s: want true or false, got %s", name, describe(val))
			return
		}
		l[def.Key] = item[any]{b, p}
	case KindEnum:
		values := def.ValueNames()
		s, ok := val.(string)
		if !ok || !slices.Contains(values, s) {
			msg := fmt.Sprintf("%s: want one of %s, got %s", name, strings.Join(quoteAll(values), ", "), describe(val))
			if ok {
				msg += suggest(s, values)
			}
			v.valueErrorf(path, "%s", msg)
			return
		}
		l[def.Key] = item[any]{s, p}
	case KindCodes:
		arr, ok := val.([]any)
		if !ok {
			v.valueErrorf(path, "%s: want an array of finding codes, got %s", name, describe(val))
			return
		}
		codes := analysis.Codes()
		seen := map[string]bool{}
		out := []string{}
		bad := false
		for i, e := range arr {
			s, ok := e.(string)
			if !ok || !slices.Contains(codes, s) {
				msg := fmt.Sprintf("%s: unknown finding code %s", name, describe(e))
				if ok {
					msg += suggest(s, codes)
				}
				v.errorf(path+"."+strconv.Itoa(i), "%s (codes: %s)", msg, strings.Join(codes, ", "))
				bad = true
				continue
			}
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		if !bad {
			sort.Strings(out)
			l[def.Key] = item[any]{out, p}
		}
	}
}

// globs validates an array of globs at key path.
func (v *validator) globs(path string, val any) *globList {
	arr, ok := val.([]any)
	if !ok {
		v.valueErrorf(path, "%s: want an array of globs, got %s", lastPart(path), describe(val))
		return nil
	}
	src := make([]string, 0, len(arr))
	n := 0
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			v.errorf(path+"."+strconv.Itoa(i), "%s: want a glob (a string), got %s", lastPart(path), describe(e))
			return nil
		}
		src = append(src, s)
		n += len(s)
	}
	if v.globBytes+n > MaxGlobBytes {
		v.errorf(path, "%s: the globs of the file would have %d bytes in all: at most %d are allowed", lastPart(path), v.globBytes+n, MaxGlobBytes)
		return nil
	}
	v.globBytes += n
	l, err := glob.CompileList(src)
	if err != nil {
		var le *glob.ListError
		if errors.As(err, &le) {
			v.errorf(path+"."+strconv.Itoa(le.Index), "%s: %v", lastPart(path), le.Err)
		} else {
			v.errorf(path, "%s: %v", lastPart(path), err)
		}
		return nil
	}
	return &globList{src: src, pats: l.Patterns(), pos: v.pos(path)}
}

func (v *validator) overrides(f *File, val any) {
	if _, ok := val.(map[string]any); ok {
		v.errorf("overrides", "overrides: want an array of tables: write [[overrides]], not [overrides]")
		return
	}
	arr, ok := val.([]any)
	if !ok {
		v.valueErrorf("overrides", "overrides: want an array of tables ([[overrides]]), got %s", describe(val))
		return
	}
	if len(arr) > MaxOverrides {
		v.errorf("overrides."+strconv.Itoa(MaxOverrides), "%d [[overrides]] tables: at most %d are allowed (each is matched against every file)", len(arr), MaxOverrides)
		return
	}
	_, overrideKeys := Keys()
	for i, e := range arr {
		path := "overrides." + strconv.Itoa(i)
		tbl, ok := e.(map[string]any)
		if !ok {
			v.errorf(path, "overrides: want a table, got %s", describe(e))
			continue
		}
		o := override{index: i + 1, pos: v.pos(path), layer: layer{}}
		hasFiles := false
		for _, k := range sortedKeys(tbl) {
			kp := path + "." + k
			def, ok := lookupKey(k)
			switch {
			case !ok:
				v.errorf(kp, "unknown key %q in [[overrides]]%s", k, suggest(k, overrideKeys))
				continue
			case !def.InOverride:
				v.errorf(kp, "%q cannot be set in [[overrides]] (keys there: %s)", k, strings.Join(overrideKeys, ", "))
				continue
			case k == "files":
				if g := v.globs(kp, tbl[k]); g != nil {
					o.files = *g
					hasFiles = true
				}
				if g, ok := tbl[k].([]any); ok && len(g) == 0 {
					v.errorf(kp, "files: an override needs at least one glob")
				}
				continue
			}
			v.setting(o.layer, kp, k, def, tbl[k])
		}
		if _, ok := tbl["files"]; !ok {
			v.errorf(path, "[[overrides]] #%d has no files = [...]: say which files it applies to", i+1)
		}
		if hasFiles {
			f.overrides = append(f.overrides, o)
		}
	}
}

func lastPart(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// describe renders a decoded TOML value for a message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 60 {
			return "a string of " + strconv.Itoa(len(x)) + " bytes"
		}
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// lineIndex maps byte offsets to lines and character columns.
type lineIndex struct {
	data   []byte
	starts []int // byte offset of each line's start
	// The last position asked for: the next one on the same line, further
	// on, counts characters from there, so the positions of every key of a
	// file written on one long line cost one pass over it, not one pass
	// per key (a 1 MiB exclude list took 83 s).
	last    pos
	lastOff int
	// scanned counts the bytes whose characters were counted (tests hold
	// it to a small multiple of the file's size).
	scanned int
}

func newLineIndex(data []byte) *lineIndex {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{data: data, starts: starts, lastOff: -1}
}

// at returns the 1-based line and character column of a byte offset.
// Offsets are those of tokens (character starts), so characters counted
// from the last offset add up to those counted from the line's start.
func (x *lineIndex) at(off int) pos {
	off = min(max(off, 0), len(x.data))
	line := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off }) - 1
	from, col := x.starts[line], 1
	if x.lastOff >= from && x.lastOff <= off && x.last.line == line+1 {
		from, col = x.lastOff, x.last.col
	}
	x.scanned += off - from
	p := pos{line + 1, col + utf8.RuneCount(x.data[from:off])}
	x.last, x.lastOff = p, off
	return p
}

// offset turns the TOML library's 1-based line and byte column into a
// byte offset (-1 when it is not in the file).
func (x *lineIndex) offset(row, col int) int {
	if row < 1 || row > len(x.starts) {
		return -1
	}
	return x.starts[row-1] + max(col-1, 0)
}

// charCol turns the TOML library's 1-based line and byte column into a
// line and character column.
func (x *lineIndex) charCol(row, col int) (int, int) {
	off := x.offset(row, col)
	if off < 0 {
		return max(row, 1), max(col, 1)
	}
	p := x.at(off)
	return p.line, p.col
}

// valueSuffix marks a key path's value (rather than its key) in the
// positions map.
const valueSuffix = "#value"

// maxPathParts is the deepest key path the validator asks about
// ("overrides.1.files.0"). Deeper values are walked (their keys are
// checked) but their paths are not built: a path repeats every enclosing
// key, so building them all costs depth × keys (9,999 nested inline tables
// with long keys took 4 GB).
const maxPathParts = 4

// keyPositions walks the document's syntax tree and records where each
// key path is written: "budget", "overrides.1.files", "overrides.1.files.0"
// for an array's element. The first place a path appears wins. It returns
// an error for a key longer than MaxKeyLen. On a document that is not valid
// TOML it stops where the syntax does and returns what it found: the
// decoder then says what is wrong.
func keyPositions(data []byte, idx *lineIndex) (map[string]pos, *Error) {
	at := map[string]pos{}
	var p unstable.Parser
	p.Reset(data)
	var keyErr *Error
	rec := func(path string, r unstable.Range, ok bool) {
		if _, seen := at[path]; !seen && ok {
			at[path] = idx.at(int(r.Offset))
		}
	}
	// key reads a (dotted) key, refusing one longer than MaxKeyLen.
	key := func(it unstable.Iterator) (string, int, unstable.Range, bool) {
		path, n, parts, first, ok := keyPath(it)
		if n > MaxKeyLen && keyErr == nil {
			ps := idx.at(int(first.Offset))
			keyErr = &Error{Line: ps.line, Col: ps.col,
				Msg: fmt.Sprintf("a key of %d bytes: keys are at most %d bytes", n, MaxKeyLen)}
		}
		return path, parts, first, ok
	}
	// A path of depth > maxPathParts is not built: path is "" then.
	join := func(prefix string, prefixParts int, name string, parts int) (string, int) {
		d := prefixParts + parts
		switch {
		case d > maxPathParts:
			return "", d
		case prefix == "":
			return name, d
		}
		return prefix + "." + name, d
	}
	var walkValue func(path string, depth int, n *unstable.Node)
	walkKV := func(prefix string, depth int, kv *unstable.Node) {
		name, parts, first, ok := key(kv.Key())
		path, d := join(prefix, depth, name, parts)
		if path != "" {
			rec(path, first, ok)
			if val := kv.Value(); val.Kind != unstable.Array {
				rec(path+valueSuffix, val.Raw, true)
			}
		}
		walkValue(path, d, kv.Value())
	}
	walkValue = func(path string, depth int, n *unstable.Node) {
		switch n.Kind {
		case unstable.Array:
			i := 0
			for it := n.Children(); it.Next(); {
				c := it.Node()
				if c.Kind == unstable.Comment {
					continue
				}
				ep, d := join(path, depth, strconv.Itoa(i), 1)
				if ep != "" {
					rec(ep, c.Raw, c.Kind != unstable.Array)
				}
				walkValue(ep, d, c)
				i++
			}
		case unstable.InlineTable:
			for it := n.Children(); it.Next(); {
				if c := it.Node(); c.Kind == unstable.KeyValue {
					walkKV(path, depth, c)
				}
			}
		}
	}
	prefix, prefixParts := "", 0
	counts := map[string]int{}
	for keyErr == nil && p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			path, parts, first, ok := key(e.Key())
			prefix, prefixParts = join("", 0, path, parts)
			if prefix != "" {
				rec(prefix, first, ok)
			}
		case unstable.ArrayTable:
			name, parts, first, ok := key(e.Key())
			if parts+1 > maxPathParts {
				prefix, prefixParts = "", parts+1
				continue
			}
			n := counts[name]
			counts[name]++
			prefix, prefixParts = name+"."+strconv.Itoa(n), parts+1
			rec(name, first, ok)
			rec(prefix, first, ok)
		case unstable.KeyValue:
			walkKV(prefix, prefixParts, e)
		}
	}
	return at, keyErr
}

// keyPath joins a (dotted) key's parts and returns its length in bytes
// (parts and dots), how many parts it has and the first part's range. A
// key longer than MaxKeyLen is refused, so its name is not copied whole.
func keyPath(it unstable.Iterator) (string, int, int, unstable.Range, bool) {
	var b strings.Builder
	var first unstable.Range
	n, parts := 0, 0
	for it.Next() {
		nd := it.Node()
		if parts > 0 {
			n++
			if n <= MaxKeyLen {
				b.WriteByte('.')
			}
		} else {
			first = nd.Raw
		}
		parts++
		if n+len(nd.Data) <= MaxKeyLen {
			b.Write(nd.Data)
		}
		n += len(nd.Data)
	}
	return b.String(), n, parts, first, parts > 0
}

// suggest returns ` (did you mean "x"?)` for the candidate nearest to word
// by edit distance, when one is near enough to be a likely typo.
func suggest(word string, candidates []string) string {
	best, bestD := "", -1
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := editDistance(w, c)
		if len(w) >= 3 && strings.HasPrefix(c, w) {
			d = 1 // a cut-short name ("o200k" for "o200k_base")
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(2, len(best)/3) {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (keys and codes are ASCII); long words are cut, a key is never long.
func editDistance(a, b string) int {
	const maxLen = 64
	if len(a) > maxLen {
		a = a[:maxLen]
	}
	if len(b) > maxLen {
		b = b[:maxLen]
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
