package subagent

import (
	"context"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/spawn"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

const remoteChild = `
rules:
  - {name: parent-report, match: {first_user_contains: PARENT, tool_result_contains: "done farm-1"}, respond: {text: "parent got the farm's answer"}}
  - {name: parent-other, match: {first_user_contains: PARENT, has_tool_results: true}, respond: {text: "the farm's answer did not come back"}}
  - {name: parent, match: {first_user_contains: PARENT}, respond: {tool_calls: [{name: task, input: {description: "far part", prompt: "do the far part", subagent_type: farm}}]}}
`

func TestASubagentsOwnSubagentOfAWorkersTypeIsSentToAWorkerAndReportsToItsParent(t *testing.T) {
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	opts := remote.Options{URL: srv.URL(), Heartbeat: time.Second, Workspace: repo} // only runs_on: workers types
	d, err := remote.Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	w := &natsWorld{opts: opts, repo: repo, d: d}
	h := w.worker(t, "w1", 1)
	close(h.release) // its tasks answer at once

	p, _ := testkit.Model(t, remoteChild)
	types := spawn.NewRegistry(spawn.Type{Name: "farm", Description: "runs on the workers", Source: "test", RunsOn: spawn.Workers})
	s := &sink{}
	m := New(Config{SessionID: "s", Provider: p, Model: "test-model", Sink: s, MaxConcurrent: 1, Types: types, Tools: tools.NewSet(),
		Remote: d, Workspace: repo})
	t.Cleanup(m.Close)
	parent, err := m.Spawn(context.Background(), Spec{ToolCallID: "c1", ParentID: event.LeadID, Prompt: "PARENT", Description: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, parent, 30*time.Second)
	if r := m.Record(parent); r.Status != lifecycle.Completed || r.Result != "parent got the farm's answer" {
		t.Fatalf("parent: %s %q %q", r.Status, r.Result, r.Error)
	}
	child := s.record("farm-1")
	if child.ParentID != parent.ID || child.Worker != "w1" || child.Status != lifecycle.Completed || child.Result != "done farm-1" {
		t.Fatalf("the nested remote agent: parent %q worker %q %s %q; want under %s, on w1, completed", child.ParentID, child.Worker, child.Status, child.Result, parent.ID)
	}
	if _, ran := h.counts(); ran != 1 {
		t.Fatalf("the worker ran %d tasks, want the one nested agent", ran)
	}
}
