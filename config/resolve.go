package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sessionls/sessionls/internal/glob"
)

// Options configure a Resolver.
type Options struct {
	// Isolated ignores configuration files: every path gets the defaults.
	Isolated bool
	// ConfigFile, when set, is used for every path instead of discovery;
	// its globs are relative to Cwd (as ruff resolves --config).
	ConfigFile string
	// Cwd is the directory relative paths start from; "" means the process's.
	Cwd string
	// AbsoluteNames names configuration files by their absolute paths in
	// messages and sources (the language server has no current directory
	// that means anything to its user); otherwise relative to Cwd.
	AbsoluteNames bool
}

// FileError is a configuration file that could not be read or parsed.
// Errors inside it (errors.As) lists the problems when it was parsed.
type FileError struct {
	Path string // the file's absolute path
	Err  error
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Resolver finds the configuration file for paths and computes their
// settings. It caches what it found per directory, so a tree of thousands
// of files reads each configuration file once. Safe for concurrent use.
type Resolver struct {
	opts     Options
	explicit *File
	mu       sync.Mutex
	dirs     map[string]dirResult
}

type dirResult struct {
	f   *File
	err error
}

// NewResolver prepares discovery; with Options.ConfigFile it reads that
// file now, so a bad one is reported before any work starts.
func NewResolver(opts Options) (*Resolver, error) {
	if opts.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("cannot find the current directory: %w", err)
		}
		opts.Cwd = wd
	}
	r := &Resolver{opts: opts, dirs: map[string]dirResult{}}
	if opts.ConfigFile != "" && !opts.Isolated {
		path := r.abs(opts.ConfigFile)
		f, err := r.load(path, opts.Cwd)
		if err != nil {
			return nil, err
		}
		r.explicit = f
	}
	return r, nil
}

func (r *Resolver) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.opts.Cwd, p)
}

// display names a path in messages: relative to Cwd when under it.
func (r *Resolver) display(p string) string {
	if r.opts.AbsoluteNames {
		return p
	}
	if rel, err := filepath.Rel(r.opts.Cwd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}

// load reads and parses one configuration file.
func (r *Resolver) load(path, dir string) (*File, error) {
	f, err := r.loadFile(path, dir)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return f, nil
}

func (r *Resolver) loadFile(path, dir string) (*File, error) {
	display := r.display(path)
	// Not opened unless regular: opening a FIFO blocks until a writer
	// comes, and a device can be endless.
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("cannot read configuration %s: %w", display, unwrapPath(err))
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot read configuration %s: not a regular file", display)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read configuration %s: %w", display, unwrapPath(err))
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read configuration %s: %w", display, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot read configuration %s: not a regular file", display)
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read configuration %s: %w", display, unwrapPath(err))
	}
	return Parse(path, display, dir, data)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ForFile returns the configuration file that applies to the file at path
// (nil: none), searching from the file's directory up.
func (r *Resolver) ForFile(path string) (*File, error) {
	return r.ForDir(filepath.Dir(r.abs(path)))
}

// ForDir returns the configuration file that applies to files in dir.
func (r *Resolver) ForDir(dir string) (*File, error) {
	if r.opts.Isolated {
		return nil, nil
	}
	if r.explicit != nil {
		return r.explicit, nil
	}
	dir = r.abs(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	var walked []string
	res := dirResult{}
	for d := dir; ; {
		if cached, ok := r.dirs[d]; ok {
			res = cached
			break
		}
		walked = append(walked, d)
		if f, found, err := r.lookIn(d); found {
			res = dirResult{f, err}
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break // the filesystem root: no configuration
		}
		d = parent
	}
	for _, d := range walked {
		r.dirs[d] = res
	}
	return res.f, res.err
}

// lookIn loads the configuration file of one directory, if it has one.
func (r *Resolver) lookIn(dir string) (*File, bool, error) {
	for _, name := range []string{DotName, Name} {
		p := filepath.Join(dir, name)
		_, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, true, &FileError{Path: p, Err: fmt.Errorf("cannot read configuration %s: %w", r.display(p), unwrapPath(err))}
		}
		f, err := r.load(p, dir)
		return f, true, err
	}
	return nil, false, nil
}

// Forget drops what the resolver cached, so the next lookup reads the
// files again (the language server calls it when one changes).
func (r *Resolver) Forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dirs = map[string]dirResult{}
}

// Settings returns the effective settings for the session file at path
// (defaults, the configuration file's keys, its matching overrides) and the
// configuration file that applied (nil: none).
func (r *Resolver) Settings(path string) (Settings, *File, error) {
	s := Defaults()
	f, err := r.ForFile(path)
	if err != nil {
		return s, nil, err
	}
	f.Apply(&s, r.abs(path))
	return s, f, nil
}

// Selects reports whether a file met while searching a directory is a
// session file: it matches files and not exclude (an exclude glob matching
// one of its directories excludes it too). Files named on a command line
// are checked whatever this says, as ruff does.
func (r *Resolver) Selects(path string) (bool, error) {
	f, err := r.ForFile(path)
	if err != nil {
		return false, err
	}
	return f.Selects(r.abs(path)), nil
}

// Apply layers f's settings for the file at abs (an absolute path) onto s:
// the top-level keys, then each [[overrides]] table whose files match, in
// order. A nil File changes nothing.
func (f *File) Apply(s *Settings, abs string) {
	if f == nil {
		return
	}
	s.Config = f.Display
	at := func(p pos, override int) Source {
		if override > 0 {
			return Source{Kind: FromOverride, File: f.Display, Line: p.line, Col: p.col, Override: override}
		}
		return Source{Kind: FromFile, File: f.Display, Line: p.line, Col: p.col}
	}
	f.top.apply(s, func(p pos) Source { return at(p, 0) })
	if f.files != nil {
		s.Files.Set(f.files.src, at(f.files.pos, 0))
	}
	if f.exclude != nil {
		s.Exclude.Set(f.exclude.src, at(f.exclude.pos, 0))
	}
	rel := f.rel(abs)
	for _, o := range f.overrides {
		if o.files.match(rel) {
			o.layer.apply(s, func(p pos) Source { return at(p, o.index) })
		}
	}
}

func (l layer) apply(s *Settings, src func(pos) Source) {
	for _, d := range settingTable() {
		if it, ok := l[d.Key]; ok {
			d.field(s).set(it.v, src(it.pos))
		}
	}
}

// rel is abs relative to the file's directory in slash form; a path
// outside it is returned whole, so only globs that start with "**" (or
// name a file at any depth) can match it.
func (f *File) rel(abs string) string {
	if rel, err := filepath.Rel(f.Dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}

// Selects reports whether the file at abs is a session file by f's files
// and exclude (the defaults for a nil File).
func (f *File) Selects(abs string) bool {
	if f == nil {
		return defaultFilesList().match(filepath.ToSlash(abs))
	}
	rel := f.rel(abs)
	files := f.files
	if files == nil {
		files = defaultFilesList()
	}
	if !files.match(rel) {
		return false
	}
	return !f.excluded(rel)
}

// SelectsByFiles reports whether the file at abs matches f's files globs
// (the defaults when f sets none, or for a nil File), exclude aside: what
// an editor asks of a document it opened, which is checked like a file
// named on the command line.
func (f *File) SelectsByFiles(abs string) bool {
	if f == nil || f.files == nil {
		return defaultFilesList().match(filepath.ToSlash(abs))
	}
	return f.files.match(f.rel(abs))
}

// excluded reports whether exclude matches rel or a directory above it
// (within f's directory), in one pass over rel per glob.
func (f *File) excluded(rel string) bool {
	if f.exclude == nil || rel == "" || rel == "." || rel == "/" {
		return false
	}
	return f.exclude.matchOrParent(rel)
}

// ExcludesDir reports whether a directory met while searching is excluded
// by the exclude globs of the configuration that applies to it as an
// entry of its parent, so the search skips it whole.
func (r *Resolver) ExcludesDir(dir string) (bool, error) {
	abs := r.abs(dir)
	f, err := r.ForDir(filepath.Dir(abs))
	if err != nil || f == nil {
		return false, err
	}
	return f.excluded(f.rel(abs)), nil
}

func defaultFilesList() *globList {
	src := DefaultFiles()
	l, err := glob.CompileList(src)
	if err != nil {
		panic(err) // the defaults compile; a test holds them to it
	}
	return &globList{src: src, pats: l.Patterns()}
}

// match reports whether one of the globs matches the slash path rel. A
// glob with a "/" is anchored to the configuration's directory
// ("sessions/*.jsonl"); one without matches a name at any depth
// ("*.jsonl", "drafts"), as in ruff's and git's ignore files.
func (g *globList) match(rel string) bool {
	return g.matchWith(rel, (*glob.Pattern).MatchWhole, (*glob.Pattern).MatchTail)
}

// matchOrParent reports whether one of the globs matches the slash path
// rel or one of its parents (see match).
func (g *globList) matchOrParent(rel string) bool {
	return g.matchWith(rel, (*glob.Pattern).MatchWholeOrParent, (*glob.Pattern).MatchTailOrParent)
}

// matchWith reports whether one of the globs matches rel, with whole for
// an anchored glob and tail for the others.
func (g *globList) matchWith(rel string, whole, tail func(*glob.Pattern, string) bool) bool {
	for i, p := range g.pats {
		m := tail
		if anchored(g.src[i]) {
			m = whole
		}
		if m(p, rel) {
			return true
		}
	}
	return false
}

func anchored(src string) bool {
	return strings.HasPrefix(src, "/") || strings.Contains(strings.Trim(src, "/"), "/")
}
