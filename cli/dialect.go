package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/config"
)

// Dialects in the CLI: every command that reads sessions takes --dialect
// (config's `dialect` setting: auto, the default, detects each file's
// from its first record; see dialect.Detect) and reads each file through
// its dialect. The seed dialect is the engine itself, so a seed file goes
// exactly the way it went before dialects: the same calls, the same
// streaming fix marks (streamFixesCapped); only the choice costs a read of
// the file's first line (at most dialect.MaxSniff bytes) when the setting
// is auto.

// settingDialect is the dialect the setting s names; nil for auto (each
// file's is detected when it is read). A name this build does not have is
// an error about the setting's source.
func settingDialect(s config.Settings) (dialect.Dialect, error) {
	name := s.Dialect.V
	if name == dialect.Auto || name == "" {
		return nil, nil
	}
	d, err := dialect.Named(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Dialect.Source, err)
	}
	return d, nil
}

// readerAtSeeker is a file: Detect can read its start without moving it.
type readerAtSeeker interface {
	io.ReaderAt
	io.Seeker
}

// detectStream chooses the dialect of the stream r when d is nil (auto),
// and returns the reader to analyse in r's place: r itself when it is a
// file (Detect reads its first bytes at their offsets, so the engine keeps
// its ReadAt and Seek for long lines), else what Detect read followed by
// the rest of r (stdin, a pipe).
func detectStream(d dialect.Dialect, r io.Reader) (dialect.Dialect, io.Reader, error) {
	if d != nil {
		return d, r, nil
	}
	if f, ok := r.(readerAtSeeker); ok {
		if off, err := f.Seek(0, io.SeekCurrent); err == nil {
			det, _, err := dialect.Detect(io.NewSectionReader(f, off, dialect.MaxSniff))
			if err != nil {
				return nil, nil, err
			}
			return det.Dialect, r, nil
		}
	}
	det, head, err := dialect.Detect(r)
	if err != nil {
		return nil, nil, err
	}
	return det.Dialect, io.MultiReader(bytes.NewReader(head), r), nil
}

// bytesDialect is d, or for auto (nil) the dialect detected in data.
func bytesDialect(d dialect.Dialect, data []byte) dialect.Dialect {
	if d != nil {
		return d
	}
	return dialect.DetectBytes(data).Dialect
}

// isSeed says whether d is the engine itself (its fix marks are streamed).
func isSeed(d dialect.Dialect) bool {
	_, ok := d.(dialect.Seed)
	return ok
}

// analyzeWith is env.analyze's default: the dialect reads the stream.
func analyzeWith(ctx context.Context, d dialect.Dialect, r io.Reader, opts analysis.Options) (*analysis.Report, error) {
	return d.AnalyzeReader(ctx, r, opts)
}

// planFixesCapped is streamFixesCapped for a dialect other than seed,
// whose fixes are planned on the whole text (Dialect.Plan): the file is
// read again into memory, up to maxSpool bytes; past that its findings
// show no fixes (as stdin's past the spool). The findings past the cap
// (cut) are planned by their line and code, and counted.
func planFixesCapped(ctx context.Context, d dialect.Dialect, r io.Reader, findings []analysis.Finding, cut []cutLines, regions bool) (fileFixes, fixCounts, error) {
	var counts fixCounts
	data, err := io.ReadAll(io.LimitReader(r, maxSpool+1))
	if err != nil {
		return nil, counts, err
	}
	if len(data) > maxSpool {
		return nil, counts, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, counts, err
	}
	fixes := fixesOf(d, data, findings, regions)
	var more []analysis.Finding
	for _, c := range cut {
		for ln := range c.lines.All() {
			more = append(more, analysis.Finding{Line: ln, Code: c.code})
		}
	}
	if len(more) > 0 {
		slices.SortStableFunc(more, func(a, b analysis.Finding) int { return a.Line - b.Line })
		for _, f := range d.Plan(data, more) {
			switch f.Safety {
			case fix.Safe:
				counts.safe++
			case fix.Unsafe:
				counts.unsafe++
			}
		}
	}
	return fixes, counts, nil
}

// dialectJSON is the dialect that applies to a file, in `config --format
// json`: its name (null for a directory with auto: each file's own), and
// why.
type dialectJSON struct {
	Name *string `json:"name"`
	// Detected: auto chose it from the file's first record, at Line.
	Detected bool   `json:"detected"`
	Line     int    `json:"line,omitempty"`
	Why      string `json:"why"`
}

// explainDialect says which dialect applies to path under the settings s
// and why: the setting's (where it was set), or, for auto, the one Detect
// finds in the file (from which line).
func explainDialect(s config.Settings, path string, isDir bool) dialectJSON {
	if s.Dialect.V != dialect.Auto {
		name := s.Dialect.V
		j := dialectJSON{Name: &name, Why: "set by " + s.Dialect.Source.String()}
		if _, err := dialect.Named(name); err != nil {
			j.Why += "; " + err.Error()
		}
		return j
	}
	auto := "auto (" + s.Dialect.Source.String() + ")"
	if isDir {
		return dialectJSON{Why: auto + ": detected for each file from its first line that JSON.parse accepts"}
	}
	f, err := openRegular(path, "")
	if err != nil {
		return dialectJSON{Why: auto + ": detected when the file is read (cannot read it now: " + err.Error() + ")"}
	}
	defer f.Close()
	det, _, err := dialect.Detect(io.NewSectionReader(f, 0, dialect.MaxSniff))
	if err != nil {
		return dialectJSON{Why: auto + ": detected when the file is read (cannot read it now: " + err.Error() + ")"}
	}
	name := det.Dialect.Name()
	return dialectJSON{Name: &name, Detected: true, Line: det.Line, Why: auto + ", detected: " + det.Why}
}

// text is the line `config` prints for it.
func (j dialectJSON) text() string {
	if j.Name == nil {
		return "# dialect: " + j.Why
	}
	return "# dialect: " + *j.Name + ": " + j.Why
}
