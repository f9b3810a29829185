package headless

import (
	"encoding/json"
	"fmt"
	"io"
)

// Controls answer Claude Code's control requests on a stream-json input
// (the Agent SDK's control protocol): each request is answered on Out with
// a control_response of its request_id. A nil func is a subtype Atomic
// does not take, answered with an error naming it.
type Controls struct {
	// Out receives the responses; its writes must not interleave with the
	// run's own output (one Write a line, under a lock).
	Out io.Writer
	// Initialize is the handshake's answer (commands, modes, models…).
	Initialize func() map[string]any
	// Interrupt stops the turn under way (nothing when idle).
	Interrupt func()
	// SetPermissionMode and SetModel change the run for the next turn.
	SetPermissionMode func(mode string) error
	SetModel          func(model string) error
}

// controlLine is a control_request line.
type controlLine struct {
	RequestID string `json:"request_id"`
	Request   struct {
		Subtype string `json:"subtype"`
		Mode    string `json:"mode"`
		Model   string `json:"model"`
	} `json:"request"`
}

// controlResponse is Claude Code's answer line, its fields in its order.
type controlResponse struct {
	Type     string      `json:"type"`
	Response controlBody `json:"response"`
}

type controlBody struct {
	Subtype   string         `json:"subtype"`
	RequestID string         `json:"request_id"`
	Response  map[string]any `json:"response,omitempty"`
	Error     string         `json:"error,omitempty"`
}

// answer handles one control_request line and writes its response.
func (c *Controls) answer(line []byte) error {
	var l controlLine
	if err := json.Unmarshal(line, &l); err != nil {
		return fmt.Errorf("a control_request that is not JSON: %w", err)
	}
	if l.RequestID == "" {
		return fmt.Errorf("a control_request without request_id")
	}
	resp, err := c.dispatch(l)
	body := controlBody{Subtype: "success", RequestID: l.RequestID, Response: resp}
	if err != nil {
		body = controlBody{Subtype: "error", RequestID: l.RequestID, Error: err.Error()}
	}
	b, merr := json.Marshal(controlResponse{Type: "control_response", Response: body})
	if merr != nil {
		return fmt.Errorf("control_response: %w", merr)
	}
	if _, werr := c.Out.Write(append(b, '\n')); werr != nil {
		return fmt.Errorf("writing a control_response: %w", werr)
	}
	return nil
}

func (c *Controls) dispatch(l controlLine) (map[string]any, error) {
	switch sub := l.Request.Subtype; {
	case sub == "initialize" && c.Initialize != nil:
		return c.Initialize(), nil
	case sub == "interrupt" && c.Interrupt != nil:
		c.Interrupt()
		return map[string]any{"still_queued": []string{}}, nil
	case sub == "set_permission_mode" && c.SetPermissionMode != nil:
		if err := c.SetPermissionMode(l.Request.Mode); err != nil {
			return nil, err
		}
		return map[string]any{}, nil
	case sub == "set_model" && c.SetModel != nil:
		if err := c.SetModel(l.Request.Model); err != nil {
			return nil, err
		}
		return map[string]any{}, nil
	default:
		return nil, fmt.Errorf("unsupported control request subtype %q (Atomic takes initialize, interrupt, set_permission_mode and set_model)", sub)
	}
}
