package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Commands: workspace/executeCommand. The only command is
// sessionls.setBudget, which the budget lenses carry.

// commandSetBudget asks the client for a budget (the lens carries no
// argument: clients prompt) and sets it with workspace/executeCommand.
const commandSetBudget = "sessionls.setBudget"

// commands are the commands the server advertises (features.go).
func commands() []string { return []string{commandSetBudget, commandRemoveDiskBOM} }

// ExecuteCommand runs sessionls.setBudget. The router calls
// executeCommand instead, with the raw params (see there); this serves
// callers that hold decoded params.
func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	return nil, s.runCommand(ctx, p.Command, p.Arguments)
}

// executeCommand decodes workspace/executeCommand's params itself, with
// numbers kept as their text (json.Number): protocol's decoder makes them
// float64, which turns 9007199254740993 into 9007199254740992 before
// setBudget could see it.
func (s *server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Command   string `json:"command"`
		Arguments []any  `json:"arguments"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: invalid params: %v", protocol.MethodWorkspaceExecuteCommand, err))
	}
	return nil, s.runCommand(ctx, p.Command, p.Arguments)
}

func (s *server) runCommand(ctx context.Context, command string, args []any) error {
	switch command {
	case commandSetBudget:
		return s.setBudget(ctx, args)
	case commandRemoveDiskBOM:
		return s.removeDiskBOM(ctx, args)
	}
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q", command))
}

// clearsBudget reports whether a sessionls.setBudget argument asks for no
// budget: JSON null, 0, or the strings "", "0", "off" and "none" (what a
// person types into an editor's prompt to clear it).
func clearsBudget(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case float64:
		return x == 0
	case json.Number:
		n, why := wholeNumber(x.String())
		return why == "" && n == 0
	case int:
		return x == 0
	case int64:
		return x == 0
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "", "0", "off", "none":
			return true
		}
	}
	return false
}

// setBudget is the sessionls.setBudget command: one argument, a positive
// whole number (number or numeric string) sets the budget; null, 0 or
// "off" clear it. Anything else is shown to the user, answered
// InvalidParams, and keeps the budget.
func (s *server) setBudget(ctx context.Context, args []any) error {
	var arg any
	if len(args) > 0 {
		arg = args[0]
	}
	if len(args) == 1 && clearsBudget(arg) {
		var none int64
		s.applySettings(ctx, settingsPatch{budget: &none})
		return nil
	}
	b, err := parseBudget(arg, false)
	if len(args) != 1 || err != nil {
		got := budgetReason(arg, err)
		msg := fmt.Sprintf("%s needs a positive whole number of characters (or null, 0 or \"off\" to clear the budget), got %s", commandSetBudget, got)
		if len(args) > 1 {
			msg = fmt.Sprintf("%s needs a positive whole number of characters, got %d arguments", commandSetBudget, len(args))
		}
		s.showError(msg)
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, msg)
	}
	s.applySettings(ctx, settingsPatch{budget: &b})
	return nil
}
