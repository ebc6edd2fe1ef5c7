package transport

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// textDocument/didChange's params as the server reads them. protocol
// v0.12.0's TextDocumentContentChangeEvent.Range is a value, so a full-text
// change (no range) cannot be told from an insert at 0:0; here Range is a
// pointer. The stream decodes a full-text change into this type in place
// (FullChange); the server decodes the others with DecodeDidChange.

// DidChangeParams are a didChange's params.
type DidChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []ContentChange                          `json:"contentChanges"`
}

// ContentChange is one change: a nil Range replaces the whole text.
type ContentChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

// DecodeDidChange decodes a didChange's raw params.
func DecodeDidChange(raw json.RawMessage) (DidChangeParams, error) {
	var p DidChangeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("decoding textDocument/didChange params: %w", err)
	}
	return p, nil
}
