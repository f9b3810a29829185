package claudecode

import (
	"encoding/json"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// toolNames maps the CLI's tools that have an Atomic counterpart to its
// name, so events, the TUI's tool rendering and the permission rules
// (bash(go test:*), write) speak of them as of native calls. Other tools
// keep the CLI's name.
var toolNames = map[string]string{
	"Bash": "bash", "Read": "read", "Write": "write", "Edit": "edit",
	"Glob": "glob", "Grep": "grep", "LS": "ls", "Agent": "task", "Task": "task",
	"TodoWrite": "todo_write", "MultiEdit": "multi_edit", "WebFetch": "web_fetch",
}

func ourToolName(name string) string {
	if n, ok := toolNames[name]; ok {
		return n
	}
	return name
}

func ourToolNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = ourToolName(n)
	}
	return out
}

// toolKind classifies a CLI tool for the permission gate: what only reads
// is allowed in every mode, edits follow the edit rules, and anything
// unknown is treated as a command (asked for).
func toolKind(name string) tools.Kind {
	switch name {
	case "Read", "Glob", "Grep", "LS", "TodoWrite", "TaskOutput", "ListAgents", "ToolSearch":
		return tools.ReadOnly
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return tools.Edit
	case "Agent", "Task", "SendMessage", "TaskStop":
		return tools.Orchestrate
	}
	return tools.Exec
}

// subject is the argument of a CLI tool call that permission rules and
// progress lines name: the command, the path, the pattern or the URL.
func subject(name string, input json.RawMessage) string {
	var in struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Pattern      string `json:"pattern"`
		URL          string `json:"url"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	switch name {
	case "Bash":
		return in.Command
	case "Read", "Write", "Edit", "MultiEdit":
		return in.FilePath
	case "NotebookEdit":
		return in.NotebookPath
	case "Glob", "Grep":
		return in.Pattern
	case "WebFetch":
		return in.URL
	case "TodoWrite":
		if todos, ok := todoList(input); ok {
			return tools.PlanProgress(todos)
		}
	}
	return ""
}

// todoList reads the list of a TodoWrite call, which has our todo_write's
// shape.
func todoList(input json.RawMessage) ([]event.Todo, bool) {
	var in struct {
		Todos []event.Todo `json:"todos"`
	}
	if json.Unmarshal(input, &in) != nil || in.Todos == nil {
		return nil, false
	}
	return in.Todos, true
}
