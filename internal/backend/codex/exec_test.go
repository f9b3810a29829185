package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/lifecycle"
)

// replayExec feeds a captured `codex exec --json` stream to an
// ExecTranslator, recording as replay does; waitEnds maps each wait item
// to the events emitted while it completed.
func replayExec(t *testing.T, name string) (r *replayed, waitEnds map[string][]event.Event) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, sink := newReplayed()
	var cur string
	waitEnds = map[string][]event.Event{}
	x := NewExecTranslator(backend.Config{SessionID: "s1", AgentID: "lead", Sink: event.SinkFunc(func(e event.Event) {
		if cur != "" && e.Type == event.SubagentComplete {
			waitEnds[cur] = append(waitEnds[cur], e)
		}
		sink.Emit(e)
	})})
	for line := range bytes.Lines(raw) {
		var e struct {
			Type string                    `json:"type"`
			Item struct{ ID, Tool string } `json:"item"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cur = ""
		if e.Type == "item.completed" && e.Item.Tool == "wait" {
			cur = e.Item.ID
		}
		n, err := x.Handle(line)
		if err != nil {
			t.Fatal(err)
		}
		r.note(n)
	}
	return r, waitEnds
}

func TestReplayExecFanOutEndsEachSubagentAtTheWaitThatReportsItDone(t *testing.T) {
	r, waitEnds := replayExec(t, "codex-subagents-exec.jsonl")
	ids := []string{"general-purpose-1", "general-purpose-2", "general-purpose-3"}
	checkIdentity(t, r, ids)
	checkBackgroundUntilOwnEnd(t, r)
	for i, want := range []string{"done ALPHA", "done BETA", "done GAMMA"} {
		rec, _ := r.state.Get(ids[i])
		if rec.Status != lifecycle.Completed || rec.Result != want {
			t.Errorf("%s: %s %q, want completed %q", ids[i], rec.Status, rec.Result, want)
		}
	}
	// ALPHA is reported done by the first wait; BETA and GAMMA only by
	// the third. The second wait repeats ALPHA: it ends nothing again.
	ended := func(item string) (got []string) {
		for _, e := range waitEnds[item] {
			got = append(got, e.AgentID)
		}
		return got
	}
	if g := ended("item_6"); len(g) != 1 || g[0] != ids[0] {
		t.Errorf("first wait ended %v, want [%s]", g, ids[0])
	}
	if g := ended("item_8"); len(g) != 0 {
		t.Errorf("second wait ended %v again", g)
	}
	if g := ended("item_10"); len(g) != 2 {
		t.Errorf("third wait ended %v, want %s and %s", g, ids[1], ids[2])
	}
	if len(r.ends) != 1 || r.ends[0].Status != "completed" || r.ends[0].Text != "Summary: ALPHA, BETA and GAMMA are all done. (FG done)" || !r.settledAtEnd[0] {
		t.Fatalf("lead turn ends = %+v settled %v, want one completed with the summary, settled", r.ends, r.settledAtEnd)
	}
	if lead := r.state.Usage("lead"); lead.InputTokens != 52466 || lead.OutputTokens != 250 {
		t.Errorf("lead usage %+v, want turn.completed's 52466 in, 250 out", lead)
	}
}
