package headless

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// claudeOnly are the fields of Claude Code's lines that Atomic does not
// write (a path and everything under it): what only Claude Code knows of
// itself (its version, slash commands, plugins, fast mode, its own
// timings and stats) and the ids of its task runs and output files.
var claudeOnly = []string{
	"slash_commands", "terminal_slash_commands", "claude_code_version", "output_style", "agents", "skills", "plugins",
	"capabilities", "analytics_disabled", "product_feedback_disabled", "served_by_anthropic", "additional_directories",
	"fast_mode_state", "fast_mode_disabled_reason", "per_turn_effort_active", "ultrathink_available", "ultrathink_typed_raises",
	"view_mode", "memory_paths", "messaging_socket_path", "event",
	"run_id", "spawn_depth", "output_file",
	"message.context_management", "tool_use_result", "tool_result_meta",
	"api_error_status", "duration_api_ms", "first_content_frame_ms", "modelUsage", "model_usage_since_last_result",
	"queued_turn_count", "result_index", "safety_stops", "subagent_stats", "terminal_reason", "time_to_request_ms",
	"ttft_ms", "ttft_stream_ms", "usage.output_tokens_details", "usage.server_tool_use", "usage.service_tier",
	"usage.cache_creation", "usage.inference_geo", "usage.iterations", "usage.speed", "usage.fallback_credit",
}

// free are objects whose fields are the tool's own, not the format's.
var free = []string{"message.content[].input"}

// lineKey names the kind of a stream-json line: its type and subtype,
// for a message whether a sub-agent's and its content block's type.
func lineKey(o map[string]any) string {
	k := o["type"].(string)
	if st, ok := o["subtype"].(string); ok {
		if k == "result" {
			st = "*" // success and error results have one shape
		}
		return k + "/" + st
	}
	if msg, ok := o["message"].(map[string]any); ok {
		who := "lead"
		if o["parent_tool_use_id"] != nil {
			who = "sub"
		}
		block := "text"
		if content, ok := msg["content"].([]any); ok && len(content) > 0 {
			block = content[0].(map[string]any)["type"].(string)
		}
		return k + "/" + who + "/" + block
	}
	return k
}

// shape flattens v into its paths and their JSON kinds.
func shape(v any, path string, out map[string]string) {
	kind := "null"
	switch x := v.(type) {
	case string:
		kind = "string"
	case float64:
		kind = "number"
	case bool:
		kind = "bool"
	case []any:
		kind = "array"
		if !slices.Contains(free, path) {
			for _, e := range x {
				shape(e, path+"[]", out)
			}
		}
	case map[string]any:
		kind = "object"
		if !slices.Contains(free, path) {
			for k, e := range x {
				p := k
				if path != "" {
					p = path + "." + k
				}
				shape(e, p, out)
			}
		}
	}
	if path != "" {
		out[path] = kind
	}
}

func omitted(path string) bool {
	for _, p := range claudeOnly {
		if path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") {
			return true
		}
	}
	return false
}

func readLines(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var o map[string]any
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("line %s: %v", sc.Text(), err)
		}
		out = append(out, o)
	}
	return out
}

// captured is, per line kind of Claude Code's captures, the kinds each
// path takes and the paths every line of that kind has.
type captured struct {
	kinds    map[string]map[string]bool
	required map[string]bool
}

func loadCaptures(t *testing.T, files ...string) map[string]*captured {
	t.Helper()
	out := map[string]*captured{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range readLines(t, data) {
			if o["type"] == "control_response" || o["subtype"] == "ui_invalidate" {
				continue // the control protocol, not the stream
			}
			k := lineKey(o)
			paths := map[string]string{}
			shape(o, "", paths)
			c := out[k]
			if c == nil {
				c = &captured{kinds: map[string]map[string]bool{}, required: map[string]bool{}}
				for p := range paths {
					c.required[p] = true
				}
				out[k] = c
			}
			for p := range c.required {
				if _, ok := paths[p]; !ok {
					delete(c.required, p)
				}
			}
			for p, kind := range paths {
				if c.kinds[p] == nil {
					c.kinds[p] = map[string]bool{}
				}
				c.kinds[p][kind] = true
			}
		}
	}
	return out
}

// subOnly are the fields a sub-agent's messages add to the lead's, and
// its parent call (null on the lead's).
var subOnly = []string{"agent_id", "subagent_type", "task_description", "parent_tool_use_id"}

// TestClaudeStreamJSONHasClaudeCodesShapeFieldByField runs a fan-out
// with a tool call in a sub-agent and checks every line against Claude
// Code 2.1.330's captured stream-json (testdata, copies of
// shared/fixtures/external-cli): each field Atomic writes is one the
// capture has for that kind of line, with the same JSON kind, and each
// field every captured line of the kind has is written, but for the
// listed Claude-only ones.
func TestClaudeStreamJSONHasClaudeCodesShapeFieldByField(t *testing.T) {
	rt := newRuntime(t, `
rules:
  - {name: final, match: {tools_include: [task], has_tool_results: true}, respond: {text: "all done"}}
  - name: fan
    match: {tools_include: [task]}
    respond:
      text: "Splitting it up."
      tool_calls:
        - {name: task, input: {description: "Subtask alpha", prompt: "SUBTASK-ALPHA: list the folder"}}
  - {name: sub-answer, match: {first_user_contains: SUBTASK-ALPHA, has_tool_results: true}, respond: {text: "done ALPHA"}}
  - {name: sub-ls, match: {first_user_contains: SUBTASK-ALPHA}, respond: {text: "Listing.", tool_calls: [{name: ls, input: {path: "."}}]}}
`)
	var out, errb bytes.Buffer
	code := Run(context.Background(), rt, Options{Prompt: "go", OutputFormat: FormatClaudeStreamJSON,
		Claude: ClaudeInit{Cwd: "/work/project", PermissionMode: "acceptEdits"}}, Streams{Out: &out, Err: &errb})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	caps := loadCaptures(t, "testdata/claude-tool.jsonl", "testdata/claude-subagents.jsonl")
	lines := readLines(t, out.Bytes())
	seen := map[string]int{}
	for i, o := range lines {
		k := lineKey(o)
		seen[k]++
		c, extra := caps[k], []string(nil)
		if c == nil && strings.Contains(k, "/sub/") { // no captured sub-agent tool call: the lead's, plus the sub-agent's fields
			c, extra = caps[strings.Replace(k, "/sub/", "/lead/", 1)], subOnly
		}
		if c == nil {
			t.Errorf("line %d is of a kind (%s) Claude Code's captures do not have: %v", i, k, o)
			continue
		}
		paths := map[string]string{}
		shape(o, "", paths)
		for p, kind := range paths {
			if slices.Contains(extra, p) {
				continue
			}
			if !c.kinds[p][kind] {
				t.Errorf("%s line %d: %s is %s; Claude Code's is %v", k, i, p, kind, c.kinds[p])
			}
		}
		for p := range c.required {
			if _, ok := paths[p]; !ok && !omitted(p) {
				t.Errorf("%s line %d lacks %s, which every captured line of its kind has", k, i, p)
			}
		}
	}
	for _, k := range []string{"system/init", "assistant/lead/text", "assistant/lead/tool_use", "system/task_started",
		"user/sub/text", "assistant/sub/tool_use", "user/sub/tool_result", "assistant/sub/text", "system/task_notification",
		"user/lead/tool_result", "result/*"} {
		if seen[k] == 0 {
			t.Errorf("no %s line; lines by kind: %v", k, seen)
		}
	}

	// What the lines say, beyond their shape.
	init, result := lines[0], lines[len(lines)-1]
	if lineKey(init) != "system/init" || init["cwd"] != "/work/project" || init["permissionMode"] != "acceptEdits" ||
		!slices.Contains(anyStrings(init["tools"]), "task") {
		t.Errorf("first line %v; want the init with the run's folder, mode and tools", init)
	}
	if result["type"] != "result" || result["result"] != "all done" || result["is_error"] != false || result["subtype"] != "success" ||
		result["session_id"] != rt.SessionID() {
		t.Errorf("last line %v; want the successful result", result)
	}
	var call string
	for _, o := range lines {
		if lineKey(o) == "assistant/lead/tool_use" {
			call = o["message"].(map[string]any)["content"].([]any)[0].(map[string]any)["id"].(string)
		}
	}
	for _, o := range lines {
		k := lineKey(o)
		if strings.Contains(k, "/sub/") && o["parent_tool_use_id"] != call {
			t.Errorf("%s line names parent %v; want the task call %s", k, o["parent_tool_use_id"], call)
		}
		if (k == "system/task_started" || k == "system/task_notification") && o["tool_use_id"] != call {
			t.Errorf("%s names tool_use_id %v; want %s", k, o["tool_use_id"], call)
		}
		if k == "system/task_notification" && (o["status"] != "completed" || o["summary"] != "done ALPHA") {
			t.Errorf("task_notification %v; want completed with the sub-agent's report", o)
		}
		if o["session_id"] != rt.SessionID() {
			t.Errorf("%s line has session %v; want the run's %s", k, o["session_id"], rt.SessionID())
		}
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
