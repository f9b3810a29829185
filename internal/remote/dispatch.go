package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/atomic-agent/atomic/internal/event"
)

// Options connect a lead or a worker to NATS.
type Options struct {
	// URL is the NATS server (nats://host:4222; several comma-separated).
	URL string
	// Heartbeat is how often this side says it is alive
	// (DefaultHeartbeat when zero).
	Heartbeat time.Duration
	// MaxAttempts is how many deliveries a task gets (lead side;
	// DefaultMaxAttempts when zero).
	MaxAttempts int
	// Replicas of the stream and object store (a cluster: 3); 0 is 1.
	Replicas int
	// All sends every task to the workers; otherwise only the agent types
	// whose file says runs_on: workers.
	All bool
	// Workspace is the lead's repository, whose HEAD and uncommitted
	// changes each task carries.
	Workspace string
	// NATS are extra client options (credentials file, TLS).
	NATS []nats.Option
}

func (o Options) heartbeat() time.Duration {
	if o.Heartbeat <= 0 {
		return DefaultHeartbeat
	}
	return o.Heartbeat
}

// streamSetupWait is how long connect retries creating the stream.
const streamSetupWait = 30 * time.Second

// connect dials NATS and makes sure the stream and object store exist.
func connect(ctx context.Context, o Options, name string) (*nats.Conn, jetstream.JetStream, jetstream.ObjectStore, error) {
	if strings.TrimSpace(o.URL) == "" {
		return nil, nil, nil, errors.New("no NATS server: give its URL (--nats nats://host:4222)")
	}
	opts := append([]nats.Option{nats.Name(name), nats.MaxReconnects(-1)}, o.NATS...)
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("connecting to NATS at %s: %w", o.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("JetStream at %s: %w", o.URL, err)
	}
	replicas := max(o.Replicas, 1)
	// A cluster that has just started has no JetStream leader yet: try
	// for a while before giving up.
	deadline := time.Now().Add(streamSetupWait)
	for {
		_, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: Stream, Subjects: []string{TaskSubject},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Replicas: replicas,
			Duplicates: time.Minute})
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) || errors.Is(err, jetstream.ErrJetStreamNotEnabled) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("creating the task stream %s at %s (is JetStream enabled?): %w", Stream, o.URL, err)
	}
	store, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: PatchBucket, Replicas: replicas,
		TTL: 24 * time.Hour, Storage: jetstream.FileStorage})
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("creating the patch store %s at %s: %w", PatchBucket, o.URL, err)
	}
	return nc, js, store, nil
}

// Dispatcher is the lead's side: it sends tasks to the workers and feeds
// their events back. Safe for concurrent use; Close ends it.
type Dispatcher struct {
	opts  Options
	id    string
	nc    *nats.Conn
	js    jetstream.JetStream
	store jetstream.ObjectStore
	sub   *nats.Subscription
	stop  chan struct{}
	wg    sync.WaitGroup
	// lanes take the workers' messages, by task (route).
	lanes       []chan *nats.Msg
	lanesWG     sync.WaitGroup
	lanesMu     sync.RWMutex
	lanesClosed bool

	mu      sync.Mutex
	flights map[string]*flight // by task id

	// snapMu guards the snapshots: snapCur, the latest started; snapNext,
	// the one the next caller joins; changedAt, when the tree last changed
	// as far as the lead knows; closed. snapTurn lets one snapshot be
	// taken at a time.
	snapMu    sync.Mutex
	snapTurn  sync.Mutex
	snapCur   *snapCall
	snapNext  *snapCall
	changedAt time.Time
	closed    bool
}

// Hooks are told what happens to one task.
type Hooks struct {
	// Sink receives the task's events from the worker running it.
	Sink event.Sink
	// Claimed: a worker took attempt n of the task; before names the
	// worker of the attempt it replaces ("" on the first).
	Claimed func(worker string, n int, before string)
	// Note: something the task's row should say ("" clears it).
	Note func(note string)
	// GivenBack: the worker of the attempt stopped before its end and
	// gave the task back to the queue; it waits for another worker.
	GivenBack func(worker string)
}

// flight is one task the lead waits for.
type flight struct {
	task   Task
	h      Hooks
	result chan Result // one, buffered

	mu       sync.Mutex
	attempt  int
	worker   string
	lastWord time.Time
	silent   bool
	done     bool
	// queued: the worker gave the task back; no worker is watched until
	// another claims it.
	queued bool
}

// Dial connects a lead to NATS and starts its heartbeat.
func Dial(ctx context.Context, o Options) (*Dispatcher, error) {
	nc, js, store, err := connect(ctx, o, "atomic lead")
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{opts: o, id: nuid.Next(), nc: nc, js: js, store: store, stop: make(chan struct{}),
		flights: map[string]*flight{}, changedAt: time.Now()}
	for range handlers {
		ch := make(chan *nats.Msg, 256)
		d.lanes = append(d.lanes, ch)
		d.lanesWG.Add(1)
		go func() {
			defer d.lanesWG.Done()
			for m := range ch {
				d.handle(m)
			}
		}()
	}
	d.sub, err = nc.Subscribe(leadSubject(d.id, "*"), d.route)
	if err != nil {
		d.closeLanes()
		nc.Close()
		return nil, fmt.Errorf("subscribing to the lead's subjects: %w", err)
	}
	d.wg.Add(1)
	go d.beat()
	return d, nil
}

// handlers is how many goroutines take the workers' messages: one
// task's always go to the same one, in the order they came.
const handlers = 8

// route passes m to the lane of its task, so that tasks are handled side
// by side and each task's messages in order (a result never overtakes
// its events). Every message to the lead names its task first.
func (d *Dispatcher) route(m *nats.Msg) {
	var head struct {
		Task string `json:"task"`
	}
	_ = json.Unmarshal(m.Data, &head)
	h := fnv.New32a()
	h.Write([]byte(head.Task))
	d.lanesMu.RLock()
	defer d.lanesMu.RUnlock()
	if !d.lanesClosed { // a message still on its way at Close is dropped
		d.lanes[h.Sum32()%handlers] <- m
	}
}

func (d *Dispatcher) closeLanes() {
	d.lanesMu.Lock()
	d.lanesClosed = true
	for _, ch := range d.lanes {
		close(ch)
	}
	d.lanesMu.Unlock()
	d.lanesWG.Wait()
}

// ID is the lead's id on the wire.
func (d *Dispatcher) ID() string { return d.id }

// Takes reports whether a native task goes to the workers: every one
// when the run sends all, else those whose type says runs_on: workers.
func (d *Dispatcher) Takes(runsOnWorkers bool) bool {
	return d.opts.All || runsOnWorkers
}

// Close stops the heartbeat (workers then cancel whatever of this lead is
// left) and closes the connection.
func (d *Dispatcher) Close() error {
	d.snapMu.Lock()
	d.closed = true
	d.snapMu.Unlock()
	close(d.stop)
	d.wg.Wait()
	_ = d.sub.Unsubscribe()
	d.closeLanes()
	d.nc.Close()
	return nil
}

func (d *Dispatcher) beat() {
	defer d.wg.Done()
	tick := time.NewTicker(d.opts.heartbeat())
	defer tick.Stop()
	subj := leadSubject(d.id, "hb")
	for {
		_ = d.nc.Publish(subj, nil)
		select {
		case <-d.stop:
			return
		case <-tick.C:
		}
	}
}

// handle takes one message to the lead.
func (d *Dispatcher) handle(m *nats.Msg) {
	kind := m.Subject[strings.LastIndexByte(m.Subject, '.')+1:]
	switch kind {
	case "claim":
		var c Claim
		if json.Unmarshal(m.Data, &c) != nil {
			return
		}
		rep, f, before := d.claim(c)
		d.reply(m, rep) // the worker starts while the lead announces it
		if rep.Go && f.h.Claimed != nil {
			f.h.Claimed(c.Worker, c.Attempt, before)
		}
	case "ev":
		var env Envelope
		if json.Unmarshal(m.Data, &env) != nil {
			return
		}
		f := d.current(env.Task, env.Attempt)
		if f == nil {
			return
		}
		if e, err := decodeEvent(env.Event); err == nil {
			f.h.Sink.Emit(e)
		}
	case "beat":
		var b Beat
		if json.Unmarshal(m.Data, &b) == nil {
			d.current(b.Task, b.Attempt)
		}
	case "result":
		var r Result
		if json.Unmarshal(m.Data, &r) != nil {
			return
		}
		taken, back := d.accept(r)
		if back != nil && back.h.GivenBack != nil {
			// Before the reply: a worker that stops waits for it, so the
			// row has changed by the time it exits.
			back.h.GivenBack(r.Worker)
		}
		d.reply(m, ClaimReply{Go: taken})
	}
}

func (d *Dispatcher) reply(m *nats.Msg, v any) {
	b, _ := json.Marshal(v)
	_ = m.Respond(b)
}

func (d *Dispatcher) flight(task string) *flight {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.flights[task]
}

// claim answers a worker that wants to run attempt c.Attempt, and names
// the worker of the attempt it replaces.
func (d *Dispatcher) claim(c Claim) (ClaimReply, *flight, string) {
	f := d.flight(c.Task)
	if f == nil {
		return ClaimReply{Reason: "the lead does not run task " + c.Task + " any more"}, nil, ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return ClaimReply{Reason: "task " + c.Task + " has ended"}, f, ""
	}
	if c.Attempt < f.attempt {
		return ClaimReply{Reason: "task " + c.Task + " was restarted elsewhere"}, f, ""
	}
	before := f.worker
	f.attempt, f.worker, f.lastWord, f.silent, f.queued = c.Attempt, c.Worker, time.Now(), false, false
	return ClaimReply{Go: true}, f, before
}

// current returns the flight of task when attempt is the one it follows,
// noting that its worker spoke.
func (d *Dispatcher) current(task string, attempt int) *flight {
	f := d.flight(task)
	if f == nil {
		return nil
	}
	f.mu.Lock()
	if f.done || attempt != f.attempt {
		f.mu.Unlock()
		return nil
	}
	f.lastWord = time.Now()
	wasSilent := f.silent
	f.silent = false
	f.mu.Unlock()
	if wasSilent && f.h.Note != nil {
		f.h.Note("")
	}
	return f
}

// accept keeps r when it is the first result of the attempt the lead
// follows (or the worker's word that the task ran out of attempts). The
// word of a worker that stopped and gave the task back ends only the
// attempt: the task waits in the queue, its flight returned as back.
func (d *Dispatcher) accept(r Result) (taken bool, back *flight) {
	f := d.flight(r.Task)
	if f == nil {
		return false, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done || (r.Attempt != f.attempt && !r.GaveUp) {
		return false, nil
	}
	if r.Stopped {
		if f.queued || r.Worker != f.worker {
			return false, nil
		}
		f.queued, f.silent = true, false
		return true, f
	}
	f.done = true
	f.result <- r
	return true, nil
}

// Run sends t to the workers and waits for its result. Cancelling ctx
// cancels the task on its worker. A worker silent for three heartbeats
// makes the task's row say so; one silent for ten, with no other worker
// taking the task over, ends it in an error. A task whose worker stopped
// and gave it back (Hooks.GivenBack) waits for the next worker as an
// unclaimed one does.
func (d *Dispatcher) Run(ctx context.Context, t Task, h Hooks) (Result, error) {
	if h.Sink == nil {
		h.Sink = event.Discard
	}
	hb := d.opts.heartbeat()
	t.Lead = d.id
	t.HeartbeatMS = int(hb / time.Millisecond)
	t.MaxAttempts = d.opts.MaxAttempts
	if t.MaxAttempts <= 0 {
		t.MaxAttempts = DefaultMaxAttempts
	}
	if d.opts.Workspace != "" && t.Commit == "" {
		commit, patch, err := d.snapshot(ctx)
		if err != nil {
			return Result{}, err
		}
		t.Commit, t.Patch = commit, patch
	}
	f := &flight{task: t, h: h, result: make(chan Result, 1)}
	d.mu.Lock()
	if _, dup := d.flights[t.ID]; dup {
		d.mu.Unlock()
		return Result{}, fmt.Errorf("task %s is already running on the workers", t.ID)
	}
	d.flights[t.ID] = f
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.flights, t.ID)
		d.mu.Unlock()
	}()
	// The worker is told at once, whatever this goroutine is doing; Run
	// returns only after the message is out, so a lead closing its
	// connection right after an interrupt still cancels the task. This is
	// set up before the task is sent: a worker can claim it, and ctx end,
	// before the publish returns (which then fails with ctx while the task
	// stays queued); a claim after the cancel is refused (f.done).
	tell := func() {
		f.mu.Lock()
		f.done = true
		f.mu.Unlock()
		_ = d.nc.Publish(cancelSubject(d.id, t.ID), nil)
		_ = d.nc.Flush()
	}
	told := make(chan struct{})
	stopCancel := context.AfterFunc(ctx, func() {
		defer close(told)
		tell()
	})
	defer func() {
		switch {
		case !stopCancel():
			<-told
		case ctx.Err() != nil:
			// ctx's Done is closed before its AfterFuncs are started:
			// this Run saw it first and stopped the func, so it tells.
			tell()
		}
	}()
	b, err := json.Marshal(t)
	if err != nil {
		return Result{}, err
	}
	if _, err := d.js.Publish(ctx, TaskSubject, b, jetstream.WithMsgID(t.Key())); err != nil {
		return Result{}, fmt.Errorf("sending task %s to the workers: %w", t.ID, err)
	}
	tick := time.NewTicker(hb)
	defer tick.Stop()
	for {
		select {
		case r := <-f.result:
			return r, nil
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case <-tick.C:
			if err := f.watch(hb); err != nil {
				_ = d.nc.Publish(cancelSubject(d.id, t.ID), nil)
				return Result{}, err
			}
		}
	}
}

// watch checks how long f's worker has been silent.
func (f *flight) watch(hb time.Duration) error {
	f.mu.Lock()
	if f.worker == "" || f.done || f.queued {
		f.mu.Unlock()
		return nil
	}
	quiet := time.Since(f.lastWord)
	worker := f.worker
	noted := f.silent
	switch {
	case quiet > 10*hb:
		f.done = true
		f.mu.Unlock()
		return fmt.Errorf("lost worker %s: no word from it for %s, and no other worker took the task over", worker, quiet.Round(time.Second))
	case quiet > 3*hb:
		f.silent = true
	}
	silent := f.silent
	f.mu.Unlock()
	if silent && !noted && f.h.Note != nil {
		f.h.Note(fmt.Sprintf("waiting for %s: no word for %s", worker, quiet.Round(100*time.Millisecond)))
	}
	return nil
}

// Patch reads a result's patch from the object store.
func (d *Dispatcher) Patch(ctx context.Context, name string) ([]byte, error) {
	b, err := d.store.GetBytes(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("reading patch %s from the object store: %w", name, err)
	}
	return b, nil
}
