package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// notifier is the part of the client connection a session talks to.
type notifier interface {
	SessionUpdate(ctx context.Context, n sdk.SessionNotification) error
	RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
}

// item is one entry of a session's outgoing queue: an update to send, or a
// mark the sender reaches once everything before it was sent.
type item struct {
	update *sdk.SessionUpdate
	mark   chan struct{}
	// turnEnd is set on the mark of a lead's turn.end.
	turnEnd *turnEnd
}

type turnEnd struct {
	stop event.StopReason
	err  string
}

// session is one ACP session: a run of Atomic whose events are sent to the
// client in order by one sender goroutine, so the event bus never waits on
// the client.
type session struct {
	id   sdk.SessionId
	conn notifier
	run  *Run
	tr   *translator

	lr   *runtime.Run  // the started run
	sent chan struct{} // closed when the sender ends

	// turn is held by the prompt running.
	turn sync.Mutex

	mu     sync.Mutex
	queue  []item
	wake   chan struct{}
	closed bool
	waiter chan turnEnd // the running prompt's, nil between prompts
	// cancelled is set once the running prompt was cancelled.
	cancelled bool
	perms     map[string]sdk.ToolCallId
	unsub     func()
	// late are the tool calls that ended while no prompt was pending
	// (background agents), by id: said again when the next prompt
	// starts, for clients that keep only what comes during a prompt.
	late map[sdk.ToolCallId]sdk.SessionUpdate
	// notes are warnings said between prompts, shown as the next starts.
	notes []sdk.SessionUpdate
	// prompted is set once a prompt ran: the first says the commands
	// again, for clients that drop what a session/load sends (acpx).
	prompted bool
}

// start queues the replay of run's past (a loaded session's), has ask
// put approvals to the client for it, subscribes the session to its run's
// events and starts the run and the sender.
func start(id sdk.SessionId, conn notifier, run *Run, root string, ed edits, ask *asker) *session {
	s := &session{id: id, conn: conn, run: run, tr: newTranslator(root),
		sent: make(chan struct{}), wake: make(chan struct{}, 1),
		perms: map[string]sdk.ToolCallId{}, late: map[sdk.ToolCallId]sdk.SessionUpdate{}}
	s.replay(run.Past, run.Prompts)
	s.tr.edits = ed // the past's edits get no diff: their files changed since
	ask.s = s
	s.unsub = s.watch(run.Runtime.Bus())
	s.lr = run.Runtime.Start(context.Background())
	go s.send()
	return s
}

// watch subscribes the session to b's events and returns the unsubscribe.
// Inline: onEvent only translates and queues, and the asker and the edit
// diffs need its effect in place when the event's Emit returns. Records:
// each change of a sub-agent's record comes as an agent.status carrying
// it, which is all the translator knows of sub-agents.
func (s *session) watch(b *bus.Bus) func() {
	return b.SubscribeWith(s.onEvent, bus.Options{Name: "acp", Inline: true, Records: true}).Close
}

// replay sends a stored session's past as updates: each user prompt, then
// what followed it, in time order. The past goes through a reducer of its
// own (bus.Replay), as a live run's events go through the run's bus. The
// translator goes on from the replayed records, so a sub-agent the
// resumed run ends (interrupted) updates its replayed tool call.
func (s *session) replay(past []event.Event, prompts []Prompt) {
	tr := s.tr
	for _, e := range bus.Replay(past) {
		for len(prompts) > 0 && !prompts[0].Time.After(e.Time) {
			s.replayPrompt(prompts[0])
			prompts = prompts[1:]
		}
		for _, u := range tr.updates(e) {
			s.push(u)
		}
	}
	for _, p := range prompts {
		s.replayPrompt(p)
	}
}

// replayPrompt sends a stored prompt as user message chunks: its text,
// then each of its images.
func (s *session) replayPrompt(p Prompt) {
	if p.Text != "" || len(p.Images) == 0 {
		s.push(sdk.UpdateUserMessageText(p.Text))
	}
	for _, img := range p.Images {
		s.push(sdk.UpdateUserMessage(sdk.ImageBlock(base64.StdEncoding.EncodeToString(img.Data), img.MediaType)))
	}
}

// onEvent is called by the emitter (an inline subscription), outside the
// bus's lock, in bus order: it only translates and queues for the sender.
func (s *session) onEvent(e event.Event) {
	for _, u := range s.tr.updates(e) {
		s.push(u)
	}
	switch {
	case e.Type == event.PermissionRequested:
		d, _ := event.Payload[event.PermissionRequestedData](e.Data)
		call := sdk.ToolCallId(e.ToolCallID)
		if e.AgentID != event.LeadID {
			if r, ok := s.tr.agent(e.AgentID); ok {
				call = agentCallID(r) // shown on the sub-agent's own tool call
			}
		}
		s.mu.Lock()
		s.perms[d.RequestID] = call
		s.mu.Unlock()
	case e.Type == event.TurnEnd && e.AgentID == event.LeadID:
		d, _ := event.Payload[event.TurnEndData](e.Data)
		if d.Woken {
			return // not a prompt's turn: the prompt waiting (if any) is queued after it
		}
		te := &turnEnd{stop: d.StopReason, err: d.Error}
		s.enqueue(item{mark: make(chan struct{}), turnEnd: te})
	case e.Type == event.ContextCompact && e.AgentID == event.LeadID:
		// Only /compact's: an automatic one inside a turn would cut into
		// the lead's answer.
		if d, _ := event.Payload[event.ContextCompactData](e.Data); d.Trigger == event.CompactManual {
			s.push(sdk.UpdateAgentMessageText(compactLine(d)))
		}
	}
}

func (s *session) push(u sdk.SessionUpdate) { s.enqueue(item{update: &u}) }

func (s *session) enqueue(it item) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		if it.mark != nil {
			close(it.mark)
		}
		return
	}
	s.queue = append(s.queue, it)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// send delivers the queue in order until the session closes (after it
// has sent what was queued before).
func (s *session) send() {
	defer close(s.sent)
	for {
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		closed := s.closed
		s.mu.Unlock()
		for _, it := range batch {
			if it.update != nil {
				s.noteLate(*it.update)
				ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
				_ = s.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: s.id, Update: *it.update})
				cancel()
				continue
			}
			if it.turnEnd != nil {
				s.mu.Lock()
				w := s.waiter
				s.waiter = nil
				s.mu.Unlock()
				if w != nil {
					w <- *it.turnEnd
				}
			}
			close(it.mark)
		}
		if closed && len(batch) == 0 {
			return
		}
		if len(batch) == 0 {
			<-s.wake
		}
	}
}

// noteLate keeps u when it ends a tool call while no prompt is pending:
// the lead's own calls end within its turns, so this is a background
// agent's (see session.late).
func (s *session) noteLate(u sdk.SessionUpdate) {
	tu := u.ToolCallUpdate
	if tu == nil || tu.Status == nil || (*tu.Status != sdk.ToolCallStatusCompleted && *tu.Status != sdk.ToolCallStatusFailed) {
		return
	}
	s.mu.Lock()
	if s.waiter == nil {
		s.late[tu.ToolCallId] = u
	}
	s.mu.Unlock()
}

// sendTimeout bounds one notification's write, so a client that stopped
// reading cannot hold the session forever.
const sendTimeout = 10 * time.Second

// flush returns once everything queued so far has been sent (or ctx ends).
func (s *session) flush(ctx context.Context) {
	mark := make(chan struct{})
	s.enqueue(item{mark: mark})
	select {
	case <-mark:
	case <-ctx.Done():
	}
}

// prompt runs one user turn: it returns when the lead's turn ended, after
// every update of the turn was sent. A cancelled turn (session/cancel or
// ctx) ends cancelled. Background sub-agents go on after it returns; their
// updates follow. A prompt sent while another runs waits for it: the SDK
// has cancelled the earlier one by then, as the protocol wants. start, if
// not nil, runs as the turn starts (a skill's grant, which the end of an
// earlier turn would revoke).
func (s *session) prompt(ctx context.Context, text string, images []provider.Image, start func()) (sdk.StopReason, error) {
	s.turn.Lock()
	defer s.turn.Unlock()
	if ctx.Err() != nil {
		return sdk.StopReasonCancelled, nil
	}
	w := make(chan turnEnd, 1)
	s.mu.Lock()
	s.waiter, s.cancelled = w, false
	late, notes, first := s.late, s.notes, !s.prompted
	s.late, s.notes, s.prompted = map[sdk.ToolCallId]sdk.SessionUpdate{}, nil, true
	s.mu.Unlock()
	if first {
		s.push(commandsUpdate(s.run.Commands))
	}
	for _, id := range slices.Sorted(maps.Keys(late)) {
		s.push(late[id]) // before the turn, whose answer the lead may base on them
	}
	for _, u := range notes {
		s.push(u)
	}
	turn := s.lr.SubmitAtStart(text, start, images...)
	ended := turn.Done()
	for {
		select {
		case te := <-w:
			return stopReason(te)
		case <-ctx.Done():
			s.cancel()
			return s.settleCancelled(w, turn)
		case <-ended:
			if _, ran := turn.End(); !ran {
				s.dropWaiter(w)
				return "", errors.New("the session has closed")
			}
			ended = nil // its turn.end is queued for the sender: w follows
		}
	}
}

// cancel interrupts the lead's turn, every sub-agent and every approval
// waiting for the client, once per prompt (the SDK's cancel of the
// prompt's context and session/cancel both come here).
func (s *session) cancel() {
	s.mu.Lock()
	if s.cancelled {
		s.mu.Unlock()
		return
	}
	s.cancelled = s.waiter != nil
	s.mu.Unlock()
	s.run.Runtime.Interrupt("cancelled by the client")
}

// settleCancelled waits for the cancelled turn to end (a prompt still
// queued never starts one) and for its updates to be sent.
func (s *session) settleCancelled(w chan turnEnd, turn *runtime.Turn) (sdk.StopReason, error) {
	select {
	case <-w:
		return sdk.StopReasonCancelled, nil
	case <-turn.Done():
	}
	// A turn that ran has its turn.end queued: flushing sends it and w
	// gets it, unread; a dropped prompt has none.
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	s.flush(ctx)
	cancel()
	s.dropWaiter(w)
	return sdk.StopReasonCancelled, nil
}

// dropWaiter forgets w, the waiter of a prompt that returns without it.
func (s *session) dropWaiter(w chan turnEnd) {
	s.mu.Lock()
	if s.waiter == w {
		s.waiter = nil
	}
	s.mu.Unlock()
}

// stopReason maps the lead's turn.end to the prompt's answer; a failed
// turn is a JSON-RPC error naming why.
func stopReason(te turnEnd) (sdk.StopReason, error) {
	switch te.stop {
	case event.StopInterrupted:
		return sdk.StopReasonCancelled, nil
	case event.StopError:
		if te.err == "" {
			te.err = "the lead's turn failed"
		}
		return "", fmt.Errorf("the turn failed: %s", te.err)
	case event.StopMaxTokens:
		return sdk.StopReasonMaxTokens, nil
	}
	return sdk.StopReasonEndTurn, nil
}

// stopGrace bounds how long closing a session waits for its agents.
const stopGrace = 10 * time.Second

// close stops the run (every sub-agent with it), sends what is queued and
// stops the sender.
func (s *session) close() {
	_ = s.lr.Stop(stopGrace)
	s.run.Close()
	s.unsub()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	<-s.sent
}
