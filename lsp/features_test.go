package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// TestCapabilities pins what initialize advertises (README.md,
// Capabilities): building it from the feature table must not change it.
func TestCapabilities(t *testing.T) {
	b, err := json.Marshal(capabilities())
	require.NoError(t, err)
	require.JSONEq(t, `{
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
	}`, string(b))

	for _, f := range features() {
		if f.advertise == nil {
			continue
		}
		var c protocol.ServerCapabilities
		f.advertise(&c)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		require.NotEqual(t, "{}", string(b), "%s: its advertise sets no capability", f.method)
	}
}

// handlerKind is how the server answers a protocol.Server method.
type handlerKind int

const (
	stub    handlerKind = iota // unimplemented's: the method is not served
	routed                     // the router calls the server itself (protocolfix.go)
	handled                    // a server method
)

// callWithZeroParams calls method name of v with a background context and
// zero parameters (pointers to zero values), and returns its error.
func callWithZeroParams(t *testing.T, v reflect.Value, name string, args ...any) (err error) {
	t.Helper()
	m := v.MethodByName(name)
	require.True(t, m.IsValid(), name)
	in := []reflect.Value{reflect.ValueOf(context.Background())}
	for i := 1; i < m.Type().NumIn(); i++ {
		if i-1 < len(args) {
			in = append(in, reflect.ValueOf(args[i-1]))
			continue
		}
		at := m.Type().In(i)
		if at.Kind() == reflect.Pointer {
			in = append(in, reflect.New(at.Elem()))
		} else {
			in = append(in, reflect.Zero(at))
		}
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked with zero params: %v", name, p)
			t.Error(err)
		}
	}()
	out := m.Call(in)
	e, _ := out[len(out)-1].Interface().(error)
	return e
}

func kindOf(err error, method string) handlerKind {
	var ni *notImplementedError
	switch {
	case errors.As(err, &ni):
		return stub
	case err != nil && err.Error() == errRouted(method).Error():
		return routed
	}
	return handled
}

// TestFeatureTable checks that the feature table and the server's methods
// agree: every method in the table has a handler (a server method that
// overrides unimplemented's stub, or one the router calls), and every
// handler is in the table, so the router serves it and initialize
// advertises it.
func TestFeatureTable(t *testing.T) {
	srv := newServer(context.Background(), zap.NewNop(), nil)
	sv, uv := reflect.ValueOf(srv), reflect.ValueOf(unimplemented{})

	table := map[string]bool{}
	for _, f := range features() {
		require.False(t, table[f.method], "%s is in the table twice", f.method)
		table[f.method] = true
	}

	// Every protocol.Server method: its LSP name (from the stub's error)
	// and whether the server handles it.
	handledMethods := map[string]bool{}
	iface := reflect.TypeFor[protocol.Server]()
	for i := range iface.NumMethod() {
		name := iface.Method(i).Name
		if name == "Request" {
			continue // custom methods, below
		}
		var ni *notImplementedError
		require.True(t, errors.As(callWithZeroParams(t, uv, name), &ni), "unimplemented.%s is not a stub", name)
		switch kindOf(callWithZeroParams(t, sv, name), ni.method) {
		case stub:
			require.False(t, table[ni.method], "%s (%s) is in the feature table but the server has no handler", ni.method, name)
		case routed, handled:
			require.True(t, table[ni.method], "the server handles %s (%s) but the feature table does not list it", ni.method, name)
			handledMethods[ni.method] = true
		}
	}

	// The rest of the table are custom methods, which ServerHandler passes
	// to Request.
	for m := range table {
		if handledMethods[m] {
			continue
		}
		err := callWithZeroParams(t, sv, "Request", m)
		require.NotEqual(t, stub, kindOf(err, m), "%s is in the feature table but Request does not serve it", m)
		require.NotEqual(t, "method not found: "+m, errMessage(err), "%s is in the feature table but Request does not serve it", m)
	}
	require.Contains(t, errMessage(callWithZeroParams(t, sv, "Request", "sessionls/nope")), "method not found")
}

func errMessage(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
