package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/atomic-agent/atomic/internal/worktree"
)

// committer lets throwaway commits be made where no identity is set.
var committer = []string{"GIT_AUTHOR_NAME=Atomic", "GIT_AUTHOR_EMAIL=atomic@localhost",
	"GIT_COMMITTER_NAME=Atomic", "GIT_COMMITTER_EMAIL=atomic@localhost"}

// snapshot returns the lead's HEAD and the name of the object holding its
// uncommitted changes (untracked files included, ignored ones not), put
// in the object store once per content; "" when there are none. The
// lead's own index is not touched: a scratch index is used.
//
// A snapshot started after the tree last changed, as far as the lead
// knows (Changed: a tool call returned, a prompt came in), is shared:
// the one Changed prefetched while the model was still answering, or the
// one a fan-out of tasks started together. Calls that overlap a snapshot
// started before that change wait for the next one.
func (d *Dispatcher) snapshot(ctx context.Context) (commit, patch string, err error) {
	d.snapMu.Lock()
	c := d.snapCur
	if c == nil || c.started.Before(d.changedAt) {
		if c = d.snapNext; c == nil {
			c = &snapCall{done: make(chan struct{})}
			d.snapNext = c
		}
		d.snapMu.Unlock()
		d.snapTurn.Lock()
		d.snapMu.Lock()
		mine := d.snapNext == c
		if mine {
			d.snapNext = nil // later calls wait for the next snapshot
			c.started = time.Now()
			d.snapCur = c
		}
		d.snapMu.Unlock()
		if mine {
			c.commit, c.patch, c.err = d.takeSnapshot(context.WithoutCancel(ctx))
			close(c.done)
		}
		d.snapTurn.Unlock()
	} else {
		d.snapMu.Unlock()
	}
	select {
	case <-c.done:
		return c.commit, c.patch, c.err
	case <-ctx.Done():
		return "", "", ctx.Err()
	}
}

// Changed tells the dispatcher that the lead's tree may have changed just
// now: tasks from here on carry a snapshot taken after it. With prefetch
// (the lead's own tool returned, a prompt came in: a model request
// follows) the snapshot is started at once, while the model answers.
func (d *Dispatcher) Changed(prefetch bool) {
	d.snapMu.Lock()
	defer d.snapMu.Unlock()
	d.changedAt = time.Now()
	if !prefetch || d.closed || d.opts.Workspace == "" {
		return
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		_, _, _ = d.snapshot(context.Background())
	}()
}

// snapCall is one snapshot and those waiting for it.
type snapCall struct {
	started       time.Time
	done          chan struct{}
	commit, patch string
	err           error
}

func (d *Dispatcher) takeSnapshot(ctx context.Context) (commit, patch string, err error) {
	top, err := worktree.TopLevel(ctx, d.opts.Workspace)
	if err != nil {
		return "", "", err
	}
	// One status tells HEAD and whether there is anything uncommitted:
	// a clean tree, the common case, costs one git process.
	status, err := worktree.Git(ctx, top, nil, nil, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all")
	if err != nil {
		return "", "", err
	}
	dirty := false
	for _, rec := range strings.Split(string(status), "\x00") {
		if oid, ok := strings.CutPrefix(rec, "# branch.oid "); ok {
			commit = oid
		} else if rec != "" && !strings.HasPrefix(rec, "#") {
			dirty = true
		}
	}
	if commit == "" || commit == "(initial)" {
		return "", "", fmt.Errorf("the lead's repository %s has no commit to send to workers: commit first", top)
	}
	if !dirty {
		return commit, "", nil
	}
	snap, err := worktree.Snapshot(ctx, top, "atomic: the lead's uncommitted changes, sent to workers")
	if err != nil {
		return "", "", err
	}
	if snap == commit {
		return commit, "", nil
	}
	diff, err := worktree.Git(ctx, top, nil, nil, "diff", "--binary", commit, snap)
	if err != nil {
		return "", "", err
	}
	if len(diff) == 0 {
		return commit, "", nil
	}
	sum := sha256.Sum256(diff)
	name := "lead-" + hex.EncodeToString(sum[:12])
	if _, err := d.store.GetInfo(ctx, name); err != nil {
		if !errors.Is(err, jetstream.ErrObjectNotFound) {
			return "", "", fmt.Errorf("looking up patch %s: %w", name, err)
		}
		if _, err := d.store.PutBytes(ctx, name, diff); err != nil {
			return "", "", fmt.Errorf("storing the lead's uncommitted changes: %w", err)
		}
	}
	return commit, name, nil
}

// checkout is a worker's tree for one attempt of a task.
type checkout struct {
	// lock keeps git worktree add and remove one at a time: git's own
	// bookkeeping of worktrees races with itself.
	lock *sync.Mutex
	repo string // the worker's clone (top level)
	path string
	base string // the commit the agent's changes are measured against
}

// checkoutPath is where a worker's worktree for name goes.
func checkoutPath(top, name string) string {
	return filepath.Join(top, filepath.FromSlash(worktree.Dir), "remote-"+name)
}

// newCheckout makes a detached worktree of the clone top at path, at
// commit, with patch applied and committed (so the agent's own changes
// can be told apart).
func newCheckout(ctx context.Context, lock *sync.Mutex, top, path, commit string, patch []byte) (*checkout, error) {
	c := &checkout{lock: lock, repo: top, path: path, base: commit}
	var err error
	lock.Lock()
	_, err = worktree.Git(ctx, top, nil, nil, "worktree", "add", "--quiet", "--detach", "--force", c.path, commit)
	lock.Unlock()
	if err != nil {
		return nil, fmt.Errorf("creating the worktree %s: %w", filepath.Base(path), err)
	}
	if len(patch) > 0 {
		if _, err := worktree.Git(ctx, c.path, nil, patch, "apply", "--binary", "--whitespace=nowarn", "-"); err != nil {
			c.remove()
			return nil, fmt.Errorf("applying the lead's uncommitted changes on %s: %w", commit, err)
		}
		if _, err := worktree.Git(ctx, c.path, nil, nil, "add", "-A"); err != nil {
			c.remove()
			return nil, err
		}
		if _, err := worktree.Git(ctx, c.path, committer, nil, "commit", "--quiet", "--no-verify", "-m", "the lead's uncommitted changes"); err != nil {
			c.remove()
			return nil, err
		}
		base, err := worktree.Git(ctx, c.path, nil, nil, "rev-parse", "HEAD")
		if err != nil {
			c.remove()
			return nil, err
		}
		c.base = strings.TrimSpace(string(base))
	}
	return c, nil
}

// diff is the agent's changes as a binary patch ("" when none).
func (c *checkout) diff(ctx context.Context) ([]byte, error) {
	if _, err := worktree.Git(ctx, c.path, nil, nil, "add", "-A"); err != nil {
		return nil, err
	}
	return worktree.Git(ctx, c.path, nil, nil, "diff", "--cached", "--binary", c.base)
}

// remove deletes the worktree whatever state it is in.
func (c *checkout) remove() {
	ctx := context.Background()
	c.lock.Lock()
	defer c.lock.Unlock()
	if _, err := worktree.Git(ctx, c.repo, nil, nil, "worktree", "remove", "--force", c.path); err != nil {
		_ = os.RemoveAll(c.path)
		_, _ = worktree.Git(ctx, c.repo, nil, nil, "worktree", "prune")
	}
}
