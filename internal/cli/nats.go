package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// natsFlags connect a lead or a worker to NATS.
type natsFlags struct {
	url, tasks          string
	creds               string
	tlsCA, tlsCert, key string
	heartbeat           time.Duration
	attempts, replicas  int
}

func (n *natsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&n.url, "nats", "", "NATS server `URL` with JetStream: task sub-agents run on remote workers (atomic worker); also nats_url in config")
	fs.StringVar(&n.tasks, "nats-tasks", "all", "which task sub-agents go to the workers: all, or runs_on (the agent types whose file says runs_on: workers)")
	fs.StringVar(&n.creds, "nats-creds", "", "NATS credentials `FILE`")
	fs.StringVar(&n.tlsCA, "nats-tls-ca", "", "CA `FILE` that signs the NATS server's certificate")
	fs.StringVar(&n.tlsCert, "nats-tls-cert", "", "client certificate `FILE` for NATS (with --nats-tls-key)")
	fs.StringVar(&n.key, "nats-tls-key", "", "client key `FILE` for NATS")
	fs.DurationVar(&n.heartbeat, "nats-heartbeat", remote.DefaultHeartbeat, "how often lead and workers say they are alive; one silent for 3 is taken for gone")
	fs.IntVar(&n.attempts, "nats-attempts", remote.DefaultMaxAttempts, "workers a task is given before it ends in an error (lead)")
	fs.IntVar(&n.replicas, "nats-replicas", 1, "replicas of the task stream and patch store (3 on a 3-node cluster)")
}

// options are the remote options the flags (and url, when the flag is not
// given) describe.
func (n *natsFlags) options(url, workspace string) (remote.Options, error) {
	o := remote.Options{URL: url, Heartbeat: n.heartbeat, MaxAttempts: n.attempts, Replicas: n.replicas, Workspace: workspace}
	switch n.tasks {
	case "all":
		o.All = true
	case "runs_on":
	default:
		return o, fmt.Errorf("--nats-tasks %q: use all or runs_on", n.tasks)
	}
	if n.heartbeat <= 0 {
		return o, fmt.Errorf("--nats-heartbeat: must be more than 0, got %s", n.heartbeat)
	}
	if n.replicas < 1 || n.replicas > 5 {
		return o, fmt.Errorf("--nats-replicas: must be 1 to 5, got %d", n.replicas)
	}
	if n.attempts < 1 {
		return o, fmt.Errorf("--nats-attempts: must be at least 1, got %d", n.attempts)
	}
	if n.creds != "" {
		o.NATS = append(o.NATS, nats.UserCredentials(n.creds))
	}
	if n.tlsCA != "" {
		o.NATS = append(o.NATS, nats.RootCAs(n.tlsCA))
	}
	if (n.tlsCert == "") != (n.key == "") {
		return o, errors.New("--nats-tls-cert and --nats-tls-key go together")
	}
	if n.tlsCert != "" {
		o.NATS = append(o.NATS, nats.ClientCert(n.tlsCert, n.key))
	}
	return o, nil
}

// dialNATS connects the lead to the workers' NATS server when --nats or
// nats_url names one; s.remote is then set, and the caller closes it.
func (c *common) dialNATS(ctx context.Context, ios IOStreams, s *setup) error {
	url := c.nats.url
	if url == "" {
		url = s.file.NATSURL
	}
	if url == "" {
		return nil
	}
	o, err := c.nats.options(url, ios.Dir)
	if err != nil {
		return err
	}
	d, err := remote.Dial(ctx, o)
	if err != nil {
		return err
	}
	s.remote = d
	return nil
}

// closeNATS closes the lead's connection, if any.
func (s *setup) closeNATS() {
	if s.remote != nil {
		_ = s.remote.Close()
	}
}

const workerSynopsis = `Usage: atomic worker --nats URL --workspace DIR [--name NAME] [--concurrency N] [provider flags]

Pulls sub-agent tasks from the NATS work queue and runs each in a worktree
of DIR (this machine's clone of the lead's repository) at the lead's
commit with the lead's uncommitted changes, with this machine's provider
settings and keys. Prints "worker NAME ready" on stderr once subscribed.
`

func runWorker(ctx context.Context, args []string, ios IOStreams) int {
	fs := flag.NewFlagSet("atomic worker", flag.ContinueOnError)
	var c common
	c.register(fs)
	var workspace, name string
	var concurrency int
	fs.StringVar(&workspace, "workspace", "", "this worker's clone of the lead's repository (default: the current directory)")
	fs.StringVar(&name, "name", "", "the worker's name in the lead's events (default: host name and pid)")
	fs.IntVar(&concurrency, "concurrency", 1, "tasks run at once")
	if code, ok := c.parse(fs, args, ios, workerSynopsis); !ok {
		return code
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(ios.Err, "atomic worker: %v\n", err)
		return code
	}
	if fs.NArg() > 0 {
		return fail(2, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if concurrency < 1 {
		return fail(2, fmt.Errorf("--concurrency: must be at least 1, got %d", concurrency))
	}
	if workspace == "" {
		workspace = ios.Dir
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return fail(2, err)
	}
	ios.Dir = ws
	ios.Err = &lockedWriter{w: ios.Err}
	s, err := c.resolve(ios, nil)
	if err != nil {
		return fail(2, err)
	}
	defer s.sandbox.Close() // its temp dir goes with the worker
	if err := c.buildProvider(ios, s); err != nil {
		return fail(2, err)
	}
	defer s.closeProvider()
	url := c.nats.url
	if url == "" {
		url = s.file.NATSURL
	}
	if url == "" {
		return fail(2, errors.New("no NATS server: give --nats URL (or nats_url in config)"))
	}
	o, err := c.nats.options(url, "")
	if err != nil {
		return fail(2, err)
	}
	if name == "" {
		name = remote.DefaultName()
	}
	// The worker outlives ctx: a signal stops it (Stop), which gives its
	// tasks back and tells their leads before the process exits.
	w := runtime.StartWorker(context.WithoutCancel(ctx), runtime.WorkerConfig{
		Remote: remote.WorkerConfig{Options: o, Name: name, Workspace: ws, Concurrency: concurrency,
			Log:   func(l string) { fmt.Fprintln(ios.Err, l) },
			Ready: func() { fmt.Fprintf(ios.Err, "worker %s ready\n", name) },
		},
		Provider: s.prov, Model: s.ps.Model, Workspace: s.workspace, Gate: s.gate, MaxTurns: c.maxTurns, Effort: c.level,
		Memory: s.memory.Prompt(), Context: contextPolicy(s.file),
	})
	select {
	case <-ctx.Done():
	case <-w.Done():
	}
	if err := w.Stop(workerGrace); err != nil {
		fmt.Fprintf(ios.Err, "atomic worker %s: %v\n", name, err)
	}
	if err := w.Err(); err != nil {
		return fail(1, err)
	}
	return 0
}

// workerGrace is how long a stopping worker waits for its tasks to end
// and their leads to be told, as atomic run waits for its agents.
const workerGrace = 10 * time.Second
