package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// TestCapabilities pins what initialize advertises (README.md,
// Capabilities): building it from the feature table must not change it.
func TestCapabilities(t *testing.T) {
	b, err := json.Marshal(capabilities())
	if err != nil {
		t.Fatal(err)
	}
	want := `{
		"textDocumentSync": {"openClose": true, "change": 2, "save": {}},
		"hoverProvider": true,
		"definitionProvider": true,
		"referencesProvider": true,
		"documentSymbolProvider": true,
		"codeActionProvider": {"codeActionKinds": ["refactor.rewrite", "quickfix", "source.fixAll.sessionls"]},
		"codeLensProvider": {"resolveProvider": true},
		"foldingRangeProvider": true,
		"executeCommandProvider": {"commands": ["sessionls.setBudget", "sessionls.removeDiskBOM"]},
		"positionEncoding": "utf-16"
	}`
	if same, err := jsonEqual(want, string(b)); err != nil || !same {
		t.Fatalf("capabilities() = %s, want %s (%v)", b, want, err)
	}

	for _, f := range features() {
		if f.advertise == nil {
			continue
		}
		var c protocol.ServerCapabilities
		f.advertise(&c)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got == "{}" {
			t.Fatalf("%s: its advertise sets no capability: string(b) = %q, want anything else", f.method, got)
		}
	}
}

// methodRecorder is a jsonrpc2.Conn that only notes the method of each
// call: protocol.ServerDispatcher over it names the LSP method of every
// protocol.Server method.
type methodRecorder struct{ method string }

var errRecorded = errors.New("recorded")

func (r *methodRecorder) Call(_ context.Context, method string, _, _ any) (jsonrpc2.ID, error) {
	r.method = method
	return jsonrpc2.ID{}, errRecorded
}

func (r *methodRecorder) Notify(_ context.Context, method string, _ any) error {
	r.method = method
	return errRecorded
}

func (r *methodRecorder) Go(context.Context, jsonrpc2.Handler) {}
func (r *methodRecorder) Close() error                         { return nil }
func (r *methodRecorder) Done() <-chan struct{}                { return nil }
func (r *methodRecorder) Err() error                           { return nil }

// lspMethod is the LSP method of protocol.Server's method name.
func lspMethod(t *testing.T, name string) string {
	t.Helper()
	rec := &methodRecorder{}
	m := reflect.ValueOf(protocol.ServerDispatcher(rec, zap.NewNop())).MethodByName(name)
	in := []reflect.Value{reflect.ValueOf(context.Background())}
	for i := 1; i < m.Type().NumIn(); i++ {
		in = append(in, reflect.Zero(m.Type().In(i)))
	}
	m.Call(in)
	if rec.method == "" {
		t.Fatalf("%s: the dispatcher sent nothing: rec.method is empty, want a method", name)
	}
	return rec.method
}

// routedHere are the table's methods without a handler: Handle serves them
// with params decoded its own way (protocolfix.go), the router serves exit.
var routedHere = map[string]bool{
	protocol.MethodInitialize:              true,
	protocol.MethodShutdown:                true,
	protocol.MethodExit:                    true,
	protocol.MethodTextDocumentDidChange:   true,
	protocol.MethodWorkspaceExecuteCommand: true,
}

// replyOf runs method with params through dispatch and returns its reply's
// error.
func replyOf(t *testing.T, s *server, method, params string) error {
	t.Helper()
	call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), method, json.RawMessage(params))
	if err != nil {
		t.Fatal(err)
	}
	var replied error
	if err := s.dispatch(context.Background(), func(_ context.Context, _ any, err error) error { replied = err; return nil }, call); err != nil {
		t.Fatalf("%s: s.dispatch: %v", method, err)
	}
	return replied
}

// TestFeatureTable checks that the feature table and the server's methods
// agree: every method in the table has a handler (or is one Handle or the
// router serve), which answers, and every protocol.Server method the server
// has is in the table, so the router serves it and initialize advertises
// it.
func TestFeatureTable(t *testing.T) {
	srv := newServer(context.Background(), zap.NewNop(), nil)

	table := map[string]bool{}
	handlers := map[string]handler{}
	for _, f := range features() {
		handlers[f.method] = f.handle
		if table[f.method] {
			t.Fatalf("%s is in the table twice: table[f.method] is true, want false", f.method)
		}
		table[f.method] = true
		switch {
		case f.handle.serve == nil && !routedHere[f.method]:
			t.Fatalf("%s is in the feature table but has no handler: f.handle.serve is nil, want a handler", f.method)
		case f.handle.serve != nil && routedHere[f.method]:
			t.Fatalf("%s is served by Handle or the router, yet has a handler: f.handle.serve is not nil, want nil", f.method)
		case f.handle.serve != nil:
			// Zero params: the handler answers, whatever it thinks of them.
			err := replyOf(t, srv, f.method, "{}")
			var je *jsonrpc2.Error
			if errors.As(err, &je) && je.Code == jsonrpc2.MethodNotFound {
				t.Fatalf("%s is in the feature table but its handler does not serve it: %v", f.method, err)
			}
		}
	}

	// Every protocol.Server method the server has (same name, same type)
	// is a feature.
	iface, st := reflect.TypeFor[protocol.Server](), reflect.TypeFor[*server]()
	has := 0
	for i := range iface.NumMethod() {
		im := iface.Method(i)
		if im.Name == "Request" {
			continue // custom methods are features by their own names
		}
		sm, ok := st.MethodByName(im.Name)
		if !ok {
			continue
		}
		// sm.Type has the receiver first.
		args := make([]reflect.Type, 0, sm.Type.NumIn()-1)
		for j := 1; j < sm.Type.NumIn(); j++ {
			args = append(args, sm.Type.In(j))
		}
		outs := make([]reflect.Type, 0, sm.Type.NumOut())
		for j := range sm.Type.NumOut() {
			outs = append(outs, sm.Type.Out(j))
		}
		if reflect.FuncOf(args, outs, false) != im.Type {
			continue
		}
		has++
		m := lspMethod(t, im.Name)
		if !table[m] {
			t.Fatalf("the server has %s (%s) but the feature table does not list it: table[m] is false, want true", m, im.Name)
		}
		if h := handlers[m]; h.serve != nil {
			if got, want := funcName(h.method), funcName(sm.Func.Interface()); got != want {
				t.Fatalf("%s: the handler calls %s, want %s", m, got, want)
			}
		}
	}
	if has == 0 {
		t.Fatal("the server has no protocol.Server method: has is 0, want some")
	}

	if got := errMessage(replyOf(t, srv, "sessionls/nope", "{}")); !strings.Contains(got, "method not found") {
		t.Fatalf(`errMessage(replyOf(t, srv, "sessionls/nope", "{}")) = %q, want it to contain %q`, got, "method not found")
	}
}

// funcName is the name of function f.
func funcName(f any) string { return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() }

func errMessage(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
