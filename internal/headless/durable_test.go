package headless

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// storeCheckingOut is stdout that, at every write, counts the lines printed
// so far and the events the store holds, keeping the worst shortfall.
type storeCheckingOut struct {
	t    *testing.T
	st   *store.Store
	id   string
	mu   sync.Mutex
	out  bytes.Buffer
	lost int // most lines printed and not (yet) in the store
}

func (o *storeCheckingOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.out.Write(p)
	printed := bytes.Count(o.out.Bytes(), []byte("\n"))
	stored := 0
	if err := o.st.Events(context.Background(), o.id, func([]byte) error { stored++; return nil }); err != nil {
		o.t.Error(err)
	}
	o.lost = max(o.lost, printed-stored)
	return len(p), nil
}

func TestStreamJSONPrintsAnEventOnlyOnceTheStoreHoldsIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	reader, err := store.Open(context.Background(), path, store.Options{}) // creates the schema
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	const id = "durable-stream"
	rec := store.Record(path, store.Options{}, store.Meta{ID: id, Dir: t.TempDir(), Backend: "native", Model: "m"}, func(err error) { t.Error(err) })
	defer rec.Close()
	p, _ := testkit.Model(t, `
rules:
  - {name: final, match: {system_contains: "You are Atomic", has_tool_results: true}, respond: {text: "both done"}}
  - name: fan
    match: {system_contains: "You are Atomic"}
    respond:
      tool_calls:
        - {name: task, input: {description: "one", prompt: "ONE"}}
        - {name: task, input: {description: "two", prompt: "TWO", mode: background}}
  - {name: sub, respond: {text: "a sub-agent's rather long answer, streamed in chunks", delay_ms: 20}}
`)
	gate, _ := permission.NewGate(permission.Options{})
	rt := runtime.New(runtime.Config{Provider: p, Gate: gate, Workspace: tools.Workspace{Root: t.TempDir()},
		CancelOnLeadError: true, SessionID: id, Journal: rec})
	defer rt.Close()
	out := &storeCheckingOut{t: t, st: reader, id: id}
	var errb bytes.Buffer
	if code := Run(context.Background(), rt, Options{Prompt: "go", OutputFormat: FormatStreamJSON, Durable: rec},
		Streams{Out: out, Err: &errb}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.lost > 0 {
		t.Fatalf("stdout was up to %d events ahead of the store; want every printed event already stored", out.lost)
	}
	if n := bytes.Count(out.out.Bytes(), []byte("\n")); n < 10 {
		t.Fatalf("only %d events printed: %s", n, out.out.String())
	}
}
