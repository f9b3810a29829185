//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
)

func TestPlainAnswerPrintsTextAndExitsZero(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: hello
    match: {last_user_contains: "hello"}
    respond: {text: "Hello from the loopback model!"}
`)
			r := atomic(t, srv, prov, t.TempDir(), "-p", "hello there")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "Hello from the loopback model!" {
				t.Fatalf("code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestJSONResultIsShapedLikeClaudeCodes(t *testing.T) {
	srv := server(t, `
rules:
  - match: {}
    respond: {text: "fine", usage: {input_tokens: 12, output_tokens: 3}}
`)
	r := atomic(t, srv, "anthropic", t.TempDir(), "-p", "hi", "--output-format", "json")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"type", "subtype", "is_error", "result", "duration_ms", "num_turns", "usage", "agents", "session_id"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %q: %s", k, r.stdout)
		}
	}
	if res["type"] != "result" || res["subtype"] != "success" || res["is_error"] != false || res["result"] != "fine" || res["num_turns"] != 1.0 {
		t.Fatalf("unexpected result: %s", r.stdout)
	}
	if u := res["usage"].(map[string]any); u["input_tokens"] != 12.0 || u["output_tokens"] != 3.0 {
		t.Fatalf("usage not carried: %v", u)
	}
}

func TestTwoParallelToolCallsBothResultsGoBack(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: calls
    match: {has_tool_results: false}
    respond:
      text: "Looking."
      tool_calls:
        - {name: ls, input: {path: "."}}
        - {name: read, input: {file_path: "notes.txt"}}
  - name: answer
    match: {has_tool_results: true}
    respond: {text: "Both done."}
`)
			ws := workspace(t, map[string]string{"notes.txt": "alpha beta gamma\n"})
			r := atomic(t, srv, prov, ws, "-p", "look around", "--output-format", "stream-json")
			if r.code != 0 {
				t.Fatalf("code %d: %s", r.code, r.stderr)
			}
			log := srv.Log()
			if len(log) != 2 {
				t.Fatalf("want 2 requests, got %d", len(log))
			}
			results := log[1].LastToolResults()
			if len(results) != 2 {
				t.Fatalf("follow-up carries %d tool results, want 2: %+v", len(results), results)
			}
			calls := assistantCalls(log[1])
			for i, res := range results {
				if res.ToolCallID != calls[i] {
					t.Errorf("result %d answers %q, want %q", i, res.ToolCallID, calls[i])
				}
				if res.IsError {
					t.Errorf("result %d is an error: %s", i, res.Content)
				}
			}
			if !strings.Contains(results[1].Content, "alpha beta gamma") || !strings.Contains(results[0].Content, "notes.txt") {
				t.Fatalf("results do not carry the real tool output: %+v", results)
			}
			evs := events(t, r.stdout)
			if last := evs[len(evs)-1]; last.Type != event.Complete {
				t.Fatalf("stream-json must end with complete, ends with %s", last.Type)
			}
		})
	}
}

// assistantCalls returns the tool call ids of the last assistant message.
func assistantCalls(e loopback.LogEntry) []string {
	var ids []string
	for _, m := range e.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			ids = ids[:0]
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
		}
	}
	return ids
}

func TestOverloadedThenSuccessIsRetried(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: flaky
    sequence:
      - {error: {status: 529, type: overloaded_error, message: "Overloaded"}}
      - {text: "made it"}
`)
			r := atomic(t, srv, prov, t.TempDir(), "-p", "hi")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "made it" {
				t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			if n := len(srv.Log()); n != 2 {
				t.Fatalf("%d requests, want 2 (one retry)", n)
			}
		})
	}
}

func TestBadKeyFailsClearlyWithoutRetry(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, `
api_key: the-right-key
rules:
  - match: {}
    respond: {text: "unreachable"}
`)
			r := atomic(t, srv, prov, t.TempDir(), "-p", "hi")
			if r.code == 0 {
				t.Fatalf("a rejected key must fail the run: %q", r.stdout)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "401") || !strings.Contains(strings.ToLower(lines[0]), "key") {
				t.Fatalf("want one clear line about the key, got %q", r.stderr)
			}
			if n := len(srv.Log()); n != 1 {
				t.Fatalf("401 must not be retried: %d requests", n)
			}
		})
	}
}

func TestStreamCutMidAnswerIsRetriedAndTheAnswerIsWhole(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: cut
    sequence:
      - {text: "this answer will be cut off in the middle of its stream", cut_after_events: 4}
      - {text: "the whole answer"}
`)
			r := atomic(t, srv, prov, t.TempDir(), "-p", "hi", "--output-format", "stream-json")
			if r.code != 0 {
				t.Fatalf("code %d stderr %q", r.code, r.stderr)
			}
			var final string
			discarded := false
			for _, e := range events(t, r.stdout) {
				switch e.Type {
				case event.MessageComplete:
					final = data[event.MessageCompleteData](t, e).Text
				case event.MessageDelta:
					if data[event.MessageDeltaData](t, e).Discard {
						discarded = true
					}
				}
			}
			if final != "the whole answer" || !discarded {
				t.Fatalf("final %q, partial text discarded: %v", final, discarded)
			}
		})
	}
}

func TestMalformedToolInputBecomesAToolErrorTheModelReads(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: bad
    match: {has_tool_results: false}
    respond:
      tool_calls:
        - {name: read, input: {path: 42}}
  - name: recover
    match: {has_tool_results: true, tool_result_contains: "file_path"}
    respond: {text: "I will fix my call."}
`)
			r := atomic(t, srv, prov, t.TempDir(), "-p", "read something")
			if r.code != 0 || !strings.Contains(r.stdout, "I will fix my call.") {
				t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
			}
			res := srv.Log()[1].LastToolResults()
			// OpenAI's tool messages have no error flag: the text says it.
			if len(res) != 1 || !(res[0].IsError || strings.HasPrefix(res[0].Content, "Error:")) {
				t.Fatalf("want one error result, got %+v", res)
			}
		})
	}
}

func TestSIGINTDuringLongBashKillsItsProcessGroup(t *testing.T) {
	for _, prov := range providers {
		t.Run(prov, func(t *testing.T) {
			srv := server(t, `
rules:
  - name: slow
    match: {has_tool_results: false}
    respond:
      tool_calls:
        - {name: bash, input: {command: "echo $$ > pgid.txt; sleep 300 & sleep 301; echo never"}}
  - name: after
    match: {has_tool_results: true}
    respond: {text: "interrupted"}
`)
			ws := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := command(t, ctx, srv, prov, ws, "-p", "run it", "--permission-mode", "bypassPermissions")
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pgid := waitForPGID(t, filepath.Join(ws, "pgid.txt"))
			if err := syscall.Kill(pgid, 0); err != nil {
				t.Fatalf("bash group %d should be running: %v", pgid, err)
			}
			start := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			err := cmd.Wait()
			if time.Since(start) > 10*time.Second {
				t.Fatalf("atomic took %s to stop after SIGINT", time.Since(start))
			}
			if err == nil {
				t.Fatalf("an interrupted run must exit non-zero; stdout %q", out.String())
			}
			if !strings.Contains(errb.String(), "interrupted") {
				t.Fatalf("stderr should say interrupted: %q", errb.String())
			}
			deadline := time.Now().Add(3 * time.Second)
			for syscall.Kill(-pgid, 0) == nil {
				if time.Now().After(deadline) {
					t.Fatalf("process group %d still alive after the run ended: orphans left", pgid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func waitForPGID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(path)
		if err == nil && len(strings.TrimSpace(string(b))) > 0 {
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return n
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("bash never started")
	return 0
}
