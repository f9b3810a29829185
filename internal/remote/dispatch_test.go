package remote

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
)

// recorder keeps the events a task's sink gets.
type recorder struct {
	mu  sync.Mutex
	evs []event.Event
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
}

func (r *recorder) types() []event.Type {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []event.Type
	for _, e := range r.evs {
		out = append(out, e.Type)
	}
	return out
}

// wire is a worker's side of the protocol, spoken by hand.
type wire struct {
	t    *testing.T
	nc   *nats.Conn
	lead string
}

func (w wire) request(what string, v any) ClaimReply {
	w.t.Helper()
	b, _ := json.Marshal(v)
	m, err := w.nc.Request(leadSubject(w.lead, what), b, 5*time.Second)
	if err != nil {
		w.t.Fatalf("%s: %v", what, err)
	}
	var r ClaimReply
	if err := json.Unmarshal(m.Data, &r); err != nil {
		w.t.Fatal(err)
	}
	return r
}

func (w wire) event(task string, attempt int, typ event.Type) {
	raw, _ := json.Marshal(event.Event{Type: typ, AgentID: task})
	b, _ := json.Marshal(Envelope{Task: task, Attempt: attempt, Event: raw})
	if err := w.nc.Publish(leadSubject(w.lead, "ev"), b); err != nil {
		w.t.Fatal(err)
	}
}

func TestARestartedTaskGivesTheLeadOneResultFromTheAttemptItFollows(t *testing.T) {
	srv, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	d, err := Dial(ctx, Options{URL: srv.URL(), Heartbeat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	cons, err := js.CreateOrUpdateConsumer(ctx, Stream, jetstream.ConsumerConfig{Durable: Consumer, AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}

	rec := &recorder{}
	var claims []string
	var mu sync.Mutex
	type outcome struct {
		r   Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := d.Run(ctx, Task{ID: "gp-1", Commit: "c0ffee", Prompt: "p"}, Hooks{Sink: rec,
			Claimed: func(worker string, n int, before string) {
				mu.Lock()
				claims = append(claims, before+">"+worker)
				mu.Unlock()
			}})
		done <- outcome{r, err}
	}()
	msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var task Task
	if err := json.Unmarshal(msg.Data(), &task); err != nil || task.ID != "gp-1" || task.Lead != d.ID() {
		t.Fatalf("task on the queue = %+v (%v)", task, err)
	}
	w := wire{t: t, nc: nc, lead: d.ID()}
	if r := w.request("claim", Claim{Task: "gp-1", Attempt: 1, Worker: "w1"}); !r.Go {
		t.Fatalf("first claim refused: %s", r.Reason)
	}
	w.event("gp-1", 1, event.SessionStart)
	if r := w.request("claim", Claim{Task: "gp-1", Attempt: 2, Worker: "w2"}); !r.Go {
		t.Fatalf("redelivered claim refused: %s", r.Reason)
	}
	if r := w.request("claim", Claim{Task: "gp-1", Attempt: 1, Worker: "w1"}); r.Go {
		t.Fatal("a claim of the replaced attempt was taken")
	}
	w.event("gp-1", 1, event.MessageDelta) // the old worker, still talking: dropped
	w.event("gp-1", 2, event.SessionStart)
	if r := w.request("result", Result{Task: "gp-1", Attempt: 1, Worker: "w1", Success: true, Text: "old"}); r.Go {
		t.Fatal("the replaced attempt's result was taken")
	}
	if r := w.request("result", Result{Task: "gp-1", Attempt: 2, Worker: "w2", Success: true, Text: "new"}); !r.Go {
		t.Fatal("the followed attempt's result was refused")
	}
	if r := w.request("result", Result{Task: "gp-1", Attempt: 2, Worker: "w2", Success: true, Text: "again"}); r.Go {
		t.Fatal("a second result was taken")
	}
	out := <-done
	if out.err != nil || out.r.Text != "new" || out.r.Worker != "w2" {
		t.Fatalf("Run = %+v, %v; want w2's result", out.r, out.err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(claims) != 2 || claims[0] != ">w1" || claims[1] != "w1>w2" {
		t.Errorf("claims seen = %v, want w1, then w2 replacing w1", claims)
	}
	if got := rec.types(); len(got) != 2 || got[0] != event.SessionStart || got[1] != event.SessionStart {
		t.Errorf("events passed on = %v, want one session.start of each attempt and nothing of the replaced one after", got)
	}
	_ = msg.Ack()
}
