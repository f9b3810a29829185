package event

import (
	"encoding/json"
	"fmt"
	"strings"
)

// DefaultAgentType is the agent type of a task call that names none.
const DefaultAgentType = "general-purpose"

// TaskMode is how a task call runs its agent: the task tool's mode.
type TaskMode string

// The task modes. TaskAsync is an alias of TaskBackground.
const (
	TaskSync       TaskMode = "sync"
	TaskBackground TaskMode = "background"
	TaskAsync      TaskMode = "async"
)

// TaskInput is a task call's input, whoever made it: the native task
// tool's (description, prompt, subagent_type, mode, isolation) or an
// external CLI's, whose spellings ParseTaskInput reads into the same
// fields. Every package that reads a task call (the task tool, the
// lifecycle reducer, the adapters) reads it through ParseTaskInput, so
// that what the tree shows and what runs agree.
type TaskInput struct {
	Description string
	Prompt      string
	// SubagentType is the agent type as given (trimmed); Type gives the
	// default for none.
	SubagentType string
	// Background: mode background or async (any case), Claude Code's
	// run_in_background or OpenCode's background.
	Background bool
	// Mode is the mode as given ("" when none).
	Mode TaskMode
	// Isolation is "worktree" or empty.
	Isolation string
	// Model is the model the call names (Claude Code, Copilot).
	Model string
	// Name is Copilot's name of the task, a description when it gives
	// none.
	Name string
}

// taskWire is every spelling of a task call's input that is read.
type taskWire struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
	// AgentType is Copilot's subagent_type.
	AgentType string `json:"agent_type"`
	Mode      string `json:"mode"`
	// RunInBackground is Claude Code's mode background; Background
	// OpenCode's.
	RunInBackground bool   `json:"run_in_background"`
	Background      bool   `json:"background"`
	Isolation       string `json:"isolation"`
	Model           string `json:"model"`
	Name            string `json:"name"`
}

// ParseTaskInput reads a task call's input. Its error says the input is
// not a JSON object of these fields (a member of the wrong type); the
// fields it could read are still returned, so that a view can show the
// call the tool itself rejects.
func ParseTaskInput(raw []byte) (TaskInput, error) {
	var w taskWire
	var err error
	if len(raw) > 0 {
		if err = json.Unmarshal(raw, &w); err != nil {
			err = fmt.Errorf("bad input: %w", err)
		}
	}
	mode := TaskMode(strings.ToLower(strings.TrimSpace(w.Mode)))
	in := TaskInput{Description: w.Description, Prompt: w.Prompt,
		SubagentType: strings.TrimSpace(firstSet(w.SubagentType, w.AgentType)),
		Mode:         TaskMode(w.Mode), Isolation: w.Isolation, Model: w.Model, Name: w.Name,
		Background: mode == TaskBackground || mode == TaskAsync || w.RunInBackground || w.Background}
	return in, err
}

// Type is the agent type the call asks for, DefaultAgentType when none.
func (in TaskInput) Type() string {
	if in.SubagentType == "" {
		return DefaultAgentType
	}
	return in.SubagentType
}

// taskOut is the task call's input as an adapter announces it in
// tool.start: the native tool's members, in the order they were always
// written.
type taskOut struct {
	Description  string   `json:"description"`
	Isolation    string   `json:"isolation,omitempty"`
	Mode         TaskMode `json:"mode,omitempty"`
	Model        string   `json:"model,omitempty"`
	Prompt       string   `json:"prompt"`
	SubagentType string   `json:"subagent_type"`
}

// TaskCall is the input of a task call an adapter announces for its CLI's
// sub-agent, in the native tool's terms: description, prompt,
// subagent_type (the default when none), mode (background when
// Background, else mode as given) and model when set. ParseTaskInput
// reads it back to the same call.
func TaskCall(in TaskInput) json.RawMessage {
	out := taskOut{Description: in.Description, Isolation: in.Isolation, Mode: in.Mode, Model: in.Model,
		Prompt: in.Prompt, SubagentType: in.Type()}
	if in.Background {
		out.Mode = TaskBackground
	}
	b, _ := json.Marshal(out) // strings only: cannot fail
	return b
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
