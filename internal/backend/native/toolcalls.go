package native

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/hooks"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/tools"
)

// requestSeq numbers permission requests across sessions; it is only an id
// source, not state that changes behaviour.
var requestSeq atomic.Uint64

// runTools runs the calls of one assistant message concurrently. Calls that
// share a lock key (writes to the same file) run one after another in the
// model's order; other calls never wait. Results come back in call order. On
// cancellation every unfinished call gets a "cancelled" result and the error
// wraps ctx's.
func (s *Session) runTools(ctx context.Context, calls []provider.ToolCall) ([]provider.ToolResult, error) {
	results := make([]provider.ToolResult, len(calls))
	// Starters (the task tool) begin in the model's order, before anything
	// runs concurrently. Those that say when their wait is done
	// (tools.Notifier) are finished here, on this goroutine, as each says
	// so: a thousand sub-agents' waits are not a thousand goroutines.
	waits := make([]func() provider.ToolResult, len(calls))
	notified := make([]bool, len(calls))
	ready := make(chan int, len(calls))
	for i, c := range calls {
		if t, ok := s.cfg.Tools.Get(c.Name); ok {
			if st, ok := t.(tools.Starter); ok {
				waits[i], notified[i] = s.startTool(ctx, c, t, st, func() { ready <- i })
			}
		}
	}
	done := make([]chan struct{}, len(calls))
	last := map[string]int{} // lock key -> index of the latest call holding it
	pending := 0
	var wg sync.WaitGroup
	for i, c := range calls {
		done[i] = make(chan struct{})
		var deps []chan struct{}
		if t, ok := s.cfg.Tools.Get(c.Name); ok {
			if l, ok := t.(tools.Locker); ok {
				for _, k := range l.LockKeys(c.Input) {
					if j, ok := last[k]; ok {
						deps = append(deps, done[j])
					}
					last[k] = i
				}
			}
		}
		if notified[i] && len(deps) == 0 {
			pending++
			continue
		}
		if notified[i] { // its ready still comes; the wait runs after deps
			pending++
			notified[i] = false
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			for _, d := range deps {
				<-d // predecessors always finish: they honour ctx themselves
			}
			if waits[i] != nil {
				results[i] = waits[i]()
				return
			}
			results[i] = s.runTool(ctx, calls[i])
		}()
	}
	for ; pending > 0; pending-- {
		i := <-ready // tasks end promptly when ctx does: they are tied to it
		if notified[i] {
			results[i] = waits[i]()
			close(done[i])
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		return results, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return results, nil
}

// startTool begins a Starter call and returns the wait that finishes it.
// notified reports that ready is called (once) when the wait no longer
// blocks: at once when the call was refused or failed to start, or when
// the tool says so (tools.Notifier). Otherwise ready is never called.
func (s *Session) startTool(ctx context.Context, c provider.ToolCall, t tools.Tool, st tools.Starter, ready func()) (wait func() provider.ToolResult, notified bool) {
	call := tools.Call{ID: c.ID, Input: c.Input, AgentID: s.cfg.ID}
	start := event.ToolStartData{Name: c.Name, Input: c.Input}
	var subject string
	rv, reserves := t.(tools.Reserver)
	if reserves {
		if r, err := rv.Reserve(call); err == nil {
			start.SubagentID, start.SubagentSessionID, start.Queued = r.AgentID, r.SessionID, r.Queued
			subject = r.Subject
		} else {
			reserves = false
			subject = subjectOf(t, c.Input)
		}
	} else {
		subject = subjectOf(t, c.Input)
	}
	s.announce(c, start, subject)
	res, ok := s.admit(ctx, c, t, subject)
	if !ok && reserves {
		rv.Release(c.ID)
	}
	if ok {
		once := sync.OnceFunc(ready) // a panicking Start may have called it too
		nt, notifies := t.(tools.Notifier)
		var w func() (tools.Result, error)
		var err error
		if notifies {
			w, err = safeStart(func() (func() (tools.Result, error), error) { return nt.StartNotify(ctx, call, once) })
		} else {
			w, err = safeStart(func() (func() (tools.Result, error), error) { return st.Start(ctx, call) })
		}
		if err == nil {
			return func() provider.ToolResult {
				r, err := safeWait(t.Name(), w)
				if err != nil {
					r = tools.Result{Content: err.Error(), IsError: true}
				}
				return s.completeTool(ctx, c, s.postToolUse(ctx, c, r))
			}, notifies
		}
		res = tools.Result{Content: err.Error(), IsError: true}
		ready = once
	}
	ready()
	return func() provider.ToolResult { return s.completeTool(ctx, c, res) }, true
}

func safeStart(start func() (func() (tools.Result, error), error)) (wait func() (tools.Result, error), err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool panicked: %v", p)
		}
	}()
	return start()
}

func safeWait(name string, wait func() (tools.Result, error)) (r tools.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s panicked: %v", name, p)
		}
	}()
	return wait()
}

// runTool validates, gates and runs one call, emitting tool.start and
// tool.complete around it.
func (s *Session) runTool(ctx context.Context, c provider.ToolCall) provider.ToolResult {
	t, _ := s.cfg.Tools.Get(c.Name)
	subject := subjectOf(t, c.Input)
	s.announce(c, event.ToolStartData{Name: c.Name, Input: c.Input}, subject)
	if t == nil {
		// A tool of an MCP server still starting: the call waits for the
		// server (bounded by its start timeout), shown as started.
		t, _ = s.cfg.Tools.Await(ctx, c.Name)
		subject = subjectOf(t, c.Input)
	}
	res, ok := s.admit(ctx, c, t, subject)
	if ok {
		progress, stop := s.progress(c, subject)
		res = tools.Execute(ctx, t, tools.Call{ID: c.ID, Input: c.Input, AgentID: s.cfg.ID, Progress: progress})
		stop()
		res = s.postToolUse(ctx, c, res)
	}
	return s.completeTool(ctx, c, res)
}

// progress reports call c's progress as tool.progress and, for a
// sub-agent, as its row's current tool ("mcp__s__index · 3/10 · files");
// a report after stop (a late notification) is dropped, so none follows
// the call's tool.complete.
func (s *Session) progress(c provider.ToolCall, subject string) (report func(event.ToolProgressData), stop func()) {
	var mu sync.Mutex
	done := false
	report = func(d event.ToolProgressData) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		d.Name = c.Name
		s.emit(event.ToolProgress, c.ID, d)
		if s.cfg.TaskCallID != "" {
			cur := strings.TrimSpace(c.Name + " " + subject)
			s.emit(event.SubagentUpdate, s.cfg.TaskCallID, event.SubagentUpdateData{CurrentTool: cur + " · " + d.Line()})
		}
	}
	stop = func() {
		mu.Lock()
		done = true
		mu.Unlock()
	}
	return report, stop
}

// announce announces call c: tool.start, and for a sub-agent its progress
// (subagent.update naming the tool and its subject, under the task call
// that started the agent), which the reducer keeps as its current tool.
func (s *Session) announce(c provider.ToolCall, start event.ToolStartData, subject string) {
	s.emit(event.ToolStart, c.ID, start)
	if s.cfg.TaskCallID == "" {
		return
	}
	cur := c.Name
	if subject != "" {
		cur += " " + subject
	}
	s.emit(event.SubagentUpdate, s.cfg.TaskCallID, event.SubagentUpdateData{CurrentTool: cur})
}

// subjectOf is the one argument of a call that matters (tools.Subjecter),
// read once per call: it labels the approval prompt, the permission
// patterns match it, and a sub-agent's row shows it.
func subjectOf(t tools.Tool, input json.RawMessage) string {
	if sj, ok := t.(tools.Subjecter); ok {
		return sj.Subject(input)
	}
	return ""
}

// completeTool emits tool.complete and builds the result for the model.
func (s *Session) completeTool(ctx context.Context, c provider.ToolCall, res tools.Result) provider.ToolResult {
	data := event.ToolCompleteData{Name: c.Name, Success: !res.IsError}
	if ctx.Err() != nil && res.IsError {
		data.Cancelled = true
		if !strings.HasPrefix(res.Content, "cancelled") {
			res.Content = "cancelled: " + res.Content
		}
	}
	if res.IsError {
		data.Error = res.Content
	} else {
		data.Result = res.Content
	}
	if a := res.Announce; a != nil && !res.IsError {
		s.emit(a.Type, c.ID, a.Data)
	}
	out := provider.ToolResult{ToolCallID: c.ID, Content: res.Content, IsError: res.IsError}
	for _, img := range res.Images {
		out.Images = append(out.Images, provider.Image{MediaType: img.MediaType, Data: img.Data})
		data.Images = append(data.Images, event.ToolImage{MediaType: img.MediaType, Data: img.Data})
	}
	s.emit(event.ToolComplete, c.ID, data)
	return out
}

// admit checks that the call may run: the tool exists, its input is valid
// and the permission gate allows it. When not, it returns the error result.
func (s *Session) admit(ctx context.Context, c provider.ToolCall, t tools.Tool, subject string) (tools.Result, bool) {
	if err := ctx.Err(); err != nil {
		return tools.Result{Content: "cancelled: the user interrupted before this tool ran", IsError: true}, false
	}
	if t == nil {
		return tools.Result{Content: fmt.Sprintf("unknown tool %q; available tools: %s", c.Name, strings.Join(s.cfg.Tools.Names(), ", ")), IsError: true}, false
	}
	if err := tools.Validate(t, c.Input); err != nil {
		return tools.Result{Content: err.Error(), IsError: true}, false
	}
	if s.cfg.Gate != nil || s.cfg.Hooks.Has(hooks.PreToolUse) {
		req := permission.Request{
			ID:      "perm-" + strconv.FormatUint(requestSeq.Add(1), 10),
			AgentID: s.cfg.ID, AgentName: s.agentLabel(), Tool: c.Name, Kind: t.Kind(), Input: c.Input,
			Subject: subject,
		}
		d, decided := s.preToolUse(ctx, c, req)
		if !decided {
			d = s.decide(ctx, c.ID, req)
		}
		if !d.Allow {
			return tools.Result{Content: d.Reason, IsError: true}, false
		}
	}
	return tools.Result{}, true
}

// decide passes req through the gate, reporting a call that needs a human
// as permission.requested before the wait and permission.resolved after
// (a headless denial included).
func (s *Session) decide(ctx context.Context, callID string, req permission.Request) permission.Decision {
	if s.cfg.Gate == nil {
		return permission.Decision{Allow: true}
	}
	if d, decided := s.cfg.Gate.Check(req); decided {
		return d
	}
	return s.ask(ctx, callID, req)
}

// ask puts req to the human, reported as permission.requested and
// permission.resolved, with Notification hooks told meanwhile.
func (s *Session) ask(ctx context.Context, callID string, req permission.Request) permission.Decision {
	notified := s.notify(ctx, callID, req)
	defer notified()
	req.Path = s.cfg.Gate.Path(req.AgentID)
	s.emit(event.PermissionRequested, callID, event.PermissionRequestedData{
		RequestID: req.ID, AgentName: req.AgentName, Path: req.Path, Tool: req.Tool, Subject: req.Subject, Input: req.Input,
		SessionRules: s.cfg.Gate.SessionRules(req),
	})
	d := s.cfg.Gate.Ask(ctx, req)
	s.emit(event.PermissionResolved, callID, event.PermissionResolvedData{RequestID: req.ID, Allowed: d.Allow, Reason: d.Reason})
	return d
}

func (s *Session) agentLabel() string {
	if s.cfg.ID == "" {
		return s.cfg.Name
	}
	return s.cfg.ID
}
