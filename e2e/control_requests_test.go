//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// controlClient drives `atomic run --input-format stream-json` as the
// Claude Agent SDK drives Claude Code: JSON lines in, JSON lines out.
type controlClient struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
	// skipped are lines read by an await they did not match, kept for
	// the next: a turn's result may come before the control_response of
	// the interrupt that ended it.
	skipped []string
}

func (c *controlClient) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("writing stdin: %v", err)
	}
}

// await is the first output line holding every one of want, within d.
func (c *controlClient) await(d time.Duration, want ...string) string {
	c.t.Helper()
	match := func(l string) bool {
		for _, w := range want {
			if !strings.Contains(l, w) {
				return false
			}
		}
		return true
	}
	for i, l := range c.skipped {
		if match(l) {
			c.skipped = slices.Delete(c.skipped, i, i+1)
			return l
		}
	}
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("stdout ended before a line with %q", want)
			}
			if match(l) {
				return l
			}
			c.skipped = append(c.skipped, l)
		case <-deadline:
			c.t.Fatalf("no line with %q within %s", want, d)
		}
	}
}

// request sends a control_request and returns its control_response's
// "response" object.
func (c *controlClient) request(id string, req map[string]any) map[string]any {
	c.t.Helper()
	c.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
	line := c.await(10*time.Second, `"control_response"`, `"request_id":"`+id+`"`)
	var resp struct {
		Response map[string]any `json:"response"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		c.t.Fatalf("control_response %q: %v", line, err)
	}
	return resp.Response
}

func userLine(text string) map[string]any {
	return map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}}
}

// TestStreamJSONInputAnswersClaudeCodesControlRequests: initialize,
// set_model, set_permission_mode and interrupt are answered with a
// control_response of their request_id and take effect; an unknown subtype
// and an escalation to bypassPermissions are answered with errors.
func TestStreamJSONInputAnswersClaudeCodesControlRequests(t *testing.T) {
	srv := server(t, `
rules:
  - name: slow
    match: {last_user_contains: "SLOW"}
    respond: {text: "too late", delay_ms: 15000}
  - name: b
    match: {model: model-b}
    respond: {text: "ANSWER FROM B"}
  - name: a
    respond: {text: "ANSWER FROM A"}
`)
	ws := workspace(t, map[string]string{".claude/commands/fix.md": "---\ndescription: Fix it\n---\nFix $ARGUMENTS"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", ws, "--input-format", "stream-json", "--output-format", "claude-stream-json")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &controlClient{t: t, in: in, lines: make(chan string, 1024)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()

	init := c.request("req_init", map[string]any{"subtype": "initialize"})
	body, _ := init["response"].(map[string]any)
	if init["subtype"] != "success" || body["current_permission_mode"] != "default" || !strings.Contains(jsonOf(body["commands"]), `"name":"fix"`) {
		t.Fatalf("initialize answered %v: want success, the mode and the custom commands", init)
	}
	if r := c.request("req_model", map[string]any{"subtype": "set_model", "model": "model-b"}); r["subtype"] != "success" {
		t.Fatalf("set_model answered %v", r)
	}
	c.send(userLine("hello"))
	c.await(20*time.Second, `"type":"result"`, "ANSWER FROM B")

	if r := c.request("req_plan", map[string]any{"subtype": "set_permission_mode", "mode": "plan"}); r["subtype"] != "success" {
		t.Fatalf("set_permission_mode plan answered %v", r)
	}
	if r := c.request("req_bypass", map[string]any{"subtype": "set_permission_mode", "mode": "bypassPermissions"}); r["subtype"] != "error" ||
		!strings.Contains(jsonOf(r["error"]), "--dangerously-skip-permissions") {
		t.Fatalf("an escalation to bypassPermissions answered %v: want an error", r)
	}
	if r := c.request("req_odd", map[string]any{"subtype": "mcp_status"}); r["subtype"] != "error" || !strings.Contains(jsonOf(r["error"]), `mcp_status`) {
		t.Fatalf("an unknown subtype answered %v: want an error naming it", r)
	}

	c.send(userLine("SLOW one"))
	deadline := time.Now().Add(10 * time.Second)
	for !slowAsked(srv.Log()) {
		if time.Now().After(deadline) {
			t.Fatal("the slow turn's request never reached the model")
		}
		time.Sleep(20 * time.Millisecond)
	}
	sent := time.Now()
	if r := c.request("req_int", map[string]any{"subtype": "interrupt"}); r["subtype"] != "success" {
		t.Fatalf("interrupt answered %v", r)
	}
	c.await(10*time.Second, `"type":"result"`, `"is_error":true`)
	if d := time.Since(sent); d > 8*time.Second {
		t.Fatalf("the interrupted turn ended %s after the interrupt: it ran on", d)
	}
	c.send(userLine("after"))
	c.await(20*time.Second, `"type":"result"`, "ANSWER FROM B")
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("atomic: %v\n%s", err, stderr.String())
	}
}

func slowAsked(log []loopback.LogEntry) bool {
	for _, e := range log {
		if e.Rule == "slow" {
			return true
		}
	}
	return false
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
