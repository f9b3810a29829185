package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeInput unmarshals a call's input into the tool's input struct. The
// input normally passed Validate already; this still fails cleanly when a
// tool is run directly with bad input.
func decodeInput[T any](tool string, raw json.RawMessage) (T, error) {
	var in T
	if len(bytes.TrimSpace(raw)) == 0 {
		return in, nil
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, &InputError{Tool: tool, Problem: fmt.Sprintf("input does not decode: %v", err)}
	}
	return in, nil
}
