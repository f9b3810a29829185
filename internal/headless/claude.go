package headless

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/termtext"
)

// FormatClaudeStreamJSON is Claude Code's stream-json: its system init,
// assistant and user messages (a sub-agent's carry the tool call that
// started it as parent_tool_use_id), task_started and task_notification,
// and the result, for pipelines written for `claude -p --output-format
// stream-json`. Atomic's own stream-json stays the one with every event.
const FormatClaudeStreamJSON = "claude-stream-json"

// ClaudeInit is what Claude Code's system init says that the events do
// not: the run's folder and permission mode, and its MCP servers.
type ClaudeInit struct {
	Cwd            string
	PermissionMode string
	MCPServers     []string
}

// claudeEncoder turns Atomic's events into Claude Code's stream-json
// lines. It is used by one goroutine (the stream writer's).
type claudeEncoder struct {
	w    *bufio.Writer
	enc  *json.Encoder
	err  error
	init ClaudeInit

	session string
	started time.Time
	inited  bool
	// spawnedBy is the task call that started each sub-agent.
	spawnedBy map[string]string
	// msgs counts each agent's messages, for their ids; pending is an
	// agent's text message held for the usage that follows it.
	msgs    map[string]int
	pending map[string]map[string]any
	model   map[string]string
	kinds   map[string]string // agent type of each sub-agent
	descs   map[string]string // description of each sub-agent's task
	began   map[string]time.Time
}

func newClaudeEncoder(w io.Writer, init ClaudeInit) *claudeEncoder {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(termtext.JSONWriter(bw))
	enc.SetEscapeHTML(false)
	return &claudeEncoder{w: bw, enc: enc, init: init, spawnedBy: map[string]string{}, msgs: map[string]int{},
		pending: map[string]map[string]any{}, model: map[string]string{}, kinds: map[string]string{}, descs: map[string]string{},
		began: map[string]time.Time{}}
}

// Encode writes the lines e stands for (none for most events).
func (c *claudeEncoder) Encode(e event.Event) error {
	if c.err != nil {
		return c.err
	}
	if c.session == "" {
		c.session, _, _ = strings.Cut(e.SessionID, "/") // a sub-agent's is the run's + "/" + its id
		c.started = e.Time
	}
	if p := c.pending[e.AgentID]; p != nil {
		if d, ok := e.Data.(event.UsageUpdateData); ok && e.Type == event.UsageUpdate {
			p["message"].(map[string]any)["usage"] = claudeUsage(d.Usage)
		}
		delete(c.pending, e.AgentID)
		c.write(p)
	}
	switch d := e.Data.(type) {
	case event.SessionStartData:
		c.model[e.AgentID] = d.Model
		if e.AgentID == event.LeadID && !c.inited {
			c.inited = true
			c.write(c.line(e, "system", map[string]any{"subtype": "init", "cwd": c.init.Cwd, "tools": nonNil(d.Tools),
				"mcp_servers": claudeServers(c.init.MCPServers), "model": d.Model, "permissionMode": claudeMode(c.init.PermissionMode),
				"apiKeySource": "none", "original_cwd": c.init.Cwd}))
		}
	case event.MessageCompleteData:
		if strings.TrimSpace(d.Text) == "" {
			break
		}
		c.msgs[e.AgentID]++
		c.pending[e.AgentID] = c.assistant(e, []any{map[string]any{"type": "text", "text": d.Text}})
	case event.ToolStartData:
		input := d.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		c.write(c.assistant(e, []any{map[string]any{"type": "tool_use", "id": e.ToolCallID, "name": d.Name, "input": input}}))
	case event.ToolCompleteData:
		result := map[string]any{"tool_use_id": e.ToolCallID, "type": "tool_result", "content": d.Result}
		if !d.Success {
			result["content"], result["is_error"] = firstNonEmpty(d.Error, d.Result), true
		}
		c.write(c.message(e, "user", []any{result}))
	case event.SubagentStartData:
		c.spawnedBy[e.AgentID], c.kinds[e.AgentID], c.descs[e.AgentID] = e.ToolCallID, d.AgentType, d.Description
		c.began[e.AgentID] = e.Time
		c.write(c.line(e, "system", map[string]any{"subtype": "task_started", "task_id": e.AgentID, "tool_use_id": e.ToolCallID,
			"description": d.Description, "subagent_type": d.AgentType, "is_backgrounded": d.Background,
			"task_type": "local_agent", "prompt": d.Prompt}))
		c.write(c.message(e, "user", []any{map[string]any{"type": "text", "text": d.Prompt}}))
	case event.SubagentCompleteData:
		status := "completed"
		switch {
		case d.Cancelled:
			status = "stopped"
		case !d.Success:
			status = "failed"
		}
		c.write(c.line(e, "system", map[string]any{"subtype": "task_notification", "task_id": e.AgentID,
			"tool_use_id": c.spawnedBy[e.AgentID], "status": status, "summary": firstNonEmpty(d.Result, d.Error),
			"usage": map[string]any{"total_tokens": d.Usage.Total(), "tool_uses": d.ToolUses,
				"duration_ms": e.Time.Sub(c.began[e.AgentID]).Milliseconds()}}))
	case event.CompleteData:
		if e.AgentID != event.LeadID && e.AgentID != "" {
			break
		}
		c.flushPending()
		subtype := "success"
		if d.IsError {
			subtype = "error_during_execution"
			if strings.Contains(d.Error, "max turns") {
				subtype = "error_max_turns"
			}
		}
		res := map[string]any{"subtype": subtype, "is_error": d.IsError, "duration_ms": e.Time.Sub(c.started).Milliseconds(),
			"num_turns": d.NumTurns, "result": d.Result, "stop_reason": "end_turn", "total_cost_usd": d.Usage.CostUSD,
			"usage": claudeUsage(d.Usage), "permission_denials": []any{}}
		if d.IsError {
			res["errors"], res["stop_reason"] = []string{d.Error}, nil
		}
		c.write(c.line(e, "result", res))
	}
	return c.err
}

// Flush writes the held message and what is buffered.
func (c *claudeEncoder) Flush() error {
	c.flushPending()
	if c.err == nil {
		c.err = c.w.Flush()
	}
	return c.err
}

func (c *claudeEncoder) flushPending() {
	for id, p := range c.pending {
		delete(c.pending, id)
		c.write(p)
	}
}

func (c *claudeEncoder) write(v map[string]any) {
	if c.err == nil {
		c.err = c.enc.Encode(v)
	}
}

// line is one line of type kind with fields, its session and uuid.
func (c *claudeEncoder) line(_ event.Event, kind string, fields map[string]any) map[string]any {
	fields["type"], fields["session_id"], fields["uuid"] = kind, c.session, newUUID()
	return fields
}

// message is an assistant or user message of e's agent: a sub-agent's
// names the task call that started it, its id and type.
func (c *claudeEncoder) message(e event.Event, role string, content []any) map[string]any {
	m := c.line(e, role, map[string]any{"message": map[string]any{"role": role, "content": content},
		"parent_tool_use_id": nil, "timestamp": e.Time.UTC().Format("2006-01-02T15:04:05.000Z")})
	if call, ok := c.spawnedBy[e.AgentID]; ok {
		m["parent_tool_use_id"], m["agent_id"] = call, e.AgentID
		m["subagent_type"], m["task_description"] = c.kinds[e.AgentID], c.descs[e.AgentID]
	}
	return m
}

// assistant is an assistant message of e's agent, with the id of its
// current model message.
func (c *claudeEncoder) assistant(e event.Event, content []any) map[string]any {
	m := c.message(e, "assistant", content)
	msg := m["message"].(map[string]any)
	msg["id"] = fmt.Sprintf("msg_%s_%d", e.AgentID, c.msgs[e.AgentID])
	msg["type"], msg["model"], msg["stop_reason"], msg["stop_sequence"] = "message", c.model[e.AgentID], nil, nil
	msg["usage"] = claudeUsage(event.Usage{})
	return m
}

func claudeUsage(u event.Usage) map[string]any {
	return map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens,
		"cache_read_input_tokens": u.CacheReadTokens, "cache_creation_input_tokens": u.CacheCreationTokens}
}

// claudeServers are MCP servers as Claude Code lists them.
func claudeServers(names []string) []any {
	out := []any{}
	for _, n := range names {
		out = append(out, map[string]any{"name": n, "status": "pending"})
	}
	return out
}

// claudeMode is the permission mode as Claude Code names it ("" is its
// default).
func claudeMode(m string) string {
	if m == "" {
		return "default"
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// newUUID is a random (version 4) UUID, as Claude Code gives each line.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
