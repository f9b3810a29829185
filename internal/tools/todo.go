package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/atomic-agent/atomic/internal/event"
)

const todoDescription = `Keeps your plan as a checklist the user sees; each call replaces the whole list. Use it for work of three or more steps: keep one item in_progress at a time and mark each completed as soon as it is fully done (not while tests fail or you are blocked).`

const todoSchema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string", "description": "Imperative: Run the tests"},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
          "activeForm": {"type": "string", "description": "Shown while in progress: Running the tests"},
          "id": {"type": "string"}
        },
        "required": ["content", "status"],
        "additionalProperties": false
      }
    }
  },
  "required": ["todos"],
  "additionalProperties": false
}`

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

var todoStatuses = []string{TodoPending, TodoInProgress, TodoCompleted}

// TodoWrite is the plan tool (Claude Code's TodoWrite shape). It keeps one
// list per agent, keyed by the calling agent's id, so the lead, each
// sub-agent and each teammate plan independently with one shared tool.
type TodoWrite struct {
	SchemaCache
	mu    sync.Mutex
	plans map[string][]event.Todo
}

// NewTodoWrite returns the plan tool with no plans yet.
func NewTodoWrite() *TodoWrite { return &TodoWrite{plans: map[string][]event.Todo{}} }

func (*TodoWrite) Name() string            { return "todo_write" }
func (*TodoWrite) Description() string     { return todoDescription }
func (*TodoWrite) Schema() json.RawMessage { return todoSchemaJSON }

// Kind is ReadOnly: the plan changes no file and runs nothing, so it is
// allowed in every permission mode (planning included).
func (*TodoWrite) Kind() Kind { return ReadOnly }

// LockKeys runs two todo_write calls of one message in the model's order,
// so the later list wins as the model meant.
func (*TodoWrite) LockKeys(json.RawMessage) []string { return []string{"todo_write"} }

type todoInput struct {
	Todos []event.Todo `json:"todos"`
}

// Subject is the item in progress (its activeForm) with the count done, so
// a sub-agent's row shows where its plan stands rather than the list.
func (t *TodoWrite) Subject(input json.RawMessage) string {
	in, err := decodeInput[todoInput](t.Name(), input)
	if err != nil {
		return ""
	}
	return PlanProgress(in.Todos)
}

// PlanProgress is a plan in one line for a progress line: the item in
// progress and the count done ("Running the tests · 2/5 done").
func PlanProgress(todos []event.Todo) string {
	c := countTodos(todos)
	progress := fmt.Sprintf("%d/%d done", c.completed, len(todos))
	for _, td := range todos {
		if td.Status == TodoInProgress {
			return TodoLabel(td) + " · " + progress
		}
	}
	return "plan · " + progress
}

// TodoLabel is how an item reads: its activeForm while in progress, its
// content otherwise.
func TodoLabel(td event.Todo) string {
	if td.Status == TodoInProgress && strings.TrimSpace(td.ActiveForm) != "" {
		return td.ActiveForm
	}
	return td.Content
}

// CheckInput names the first bad item by its position and value, which
// the schema validator would only place in the list. Input that does not
// decode is left to the schema's own messages.
func (t *TodoWrite) CheckInput(input json.RawMessage) error {
	in, err := decodeInput[todoInput](t.Name(), input)
	if err != nil {
		return nil
	}
	return t.check(in)
}

func (t *TodoWrite) check(in todoInput) error {
	fail := func(format string, args ...any) error {
		return &InputError{Tool: t.Name(), Field: "todos", Problem: fmt.Sprintf(format, args...)}
	}
	ids := map[string]int{}
	for i, td := range in.Todos {
		if strings.TrimSpace(td.Content) == "" {
			return fail("todos[%d]: `content` is empty; say what the step is", i)
		}
		if td.Status == "" {
			return fail("todos[%d] (%q): `status` is missing; allowed: %s", i, td.Content, strings.Join(todoStatuses, ", "))
		}
		if !isTodoStatus(td.Status) {
			return fail("todos[%d] (%q): unknown status %q; allowed: %s", i, td.Content, td.Status, strings.Join(todoStatuses, ", "))
		}
		if td.ID == "" {
			continue
		}
		if j, dup := ids[td.ID]; dup {
			return fail("todos[%d] and todos[%d] share the id %q; ids must be unique", j, i, td.ID)
		}
		ids[td.ID] = i
	}
	return nil
}

func isTodoStatus(s string) bool {
	for _, v := range todoStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// Run replaces the calling agent's plan and announces it as plan.update,
// so views follow plans without parsing tool inputs.
func (t *TodoWrite) Run(_ context.Context, call Call) (Result, error) {
	in, err := decodeInput[todoInput](t.Name(), call.Input)
	if err != nil {
		return Result{}, err
	}
	if err := t.check(in); err != nil {
		return Result{}, err
	}
	todos := in.Todos
	if todos == nil {
		todos = []event.Todo{}
	}
	t.mu.Lock()
	prev := t.plans[call.AgentID]
	t.plans[call.AgentID] = todos
	t.mu.Unlock()
	content := todoSummary(todos)
	if done := newlyCompleted(prev, todos); len(done) > 0 {
		content += " Completed since your last update: " + strings.Join(done, "; ") + "."
	}
	return Result{
		Content:  content,
		Announce: &Announcement{Type: event.PlanUpdate, Data: event.PlanUpdateData{Todos: todos}},
	}, nil
}

// Plan returns agentID's current plan (nil when it has none).
func (t *TodoWrite) Plan(agentID string) []event.Todo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]event.Todo(nil), t.plans[agentID]...)
}

// newlyCompleted lists the items completed in next that were not in
// prev, matched by id when both have one, else by content.
func newlyCompleted(prev, next []event.Todo) []string {
	key := func(td event.Todo) string {
		if td.ID != "" {
			return "id:" + td.ID
		}
		return "content:" + td.Content
	}
	before := map[string]bool{}
	for _, td := range prev {
		before[key(td)] = td.Status == TodoCompleted
	}
	var out []string
	for _, td := range next {
		if td.Status != TodoCompleted {
			continue
		}
		if was, known := before[key(td)]; known && !was {
			out = append(out, td.Content)
		}
	}
	return out
}

type todoCounts struct{ pending, inProgress, completed int }

func countTodos(todos []event.Todo) todoCounts {
	var c todoCounts
	for _, td := range todos {
		switch td.Status {
		case TodoPending:
			c.pending++
		case TodoInProgress:
			c.inProgress++
		case TodoCompleted:
			c.completed++
		}
	}
	return c
}

// todoSummary tells the model the plan was saved and restates it in
// counts, with a nudge when the one-in-progress rule is broken.
func todoSummary(todos []event.Todo) string {
	if len(todos) == 0 {
		return "Plan cleared: you have no items."
	}
	c := countTodos(todos)
	s := fmt.Sprintf("Plan saved: %d %s (%d completed, %d in progress, %d pending).",
		len(todos), plural(len(todos), "item", "items"), c.completed, c.inProgress, c.pending)
	switch {
	case c.completed == len(todos):
		s += " Every item is completed."
	case c.inProgress > 1:
		s += " Keep only one item in_progress at a time: finish one before starting the next."
	case c.inProgress == 0:
		s += " Mark the item you work on next in_progress when you start it."
	default:
		s += " Keep the plan up to date as you work."
	}
	return s
}

// todoSchemaJSON is laid out by the linker, not built at init nor per call:
// every request of every agent asks each tool for its schema.
var todoSchemaJSON = json.RawMessage(todoSchema)
