package store

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/atomic-agent/atomic/internal/testkit"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/provider"
)

// scanForKeys fails t for each column of each row of each table of the
// database at path, and each byte of its files (the WAL included), that
// holds one of keys.
func scanForKeys(t *testing.T, path string, keys ...string) {
	t.Helper()
	cells := 0
	seen := testkit.EachCell(t, path, func(table, column string, v []byte) {
		cells++
		for _, k := range keys {
			if bytes.Contains(v, []byte(k)) {
				t.Errorf("%s.%s holds the key %q: %.200s", table, column, k, v)
			}
		}
	})
	if len(seen) < 4 {
		t.Fatalf("tables %v; want sessions, events, prompts and histories at least", seen)
	}
	if cells == 0 {
		t.Fatal("the database is empty: nothing was scanned")
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, k := range keys {
			if bytes.Contains(b, []byte(k)) {
				t.Errorf("the file %s holds the key %q", filepath.Base(f), k)
			}
		}
	}
}

func TestNoKeyReachesAnyColumnOfTheStoreKnownOrKeyShaped(t *testing.T) {
	const known = "cfg-secret-0f9e8d7c6b5a"                   // a config api_key: no key shape, known
	const typed = "sk-proj-Zx81Qw72Er63Ty54Ui45Op36As27Df18"  // typed in a prompt: not in the environment
	const github = "ghp_Zx81Qw72Er63Ty54Ui45Op36As27Df18Gh09" // printed by a tool
	path := dbPath(t)
	m := meta("s1")
	m.Secrets = []string{known}
	r := Record(path, Options{}, m, nil)
	r.Prompt(typed + " is my key, and " + known + " the other")
	input, _ := json.Marshal(map[string]string{"command": "echo " + typed + "\n" + known})
	r.Emit(event.Event{Type: event.ToolStart, SessionID: "s1", AgentID: "lead", ToolCallID: "c1",
		Data: event.ToolStartData{Name: "bash", Input: input}})
	r.Emit(event.Event{Type: event.ToolComplete, SessionID: "s1", AgentID: "lead", ToolCallID: "c1",
		Data: event.ToolCompleteData{Name: "bash", Success: true, Result: typed + "\n" + known + "\nGITHUB_TOKEN=" + github}})
	r.Emit(event.Event{Type: event.Complete, SessionID: "s1", AgentID: "lead",
		Data: event.CompleteData{IsError: true, Error: "401: invalid key " + typed}})
	r.History("lead", []provider.Message{
		{Role: provider.RoleUser, Parts: []provider.Part{{Text: typed + " is my key, and " + known}}},
		{Role: provider.RoleAssistant, Parts: []provider.Part{{ToolCall: &provider.ToolCall{ID: "c1", Name: "bash", Input: input}}}},
		{Role: provider.RoleUser, Parts: []provider.Part{{ToolResult: &provider.ToolResult{ToolCallID: "c1", Content: "GITHUB_TOKEN=" + github + "\n" + known}}}},
	})
	r.Close()
	scanForKeys(t, path, known, typed, github)

	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, _ := st.Session(context.Background(), "s1")
	if s.Title != "[redacted] is my key, and [redacted] the other" {
		t.Fatalf("title %q; want the prompt with both keys masked", s.Title)
	}
	h, ok, err := st.LoadHistory(context.Background(), "s1", "lead")
	if err != nil || !ok || len(h) != 3 {
		t.Fatalf("the redacted history does not load back: %v, %v, %d messages", err, ok, len(h))
	}
	if got := h[2].Parts[0].ToolResult.Content; !strings.Contains(got, "GITHUB_TOKEN=[redacted]") {
		t.Fatalf("history's tool result %q; want the token masked in place", got)
	}
	var in map[string]string
	if err := json.Unmarshal(h[1].Parts[0].ToolCall.Input, &in); err != nil || in["command"] != "echo [redacted]\n[redacted]" {
		t.Fatalf("history's tool input %q (%v); want valid JSON with both keys masked", h[1].Parts[0].ToolCall.Input, err)
	}
}
