package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestStreamJSONCarriesThePlanAsPlanUpdateAndTheStoreKeepsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	const id = "plan-stream"
	rec := store.Record(path, store.Options{}, store.Meta{ID: id, Dir: t.TempDir(), Backend: "native", Model: "m"}, func(err error) { t.Error(err) })
	defer rec.Close()
	p, _ := testkit.Model(t, `
rules:
  - {name: final, match: {has_tool_results: true}, respond: {text: "planned"}}
  - name: plan
    respond:
      tool_calls:
        - {name: todo_write, id: p1, input: {todos: [{content: "Write the tests", status: in_progress, activeForm: "Writing the tests"}, {content: "Fix the bug", status: pending}]}}
`)
	gate, _ := permission.NewGate(permission.Options{})
	rt := runtime.New(runtime.Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()},
		CancelOnLeadError: true, SessionID: id, Journal: rec})
	defer rt.Close()
	var out, errb bytes.Buffer
	if code := Run(context.Background(), rt, Options{Prompt: "go", OutputFormat: FormatStreamJSON, Durable: rec},
		Streams{Out: &out, Err: &errb}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := []event.Todo{{Content: "Write the tests", Status: "in_progress", ActiveForm: "Writing the tests"}, {Content: "Fix the bug", Status: "pending"}}
	var printed []byte
	for line := range bytes.Lines(out.Bytes()) {
		var r event.Raw
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if r.Type == event.PlanUpdate {
			printed = bytes.TrimSpace(line)
			d, _ := event.Payload[event.PlanUpdateData](r.Event().Data)
			if r.AgentID != event.LeadID || r.ToolCallID != "p1" || !reflect.DeepEqual(d.Todos, want) {
				t.Errorf("plan.update = %s, want the lead's list of call p1", line)
			}
		}
	}
	if printed == nil {
		t.Fatalf("no plan.update in stream-json:\n%s", out.String())
	}
	reader, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	found := false
	err = reader.Events(context.Background(), id, func(b []byte) error {
		if bytes.Equal(bytes.TrimSpace(b), printed) {
			found = true
		}
		return nil
	})
	if err != nil || !found {
		t.Fatalf("the store does not hold the printed plan.update %s (err %v)", printed, err)
	}
}
