package claudecode

import (
	"encoding/json"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// ourToolName maps the CLI's tools that have an Atomic counterpart to its
// name, so events, the TUI's tool rendering and the permission rules
// (bash(go test:*), write) speak of them as of native calls. Other tools
// keep the CLI's name. A switch, not a map: a package-level map is built
// at init in every process, Claude Code runs or not.
func ourToolName(name string) string {
	switch name {
	case "Bash":
		return "bash"
	case "Read":
		return "read"
	case "Write":
		return "write"
	case "Edit":
		return "edit"
	case "Glob":
		return "glob"
	case "Grep":
		return "grep"
	case "LS":
		return "ls"
	case "Agent", "Task":
		return "task"
	case "TodoWrite":
		return "todo_write"
	case "MultiEdit":
		return "multi_edit"
	case "WebFetch":
		return "web_fetch"
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
