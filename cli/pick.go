package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/analysis"
	"github.com/sessionls/sessionls/analysis/dialect"
	"github.com/sessionls/sessionls/analysis/fix"
	"github.com/sessionls/sessionls/internal/textfmt"
)

// Candidates of an ambiguous run of interleaved pieces (fix.Ambiguity):
// check --fix and --diff list them, numbered, under the run's message, and
// --pick LINE:N applies candidate N of the run at LINE (the line the
// listing names), as ruff applies one chosen fix. The candidate is an
// unsafe fix: --pick needs --unsafe-fixes. It goes through the same path
// as every other fix (fix.Apply, then the file is fixed again, then the
// safe replace of fixPath), so nothing else about the write changes.

// pickFlagHelp is the help of --pick.
const pickFlagHelp = "with --unsafe-fixes and --fix or --diff, on one file: apply candidate `N` of the ambiguous run of interleaved pieces at line `LINE` (LINE:N, as check --diff lists them; repeatable)"

// pick is one --pick LINE:N.
type pick struct{ line, n int }

func (p pick) String() string { return strconv.Itoa(p.line) + ":" + strconv.Itoa(p.n) }

// parsePicks parses --pick values.
func parsePicks(vals []string) ([]pick, error) {
	var out []pick
	for _, v := range vals {
		a, b, ok := strings.Cut(v, ":")
		l, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || l < 1 || n < 1 {
			return nil, usagef("invalid --pick %q (want LINE:N, e.g. 2:1: candidate 1 of the ambiguous run at line 2)", v)
		}
		out = append(out, pick{l, n})
	}
	return out, nil
}

// pickError is a --pick that names no candidate of the file: nothing is
// written.
type pickError struct{ msg string }

func (p pickError) Error() string { return p.msg }

// inputAmbiguities are the ambiguous runs of data itself, in its lines
// (before any fix): what --pick names. d is data's dialect; one that does
// not name them (dialect.Ambiguer) has none to pick.
func inputAmbiguities(ctx context.Context, d dialect.Dialect, data []byte, opts analysis.Options) ([]fix.Ambiguity, error) {
	am, ok := d.(dialect.Ambiguer)
	if !ok {
		return nil, nil
	}
	opts.SkipMessages = false
	rep, err := d.AnalyzeReader(ctx, bytes.NewReader(data), opts)
	if err != nil {
		return nil, err
	}
	return am.Ambiguities(data, rep.Findings), nil
}

// applyPicks applies the candidates picks choose among data's own
// ambiguous runs (in data's lines, as check lists them) to data, then
// fixes the result with fixAll (the rejoined records may let other fixes
// happen, an orphan's call now declared), and returns what both did, in
// terms of data.
func applyPicks(ctx context.Context, path string, d dialect.Dialect, data []byte, opts analysis.Options, picks []pick, fixAll func(context.Context, []byte) (fix.Result, error)) (fix.Result, error) {
	ambs, err := inputAmbiguities(ctx, d, data, opts)
	if err != nil {
		return fix.Result{}, err
	}
	var chosen []fix.Fix
	taken := map[int]bool{} // ambiguity index → picked
	for _, p := range picks {
		i := -1
		for k, a := range ambs {
			if p.line >= a.Line && p.line <= a.EndLine {
				i = k
			}
		}
		if i < 0 {
			return fix.Result{}, pickError{fmt.Sprintf("--pick %s: no ambiguous run of interleaved pieces at line %d of %s (%s); nothing was written", p, p.line, path, runsText(ambs))}
		}
		a := ambs[i]
		if p.n > len(a.Candidates) {
			return fix.Result{}, pickError{fmt.Sprintf("--pick %s: the run at line %d of %s has %s; nothing was written", p, a.Line, path, textfmt.Plural(len(a.Candidates), "candidate", "candidates"))}
		}
		if taken[i] {
			return fix.Result{}, pickError{fmt.Sprintf("--pick %s: the run at line %d of %s is picked twice; nothing was written", p, a.Line, path)}
		}
		taken[i] = true
		chosen = append(chosen, a.Candidates[p.n-1])
	}
	return fix.ApplyChosen(ctx, fix.Result{Data: data}, chosen, fixAll)
}

// runsText names the ambiguous runs of a file, for a --pick that misses.
func runsText(ambs []fix.Ambiguity) string {
	if len(ambs) == 0 {
		return "it has none"
	}
	var s []string
	for _, a := range ambs {
		s = append(s, strconv.Itoa(a.Line))
	}
	return "its runs are at " + strings.Join(s, ", ")
}

// listCandidates prints, under an ambiguity's message, each candidate
// numbered as --pick takes it.
func listCandidates(w io.Writer, a fix.Ambiguity) {
	for i, c := range a.Candidates {
		fmt.Fprintf(w, "sessionls:   --pick %d:%d  %s\n", a.Line, i+1, textfmt.Sanitize(c.Title))
	}
	if len(a.Candidates) > 0 {
		fmt.Fprintf(w, "sessionls:   (see one with --diff --unsafe-fixes --pick %d:N; apply it with --fix --unsafe-fixes --pick %d:N)\n", a.Line, a.Line)
	}
}

// isDir reports whether path names a directory ("-" and paths that
// cannot be read are no directory: they are reported when checked).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// candidateInfo is one candidate of an ambiguous run as the formats print
// it: json its pick and title, sarif one more fix of the finding.
type candidateInfo struct {
	pick string // LINE:N, as --pick takes it
	fixInfo
}

// withCandidates attaches the candidates of each ambiguous run of data to
// the first interleaved-record finding on its lines (findings sorted by
// line, m their fixes by index; m is made when nil).
func withCandidates(m fileFixes, findings []analysis.Finding, data []byte, ambs []fix.Ambiguity, regions bool) fileFixes {
	for _, a := range ambs {
		i := slices.IndexFunc(findings, func(f analysis.Finding) bool {
			return f.Code == analysis.CodeInterleavedRecord && f.Line >= a.Line && f.Line <= a.EndLine
		})
		if i < 0 {
			continue
		}
		if m == nil {
			m = make(fileFixes, len(findings))
		}
		for k, c := range a.Candidates {
			var one fileFixes = make(fileFixes, 1)
			one.set(0, c, fixLines(data, c), regions)
			one[0].title = c.Title // json lists it too
			m[i].candidates = append(m[i].candidates, candidateInfo{pick: pick{a.Line, k + 1}.String(), fixInfo: one[0]})
		}
	}
	return m
}

// fixLines are the bytes of the lines a fix spans, without the last one's
// '\n' (what fix.Fix.Position counts in).
func fixLines(data []byte, f fix.Fix) []byte {
	end := f.LineStart
	for ln := f.Line; ln <= max(f.EndLine, f.Line); ln++ {
		if ln > f.Line {
			end++ // past the '\n' before this line
		}
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			end += i
		} else {
			end = len(data)
			break
		}
	}
	return data[f.LineStart:end]
}

// candidatesAt are the candidates attached to finding i.
func (m fileFixes) candidatesAt(i int) []candidateInfo {
	if i >= len(m) {
		return nil
	}
	return m[i].candidates
}

// plainAmbiguities reads, for a plain check of a file with an
// interleaved-record finding, the whole file (up to maxSpool bytes; stdin
// is not read again) for its ambiguous runs, and attaches their candidates
// to r's findings.
func plainAmbiguities(ctx context.Context, t target, r *fileResult, regions bool) error {
	if t.stdin || !slices.ContainsFunc(r.findings, func(f analysis.Finding) bool { return f.Code == analysis.CodeInterleavedRecord }) {
		return nil
	}
	f, err := openRegular(t.path, checkStdinHint)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSpool+1))
	if err != nil || len(data) > maxSpool {
		return err // too long to hold: no candidates listed
	}
	if r.ambiguities, err = inputAmbiguities(ctx, bytesDialect(t.dialect, data), data, t.opts); err != nil {
		return err
	}
	r.fixes = withCandidates(r.fixes, r.findings, data, r.ambiguities, regions)
	return nil
}

func jsonCandidates(cs []candidateInfo) []jsonCandidate {
	var out []jsonCandidate
	for _, c := range cs {
		out = append(out, jsonCandidate{Pick: c.pick, Title: c.title})
	}
	return out
}
