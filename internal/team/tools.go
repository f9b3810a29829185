package team

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/tools"
)

// LeadTools are the team tools the lead gets: team_create, team_spawn,
// team_delete, send_message, broadcast and shutdown_request.
func LeadTools(m *Manager) []tools.Tool {
	return []tools.Tool{&createTool{tool{m: m}}, &spawnTool{tool{m: m}}, &deleteTool{tool{m: m}},
		&sendTool{tool{m: m}}, &broadcastTool{tool{m: m}}, &shutdownTool{tool{m: m}}}
}

// MateTools are the tools every teammate gets besides its type's:
// send_message and broadcast.
func MateTools(m *Manager) []tools.Tool {
	return []tools.Tool{&sendTool{tool{m: m}}, &broadcastTool{tool{m: m}}}
}

// tool holds what the team tools share. Every team tool is a
// tools.Starter whose work happens in Start, so several calls in one
// assistant message take effect in the model's order (messages arrive in
// the order they were written, spawns meet the cap in order).
type tool struct {
	tools.SchemaCache
	m *Manager
}

func (*tool) Kind() tools.Kind { return tools.Orchestrate }

// run adapts a Start-only tool to Run.
func run(ctx context.Context, st tools.Starter, call tools.Call) (tools.Result, error) {
	wait, err := st.Start(ctx, call)
	if err != nil {
		return tools.Result{}, err
	}
	return wait()
}

func done(text string) func() (tools.Result, error) {
	return func() (tools.Result, error) { return tools.Result{Content: text}, nil }
}

func decode[T any](tool string, raw json.RawMessage) (T, error) {
	var in T
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("%s: bad input: %w", tool, err)
	}
	return in, nil
}

// --- team_create ---

type createTool struct{ tool }

func (*createTool) Name() string { return "team_create" }
func (*createTool) Description() string {
	return `Creates your team (one at a time). Teammates, unlike task sub-agents, are long-lived named agents that work beside you and message you while they work; start them with team_spawn. You are woken by each message and told when all are idle. The run ends only once every teammate has ended.`
}
func (*createTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"],"additionalProperties":false}`)
}
func (t *createTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return run(ctx, t, call)
}
func (t *createTool) Start(_ context.Context, call tools.Call) (func() (tools.Result, error), error) {
	in, err := decode[struct{ Name string }]("team_create", call.Input)
	if err != nil {
		return nil, err
	}
	if err := t.m.Create(in.Name); err != nil {
		return nil, err
	}
	return done(fmt.Sprintf("Created team %q (up to %d teammates at once). Start teammates with team_spawn.",
		strings.TrimSpace(in.Name), t.m.MaxTeammates())), nil
}

// --- team_spawn ---

type spawnTool struct{ tool }

func (*spawnTool) Name() string { return "team_spawn" }
func (t *spawnTool) Description() string {
	var b strings.Builder
	for _, ty := range t.m.cfg.Types.All() {
		fmt.Fprintf(&b, "\n- %s: %s", ty.Name, ty.Description)
	}
	return `Starts a named teammate with its own context and tools, given only your prompt: include every detail it needs and what to report. It reports with send_message and waits, idle, between messages. Several calls in one message start several teammates.
Types:` + b.String()
}
func (*spawnTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string","minLength":1,"description":"Unique: letters, digits, - _ ."},` +
		`"role":{"type":"string","description":"e.g. tester"},` +
		`"prompt":{"type":"string","minLength":1},` +
		`"subagent_type":{"type":"string","description":"Default general-purpose"}},` +
		`"required":["name","role","prompt"],"additionalProperties":false}`)
}
func (t *spawnTool) Subject(input json.RawMessage) string {
	in, _ := decode[SpawnSpec]("team_spawn", input)
	return in.Name
}
func (t *spawnTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return run(ctx, t, call)
}
func (t *spawnTool) Start(_ context.Context, call tools.Call) (func() (tools.Result, error), error) {
	in, err := decode[struct {
		Name, Role, Prompt string
		SubagentType       string `json:"subagent_type"`
	}]("team_spawn", call.Input)
	if err != nil {
		return nil, err
	}
	if call.AgentID != "" && call.AgentID != event.LeadID {
		return nil, fmt.Errorf("team_spawn: only the lead can spawn teammates")
	}
	info, err := t.m.Spawn(SpawnSpec{Name: in.Name, Role: in.Role, Prompt: in.Prompt, Type: in.SubagentType})
	if err != nil {
		return nil, fmt.Errorf("team_spawn %s: %w", strings.TrimSpace(in.Name), err)
	}
	return done(fmt.Sprintf("Spawned teammate %s (role: %s, type: %s, model: %s). It is working on your prompt and will report with send_message; you are woken when it does. Active teammates: %d of %d.",
		info.Name, info.Role, info.Type, info.Model, t.m.Active(), t.m.MaxTeammates())), nil
}

// --- team_delete ---

type deleteTool struct{ tool }

func (*deleteTool) Name() string { return "team_delete" }
func (*deleteTool) Description() string {
	return `Stops every teammate at once (cutting off a turn under way) and deletes the team. shutdown_request lets one finish its turn.`
}
func (*deleteTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
}
func (t *deleteTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return run(ctx, t, call)
}
func (t *deleteTool) Start(ctx context.Context, _ tools.Call) (func() (tools.Result, error), error) {
	team := t.m.Team()
	if team == "" {
		return nil, ErrNoTeam
	}
	return func() (tools.Result, error) {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		ended, err := t.m.Delete(wctx)
		if err != nil {
			return tools.Result{}, err
		}
		if len(ended) == 0 {
			return tools.Result{Content: fmt.Sprintf("Deleted team %q; it had no live teammates.", team)}, nil
		}
		parts := make([]string, len(ended))
		for i, e := range ended {
			parts[i] = fmt.Sprintf("%s (%s)", e.Name, e.Status)
		}
		return tools.Result{Content: fmt.Sprintf("Deleted team %q; stopped: %s.", team, strings.Join(parts, ", "))}, nil
	}, nil
}

// --- send_message ---

type sendTool struct{ tool }

func (*sendTool) Name() string { return "send_message" }
func (*sendTool) Description() string {
	return `Sends a message to one member of your team: a teammate by name, or "lead". An idle recipient is woken by it; messages from one sender arrive in order.`
}
func (*sendTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"to":{"type":"string","minLength":1,"description":"A teammate's name, or \"lead\""},` +
		`"content":{"type":"string","minLength":1}},` +
		`"required":["to","content"],"additionalProperties":false}`)
}
func (t *sendTool) Subject(input json.RawMessage) string {
	in, _ := decode[struct{ To string }]("send_message", input)
	return in.To
}
func (t *sendTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return run(ctx, t, call)
}
func (t *sendTool) Start(_ context.Context, call tools.Call) (func() (tools.Result, error), error) {
	in, err := decode[struct{ To, Content string }]("send_message", call.Input)
	if err != nil {
		return nil, err
	}
	from, err := t.m.sender(call.AgentID)
	if err != nil {
		return nil, err
	}
	if err := t.m.send(from, in.To, in.Content); err != nil {
		return nil, fmt.Errorf("send_message: %w", err)
	}
	return done(fmt.Sprintf("Message sent to %s.", strings.TrimSpace(in.To))), nil
}

// --- broadcast ---

type broadcastTool struct{ tool }

func (*broadcastTool) Name() string { return "broadcast" }
func (*broadcastTool) Description() string {
	return `Sends one message to everyone on your team but you.`
}
func (*broadcastTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","minLength":1}},"required":["content"],"additionalProperties":false}`)
}
func (t *broadcastTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return run(ctx, t, call)
}
func (t *broadcastTool) Start(_ context.Context, call tools.Call) (func() (tools.Result, error), error) {
	in, err := decode[struct{ Content string }]("broadcast", call.Input)
	if err != nil {
		return nil, err
	}
	from, err := t.m.sender(call.AgentID)
	if err != nil {
		return nil, err
	}
	sent, err := t.m.broadcast(from, in.Content)
	if err != nil {
		return nil, fmt.Errorf("broadcast: %w", err)
	}
	return done(fmt.Sprintf("Message sent to %s.", strings.Join(sent, ", "))), nil
}

// --- shutdown_request ---

type shutdownTool struct{ tool }

func (*shutdownTool) Name() string { return "shutdown_request" }
func (*shutdownTool) Description() string {
	return `Asks a teammate to end after its current turn (an idle one ends at once); messages waiting for it are dropped.`
}
func (*shutdownTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"to":{"type":"string","minLength":1,"description":"The teammate's name"}},"required":["to"],"additionalProperties":false}`)
}
func (t *shutdownTool) Subject(input json.RawMessage) string {
	in, _ := decode[struct{ To string }]("shutdown_request", input)
	return in.To
}
func (t *shutdownTool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	return run(ctx, t, call)
}
func (t *shutdownTool) Start(_ context.Context, call tools.Call) (func() (tools.Result, error), error) {
	in, err := decode[struct{ To string }]("shutdown_request", call.Input)
	if err != nil {
		return nil, err
	}
	if call.AgentID != "" && call.AgentID != event.LeadID {
		return nil, fmt.Errorf("shutdown_request: only the lead can shut teammates down")
	}
	st, err := t.m.RequestShutdown(in.To)
	if err != nil {
		return nil, fmt.Errorf("shutdown_request: %w", err)
	}
	name := strings.TrimSpace(in.To)
	if st == Idle {
		return done(fmt.Sprintf("Shutdown requested: %s was idle and is ending now.", name)), nil
	}
	return done(fmt.Sprintf("Shutdown requested: %s is %s and will end when its current turn finishes.", name, st)), nil
}
