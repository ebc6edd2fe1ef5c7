package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sessionls/sessionls/internal/lspframe"
)

// event is one message from the server, stamped when its last byte was
// read.
type event struct {
	at      time.Time
	id      int    // a response's id (0 for a notification)
	method  string // a notification's method
	version int    // publishDiagnostics' version
	bytes   int    // the body's size
}

// client drives one `sessionls serve --stdio` process over its pipes. It
// frames every message itself, so that the server's decoding is what the
// timings measure, and answers the server's own requests with null.
type client struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	events  chan event
	readErr chan error

	writeMu sync.Mutex
	nextID  int // the last request id sent
}

func startServer(bin string) (*client, error) {
	cmd := exec.Command(bin, "serve", "--stdio", "--log-file", os.DevNull)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s serve: %w", bin, err)
	}
	c := &client{cmd: cmd, stdin: stdin, events: make(chan event, 64), readErr: make(chan error, 1)}
	go c.readLoop(bufio.NewReaderSize(stdout, 1<<20))
	return c, nil
}

// readLoop reads the server's messages until EOF.
func (c *client) readLoop(r *bufio.Reader) {
	for {
		body, err := lspframe.Read(r)
		if err != nil {
			c.readErr <- err
			close(c.events)
			return
		}
		at := time.Now()
		ev, request, err := parseMessage(body)
		if err != nil {
			c.readErr <- err
			close(c.events)
			return
		}
		ev.at = at
		if request != nil {
			// workspace/configuration, workspace/codeLens/refresh, …: the
			// client has nothing to say.
			go c.write(frame([]byte(`{"jsonrpc":"2.0","id":` + string(request) + `,"result":null}`)))
			continue
		}
		c.events <- ev
	}
}

// parseMessage reads what the benchmark needs from a server message. A
// request from the server is returned as its raw id.
func parseMessage(body []byte) (event, json.RawMessage, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Version int `json:"version"`
		} `json:"params"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return event{}, nil, fmt.Errorf("a server message that is not JSON: %w", err)
	}
	if m.Error != nil {
		return event{}, nil, fmt.Errorf("the server answered with an error: %s", m.Error.Message)
	}
	if m.Method != "" && len(m.ID) > 0 {
		return event{}, m.ID, nil
	}
	ev := event{method: m.Method, version: m.Params.Version, bytes: len(body)}
	if len(m.ID) > 0 {
		id, err := strconv.Atoi(string(m.ID))
		if err != nil {
			return event{}, nil, fmt.Errorf("a response with id %s, which the client never sent", m.ID)
		}
		ev.id = id
	}
	return ev, nil, nil
}

func frame(body []byte) []byte {
	b := make([]byte, 0, len(body)+32)
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}

func (c *client) write(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.stdin.Write(b)
	return err
}

// message frames a request (id > 0) or a notification.
func message(id int, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id > 0 {
		m["id"] = id
	}
	body, err := json.Marshal(m)
	if err != nil {
		panic(err) // the benchmark's own values always marshal
	}
	return frame(body)
}

// await waits for the first event that match accepts.
func (c *client) await(ctx context.Context, match func(event) bool) (event, error) {
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				return event{}, fmt.Errorf("the server closed its output: %w", <-c.readErr)
			}
			if match(ev) {
				return ev, nil
			}
		case <-ctx.Done():
			return event{}, fmt.Errorf("waiting for the server: %w", ctx.Err())
		}
	}
}

// timed writes msg and returns the time until the first event that match
// accepts has been read whole.
func (c *client) timed(ctx context.Context, msg []byte, match func(event) bool) (time.Duration, event, error) {
	start := time.Now()
	if err := c.write(msg); err != nil {
		return 0, event{}, err
	}
	ev, err := c.await(ctx, match)
	if err != nil {
		return 0, event{}, err
	}
	return ev.at.Sub(start), ev, nil
}

// peakRSS reads the server's VmHWM (peak resident set size) in bytes.
func (c *client) peakRSS() (int64, error) { return vmHWM(c.cmd.Process.Pid) }

// vmHWM reads process pid's VmHWM (peak resident set size) in bytes.
func vmHWM(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmHWM:")); ok {
			f := strings.Fields(string(v))
			if len(f) != 2 || f[1] != "kB" {
				return 0, fmt.Errorf("unexpected VmHWM line %q", l)
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/<pid>/status")
}

// cpuTime reads the server's CPU time so far (user + system) from
// /proc/<pid>/stat, in clock ticks of 10 ms.
func (c *client) cpuTime() (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after its closing parenthesis (utime and stime are fields 14 and 15).
	i := bytes.LastIndexByte(data, ')')
	f := strings.Fields(string(data[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/<pid>/stat: %q", data)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// stop shuts the server down (shutdown, exit) and waits for it.
func (c *client) stop(ctx context.Context) error {
	c.nextID++
	id := c.nextID
	if _, _, err := c.timed(ctx, message(id, "shutdown", nil), func(ev event) bool { return ev.id == id }); err != nil {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
		return err
	}
	_ = c.write(message(0, "exit", nil))
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = c.cmd.Process.Kill()
		<-done
		return fmt.Errorf("the server did not exit: %w", ctx.Err())
	}
}
