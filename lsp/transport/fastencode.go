package transport

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
)

// marshalResponse encodes a response. A successful one is written around
// its result as it is: jsonrpc2's Response.MarshalJSON marshals the result
// (already JSON, made by jsonrpc2.NewResponse) once more as a
// json.RawMessage, which parses and compacts it again. On a 50 MB session
// the codeLens result is 1.4 MB, and that second pass cost more than
// building the lenses (issue 12). Errors go the usual way.
func marshalResponse(r *jsonrpc2.Response) ([]byte, error) {
	if r.Err() != nil {
		return marshalMessage(r)
	}
	id := r.ID()
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return nil, err
	}
	result := r.Result()
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	b := make([]byte, 0, len(head)+len(idJSON)+len(mid)+len(result)+1)
	b = append(b, head...)
	b = append(b, idJSON...)
	b = append(b, mid...)
	b = append(b, result...)
	return append(b, '}'), nil
}
