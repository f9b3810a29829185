package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/checkpoint"
	"github.com/atomic-agent/atomic/internal/provider"
)

// Checkpoints is the run's per-prompt file snapshots (/rewind); nil when
// Config.Checkpoints is off.
func (r *Runtime) Checkpoints() *checkpoint.Store { return r.cps }

// Rewound says what a Rewind did.
type Rewound struct {
	// Prompt is the text of the prompt rewound to (it returns to the
	// input box).
	Prompt string
	// Code is what the code restore wrote and deleted (Code false: none).
	Code checkpoint.Restored
}

// RewindRequest asks for the conversation, the code, or both, to go back
// to before prompt Seq.
type RewindRequest struct {
	Seq                int
	Code, Conversation bool
}

// rewindInput is a queued Rewind.
type rewindInput struct {
	req  RewindRequest
	done func(Rewound, error)
}

// Rewind queues a rewind for the driver loop, between turns; done is told
// the outcome. It refuses while the lead, a sub-agent, a teammate or a
// shell still works: their changes would land after the restore.
func (r *Runtime) Rewind(req RewindRequest, done func(Rewound, error)) {
	r.inputs <- input{rewind: &rewindInput{req: req, done: done}}
}

// begin opens prompt's checkpoint, marking where the lead's conversation
// stood before it.
func (r *Runtime) begin(prompt string) {
	if r.cps == nil {
		return
	}
	n, mark := -1, ""
	if rw, ok := r.lead.(backend.Rewinder); ok {
		h := rw.History()
		n, mark = len(h), historyMark(h, len(h))
	}
	r.cps.Begin(prompt, r.cfg.Now(), n, mark)
}

// historyMark fingerprints the message before position n ("" for n 0), so
// that a history compacted since (its early messages replaced) is noticed.
func historyMark(h []provider.Message, n int) string {
	if n <= 0 || n > len(h) {
		return ""
	}
	b, err := json.Marshal(h[n-1])
	if err != nil {
		return "?"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// errBusy is Rewind's refusal while work runs.
var errBusy = errors.New("agents or shells are still running: stop them first (Esc twice, or /tasks), then rewind")

// rewind carries out a queued Rewind.
func (r *Runtime) rewind(in *rewindInput) {
	out, err := r.doRewind(in.req)
	in.done(out, err)
}

func (r *Runtime) doRewind(req RewindRequest) (Rewound, error) {
	if r.cps == nil {
		return Rewound{}, errors.New("checkpoints are off in this run")
	}
	if r.Busy() || len(r.owners.Unsettled(r.bus.Holds)) > 0 {
		return Rewound{}, errBusy
	}
	cp, ok := r.cps.Get(req.Seq)
	if !ok {
		return Rewound{}, fmt.Errorf("no checkpoint %d: it was rewound or never was", req.Seq)
	}
	out := Rewound{Prompt: cp.Prompt}
	var rw backend.Rewinder
	if req.Conversation {
		// Checked before any file changes: both is all or nothing here.
		rw, ok = r.lead.(backend.Rewinder)
		if !ok || cp.History < 0 {
			return Rewound{}, errors.New("the lead runs on an external CLI, which keeps its own conversation: only the code can be rewound")
		}
		if h := rw.History(); len(h) < cp.History || historyMark(h, cp.History) != cp.Mark {
			return Rewound{}, errors.New("the conversation was compacted since that prompt: only the code can be rewound")
		}
	}
	if req.Code {
		res, err := r.cps.RestoreCode(req.Seq)
		out.Code = res
		if err != nil {
			return out, fmt.Errorf("restoring the code: %w", err)
		}
	}
	if req.Conversation {
		// The session store records the shorter history: a resumed
		// session continues the rewound conversation.
		rw.Truncate(cp.History)
		r.cps.Drop(req.Seq)
		r.mu.Lock()
		r.lastText = ""
		r.mu.Unlock()
	}
	return out, nil
}

// beforeMerge snapshots the files a worktree merge is about to change in
// the lead's tree; nil-safe for a run without checkpoints.
func (r *Runtime) beforeMerge(paths []string) {
	if r.cps == nil {
		return
	}
	for _, p := range paths {
		r.cps.Save(p)
	}
}
