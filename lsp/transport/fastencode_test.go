package transport

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestMarshalResponse checks marshalResponse against jsonrpc2's own
// encoding: the same JSON value for results, ids and errors.
func TestMarshalResponse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		id     jsonrpc2.ID
		result any
		err    error
	}{
		{"lenses", jsonrpc2.NewNumberID(7), []map[string]any{{"range": map[string]any{"start": map[string]int{"line": 1}}, "command": map[string]string{"title": "1 message <&>", "command": ""}}}, nil},
		{"null result", jsonrpc2.NewNumberID(0), nil, nil},
		{"string id", jsonrpc2.NewStringID("a\"b"), "x", nil},
		{"empty list", jsonrpc2.NewNumberID(-1), []int{}, nil},
		{"rpc error", jsonrpc2.NewNumberID(3), nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "bad")},
		{"plain error", jsonrpc2.NewStringID("s"), nil, errors.New("boom")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := jsonrpc2.NewResponse(tc.id, tc.result, tc.err)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			got, err := marshalResponse(r)
			if err != nil {
				t.Fatal(err)
			}
			var w, g any
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatalf("json.Unmarshal(want, &w): %v", err)
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: json.Unmarshal(got, &g): %v", got, err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("g = %+v, want %+v", g, w)
			}
		})
	}
}
