// Command lsp measures the language server from outside, as an editor
// meets it: it starts the built `sessionls serve --stdio` as a separate
// process, frames every message itself, and for each transcript size
//
//   - times didOpen → the first publishDiagnostics (from the first byte
//     written to the last byte of the notification read);
//   - makes -edits edits in a user message near the middle (insert a
//     character, delete it, …), each timed to its publishDiagnostics, and
//     after each one a codeLens request, timed to the last byte of its
//     response;
//   - reads the server's peak resident set size (VmHWM in
//     /proc/<pid>/status) after all that;
//   - and, in the same run, times `sessionls check` on the same file.
//
// Several binaries (label=path, comma-separated) are measured interleaved,
// so that a before/after comparison shares the machine's load.
//
//	go build -o bench/out/sessionls ./cmd/sessionls
//	go run ./bench/lsp -bin bench/out/sessionls
//
// Transcripts are bench/gen's (bench/out/session-<size>.jsonl, generated
// when absent). Over -repeat runs it keeps the fastest open and check, the
// median of every edit and lens timing, and the highest VmHWM.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sessionls/sessionls/internal/transcript"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench/lsp:", err)
		os.Exit(1)
	}
}

type binary struct{ label, path string }

type config struct {
	bins   []binary
	sizes  []string
	dir    string
	seed   int64
	edits  int
	repeat int
	budget int64
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("lsp", flag.ContinueOnError)
	bins := fs.String("bin", "bench/out/sessionls", "sessionls binaries to measure: `PATH` or LABEL=PATH, comma-separated")
	sizes := fs.String("sizes", "5M,20M,50M,100M", "transcript sizes (K, M, G suffixes: powers of 1024), comma-separated")
	dir := fs.String("dir", "bench/out", "where the transcripts are (and are generated)")
	seed := fs.Int64("seed", 1, "bench/gen's seed")
	edits := fs.Int("edits", 20, "edits, and codeLens requests, per session")
	repeat := fs.Int("repeat", 3, "sessions (and checks) per size and binary")
	budget := fs.Int64("budget", 1_000_000, "the budget the server is initialized with (it adds the cutoff lens)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	c := config{dir: *dir, seed: *seed, edits: *edits, repeat: *repeat, budget: *budget}
	for _, b := range strings.Split(*bins, ",") {
		label, path, ok := strings.Cut(b, "=")
		if !ok {
			label, path = filepath.Base(b), b
		}
		c.bins = append(c.bins, binary{label, path})
	}
	c.sizes = strings.Split(*sizes, ",")
	if c.edits < 1 || c.repeat < 1 {
		return config{}, errors.New("-edits and -repeat must be at least 1")
	}
	return c, nil
}

// stats are one binary's figures on one size.
type stats struct {
	check, open       []time.Duration
	checkCPU, openCPU []time.Duration
	checkRSS, hwm     []int64
	edits, lenses     []time.Duration
}

func run(args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	fmt.Fprintf(stdout, "| size | bytes | server | `check` ms | `check` CPU ms | `check` RSS MiB | open → diagnostics ms | open CPU ms | open / check | edit → diagnostics ms (median) | codeLens ms (median) | VmHWM MiB | VmHWM / doc |\n")
	fmt.Fprintf(stdout, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, size := range cfg.sizes {
		doc, err := loadDocument(cfg, size)
		if err != nil {
			return err
		}
		all := make([]stats, len(cfg.bins))
		for r := range cfg.repeat {
			for i, b := range cfg.bins {
				st := &all[i]
				chk, err := check(b.path, doc.path)
				if err != nil {
					return err
				}
				st.check = append(st.check, chk.wall)
				st.checkCPU = append(st.checkCPU, chk.cpu)
				st.checkRSS = append(st.checkRSS, chk.rss)
				res, err := session(ctx, b.path, doc, cfg)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", b.label, doc.path, err)
				}
				st.open = append(st.open, res.open)
				st.openCPU = append(st.openCPU, res.openCPU)
				st.hwm = append(st.hwm, res.hwm)
				st.edits = append(st.edits, res.edits...)
				st.lenses = append(st.lenses, res.lenses...)
				fmt.Fprintf(stderr, "%s %s run %d: check %v (CPU %v, %d MiB), open %v (CPU %v, diagnostics %d B, VmHWM %d MiB), edit %.2f ms, lens %.2f ms (%d B), VmHWM %d MiB\n",
					size, b.label, r+1, chk.wall.Round(time.Millisecond), chk.cpu.Round(time.Millisecond), chk.rss>>20,
					res.open.Round(time.Millisecond), res.openCPU, res.diagnostics, res.openHWM>>20,
					ms(median(res.edits)), ms(median(res.lenses)), res.lensBytes, res.hwm>>20)
			}
		}
		for i, b := range cfg.bins {
			st := all[i]
			chk, open, hwm := slices.Min(st.check), slices.Min(st.open), slices.Max(st.hwm)
			fmt.Fprintf(stdout, "| %s | %d | %s | %.0f | %.0f | %d | %.0f | %.0f | %.1fx | %.2f | %.2f | %d | %.2fx |\n",
				size, doc.size, b.label, ms(chk), ms(slices.Min(st.checkCPU)), slices.Max(st.checkRSS)>>20,
				ms(open), ms(slices.Min(st.openCPU)), float64(open)/float64(chk),
				ms(median(st.edits)), ms(median(st.lenses)), hwm>>20, float64(hwm)/float64(doc.size))
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// document is one transcript, with the messages that open and edit it
// framed in advance (the client's own encoding is not timed).
type document struct {
	path      string
	size      int64
	uri       string
	open      []byte // the didOpen frame
	line, col int    // where the edits go
}

func loadDocument(cfg config, size string) (*document, error) {
	n, err := parseSize(size)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(cfg.dir, "session-"+size+".jsonl")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := generate(path, n, cfg.seed); err != nil {
			return nil, err
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc := &document{path: path, size: int64(len(text)), uri: "file:///bench/" + filepath.Base(path), line: -1}
	// The edited line: the first user message in the second half (as
	// lsp's BenchmarkLargeSession does).
	const user = `{"role":"user","content":"`
	lines := bytes.Split(text, []byte("\n"))
	for i := len(lines) / 2; i < len(lines); i++ {
		if bytes.HasPrefix(lines[i], []byte(user)) {
			doc.line, doc.col = i, len(user)
			break
		}
	}
	if doc.line < 0 {
		return nil, fmt.Errorf("%s: no user message in the second half", path)
	}
	// Escaped as editors do (JSON.stringify leaves <, > and & alone).
	var body bytes.Buffer
	body.WriteString(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + doc.uri +
		`","languageId":"jsonl","version":1,"text":`)
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(text)); err != nil {
		return nil, err
	}
	body.Truncate(body.Len() - 1) // Encode's newline
	body.WriteString(`}}}`)
	doc.open = frame(body.Bytes())
	return doc, nil
}

func generate(path string, size, seed int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := transcript.Write(f, size, seed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseSize reads 100M, 512K, 1G or a byte count (as bench/gen does).
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = t, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a positive number with an optional K, M or G suffix, like 50M", s)
	}
	return n * mult, nil
}

// checkResult is one run of `sessionls check`.
type checkResult struct {
	wall, cpu time.Duration
	rss       int64
}

// check times `sessionls check FILE` (its exit code says whether there
// were findings, and does not matter here) and measures its peak RSS.
func check(bin, path string) (checkResult, error) {
	res, err := measure(exec.Command(bin, "check", path))
	if err != nil {
		return checkResult{}, fmt.Errorf("%s check: %w", bin, err)
	}
	return res, nil
}

// measure runs cmd to its end and returns its wall and CPU time and its
// own peak RSS: the VmHWM of its memory, read when it stops at its exit
// (ptrace's PTRACE_EVENT_EXIT), while that memory still exists.
//
// The wait4 rusage's ru_maxrss cannot be used: Go starts a child with
// clone(CLONE_VM|CLONE_VFORK), so until its exec the child runs in the
// parent's memory, and the kernel folds that memory's high-water mark
// into the child's maxrss at exec. It reported this process's peak (the
// transcript it holds: ~330 MiB for a 50 MB file) for a check whose own
// peak /usr/bin/time shows at 25 MiB.
func measure(cmd *exec.Cmd) (checkResult, error) {
	// Every ptrace request must come from the thread that started the
	// tracee.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return checkResult{}, err
	}
	pid := cmd.Process.Pid
	defer func() { _ = cmd.Process.Release() }()
	var ws syscall.WaitStatus
	// The child stops with SIGTRAP at its exec.
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return checkResult{}, fmt.Errorf("waiting for the exec: %w", err)
	}
	if !ws.Stopped() {
		return checkResult{}, fmt.Errorf("the child did not stop at its exec (status %v)", ws)
	}
	if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXIT); err != nil {
		_ = cmd.Process.Kill()
		return checkResult{}, fmt.Errorf("ptrace: %w", err)
	}
	sig := 0
	var rss int64
	var ru syscall.Rusage
	for {
		if err := syscall.PtraceCont(pid, sig); err != nil {
			return checkResult{}, fmt.Errorf("ptrace: %w", err)
		}
		if _, err := syscall.Wait4(pid, &ws, 0, &ru); err != nil {
			return checkResult{}, fmt.Errorf("waiting for the child: %w", err)
		}
		if ws.Exited() || ws.Signaled() {
			break
		}
		sig = 0
		switch {
		case !ws.Stopped():
		case ws.StopSignal() == syscall.SIGTRAP && ws.TrapCause() == syscall.PTRACE_EVENT_EXIT:
			var err error
			if rss, err = vmHWM(pid); err != nil {
				return checkResult{}, fmt.Errorf("reading the peak RSS at exit: %w", err)
			}
		case ws.StopSignal() != syscall.SIGTRAP:
			sig = int(ws.StopSignal()) // a signal for the child: delivered
		}
	}
	wall := time.Since(start)
	if ws.Signaled() {
		return checkResult{}, fmt.Errorf("killed by %v", ws.Signal())
	}
	if rss == 0 {
		return checkResult{}, errors.New("the child exited without the exit stop: no peak RSS")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return checkResult{wall: wall, cpu: cpu, rss: rss}, nil
}

// sessionResult is one server process's figures.
type sessionResult struct {
	open          time.Duration
	openCPU       time.Duration // the server's CPU time (user + system) during the open
	edits, lenses []time.Duration
	hwm           int64 // VmHWM at the end
	openHWM       int64 // VmHWM after the open
	diagnostics   int   // the first publication's size in bytes
	lensBytes     int   // the last codeLens response's size in bytes
}

// session runs one server through initialize, didOpen, the edits and
// lenses, and shutdown.
func session(ctx context.Context, bin string, doc *document, cfg config) (sessionResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	c, err := startServer(bin)
	if err != nil {
		return sessionResult{}, err
	}
	var res sessionResult
	fail := func(err error) (sessionResult, error) {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
		return sessionResult{}, err
	}
	response := func(id int) func(event) bool { return func(ev event) bool { return ev.id == id } }
	published := func(v int) func(event) bool {
		return func(ev event) bool {
			return ev.method == "textDocument/publishDiagnostics" && ev.version == v
		}
	}

	c.nextID++
	init := map[string]any{"processId": os.Getpid(), "rootUri": nil, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"budget": cfg.budget}}
	if _, _, err := c.timed(ctx, message(c.nextID, "initialize", init), response(c.nextID)); err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	if err := c.write(message(0, "initialized", map[string]any{})); err != nil {
		return fail(err)
	}

	var ev event
	cpu0, err := c.cpuTime()
	if err != nil {
		return fail(err)
	}
	res.open, ev, err = c.timed(ctx, doc.open, published(1))
	if err != nil {
		return fail(fmt.Errorf("didOpen: %w", err))
	}
	cpu1, err := c.cpuTime()
	if err != nil {
		return fail(err)
	}
	res.openCPU = cpu1 - cpu0
	res.diagnostics = ev.bytes
	if res.openHWM, err = c.peakRSS(); err != nil {
		return fail(err)
	}

	textDoc := map[string]any{"uri": doc.uri}
	for i := range cfg.edits {
		version := i + 2
		at := map[string]any{"line": doc.line, "character": doc.col}
		rng, text := map[string]any{"start": at, "end": at}, "x"
		if i%2 == 1 {
			rng["end"], text = map[string]any{"line": doc.line, "character": doc.col + 1}, ""
		}
		change := message(0, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": doc.uri, "version": version},
			"contentChanges": []any{map[string]any{"range": rng, "text": text}},
		})
		d, _, err := c.timed(ctx, change, published(version))
		if err != nil {
			return fail(fmt.Errorf("didChange: %w", err))
		}
		res.edits = append(res.edits, d)

		c.nextID++
		d, ev, err = c.timed(ctx, message(c.nextID, "textDocument/codeLens", map[string]any{"textDocument": textDoc}), response(c.nextID))
		if err != nil {
			return fail(fmt.Errorf("codeLens: %w", err))
		}
		res.lenses = append(res.lenses, d)
		res.lensBytes = ev.bytes
	}
	if res.hwm, err = c.peakRSS(); err != nil {
		return fail(err)
	}
	if err := c.stop(ctx); err != nil {
		return sessionResult{}, fmt.Errorf("shutting down: %w", err)
	}
	return res, nil
}
