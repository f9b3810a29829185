package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// rawClient speaks ACP line by line, as an editor does, with no limit of
// its own on line length. A goroutine reads the agent's lines, answers
// its file reads with file and queues the rest for await.
type rawClient struct {
	t    *testing.T
	mu   sync.Mutex // one line written at a time
	w    io.Writer
	in   chan rawMessage
	srv  *loopback.Server
	dir  string
	file atomic.Value // func(path string) (string, bool)
}

// rawMessage is any JSON-RPC message.
type rawMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data"`
	} `json:"error,omitempty"`
}

// serveRaw runs the agent on pipes with a limit of max bytes (0: the
// default), each session a native run on the loopback model of scenario
// with file reads through the client.
func serveRaw(t *testing.T, scenario string, max int) *rawClient {
	t.Helper()
	prov, srv := testkit.Model(t, scenario)
	open := func(ctx context.Context, spec Spec) (*Run, error) {
		gate, err := permission.NewGate(permission.Options{Asker: spec.Asker, Root: spec.Cwd})
		if err != nil {
			return nil, err
		}
		rt := runtime.New(runtime.Config{Provider: prov, Gate: gate, Workspace: tools.Workspace{Root: spec.Cwd, Files: spec.Files}})
		return &Run{ID: rt.SessionID(), Runtime: rt, Gate: gate, Close: rt.Close}, nil
	}
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = Serve(context.Background(), Config{Open: open, Version: "test", MaxMessage: max}, toAgent, fromAgent)
		fromAgent.Close()
	}()
	c := &rawClient{t: t, w: fromClient, in: make(chan rawMessage, 1000), srv: srv, dir: t.TempDir()}
	c.file.Store(func(string) (string, bool) { return "", false })
	read := make(chan struct{})
	go func() {
		defer close(read)
		r := bufio.NewReaderSize(toClient, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m rawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				m = rawMessage{Method: "unparseable: " + string(line[:min(len(line), 200)])}
			}
			if m.Method == "fs/read_text_file" {
				var p struct{ Path string }
				_ = json.Unmarshal(m.Params, &p)
				text, ok := c.file.Load().(func(string) (string, bool))(p.Path)
				if !ok {
					c.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32002,"message":"not found"}}`, m.ID))
					continue
				}
				b, _ := json.Marshal(map[string]string{"content": text})
				c.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, b))
				continue
			}
			c.in <- m
		}
	}()
	t.Cleanup(func() {
		fromClient.Close()
		<-served
		<-read
	})
	return c
}

func (c *rawClient) write(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = io.WriteString(c.w, line+"\n")
}

// send writes line; an agent that stopped reading (its connection gone)
// fails the test instead of hanging it (the test's end closes the pipe,
// which ends the write).
func (c *rawClient) send(line string) {
	c.t.Helper()
	done := make(chan error, 1)
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, err := io.WriteString(c.w, line+"\n")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			c.t.Fatalf("writing to the agent: %v", err)
		}
	case <-time.After(60 * time.Second):
		c.t.Fatalf("the agent no longer reads (a message of %d bytes)", len(line))
	}
}

// await returns the answer with id.
func (c *rawClient) await(id string) rawMessage {
	c.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m := <-c.in:
			if strings.HasPrefix(m.Method, "unparseable") {
				c.t.Fatalf("the agent wrote %s", m.Method)
			}
			if m.Method == "" && string(m.ID) == id {
				return m
			}
		case <-timeout:
			c.t.Fatalf("no answer to %s", id)
		}
	}
}

// session initializes (offering file reads) and opens a session.
func (c *rawClient) session() string {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false}}}}`)
	if m := c.await("1"); m.Error != nil {
		c.t.Fatalf("initialize: %+v", m.Error)
	}
	cwd, _ := json.Marshal(c.dir)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + string(cwd) + `,"mcpServers":[]}}`)
	m := c.await("2")
	var r struct{ SessionID string }
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.SessionID == "" {
		c.t.Fatalf("session/new: %s %+v", m.Result, m.Error)
	}
	return r.SessionID
}

func prompt(id int, session, text string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session/prompt",
		"params": map[string]any{"sessionId": session, "prompt": []map[string]string{{"type": "text", "text": text}}}})
	return string(b)
}

// big is n bytes of text with quotes, backslashes, newlines and a
// control byte in it (all escaped in JSON).
func big(start string, n int) string {
	unit := "line \"quoted\" \\ with\ttab\x01\n"
	return start + strings.Repeat(unit, (n-len(start))/len(unit)+1)
}

func TestA20MiBPromptIsTakenWholeAndTheNextRequestIsStillAnswered(t *testing.T) {
	c := serveRaw(t, `rules:
  - {match: {first_user_contains: SMALL}, respond: {text: "small answered"}}
  - {respond: {text: "big answered"}}`, 0)
	sess := c.session()
	text := big("BIGSTART", 20<<20) + "END"

	c.send(prompt(3, sess, text))
	if m := c.await("3"); m.Error != nil || !strings.Contains(string(m.Result), "end_turn") {
		t.Fatalf("the 20 MiB prompt: %s %+v", m.Result, m.Error)
	}
	c.send(prompt(4, sess, "SMALL"))
	if m := c.await("4"); m.Error != nil {
		t.Fatalf("the prompt after it: %+v", m.Error)
	}
	log := c.srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d model requests, want 2", len(log))
	}
	found := false
	for _, msg := range log[0].Messages {
		found = found || msg.Role == "user" && strings.Contains(msg.Text, text)
	}
	if !found {
		for _, msg := range log[0].Messages {
			n := 0
			for n < len(msg.Text) && n < len(text) && msg.Text[n] == text[n] {
				n++
			}
			t.Logf("%s message of %d bytes, same as the prompt's %d for %d: %q", msg.Role, len(msg.Text), len(text), n, msg.Text[n:min(n+40, len(msg.Text))])
		}
		t.Errorf("the model did not get the 20 MiB prompt byte for byte")
	}
}

func TestAFileReadOver10MiBThroughTheEditorReachesTheReadTool(t *testing.T) {
	c := serveRaw(t, `rules:
  - {match: {has_tool_results: true}, respond: {text: "read it"}}
  - {respond: {tool_calls: [{name: read, input: {file_path: big.txt, offset: 1, limit: 3}}]}}`, 0)
	content := "FIRST LINE OF THE BIG FILE\n" + big("", 24<<20)
	c.file.Store(func(path string) (string, bool) { return content, filepath.Base(path) == "big.txt" })
	if err := os.WriteFile(filepath.Join(c.dir, "big.txt"), []byte("on disk, not in the editor\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sess := c.session()
	c.send(prompt(3, sess, "read big.txt"))
	if m := c.await("3"); m.Error != nil {
		t.Fatalf("prompt: %+v", m.Error)
	}
	log := c.srv.Log()
	if len(log) != 2 {
		t.Fatalf("%d model requests, want 2", len(log))
	}
	res := log[1].LastToolResults()
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, "FIRST LINE OF THE BIG FILE") {
		t.Fatalf("the read tool's result: %+v", res)
	}
}

func TestAMessageOverTheLimitIsAnsweredWithAnErrorAndTheConnectionStaysUp(t *testing.T) {
	const limit = 12 << 20
	c := serveRaw(t, `rules:
  - {match: {has_tool_results: true}, respond: {text: "tool answered"}}
  - {match: {first_user_contains: READ}, respond: {tool_calls: [{name: read, input: {file_path: huge.txt, offset: 1, limit: 3}}]}}
  - {respond: {text: "answered"}}`, limit)
	sess := c.session()
	pad := strings.Repeat("y", 13<<20)

	tests := []struct {
		name, line, id, want string
	}{
		{"a prompt over the limit", prompt(3, sess, big("X", 13<<20)), "3", "over atomic acp's limit of 12582912 bytes"},
		{"a string id", `{"jsonrpc":"2.0","id":"req-9","method":"session/prompt","params":{"sessionId":"` + sess + `","prompt":[{"type":"text","text":"` + pad + `"}]}}`, `"req-9"`, "over atomic acp's limit"},
		{"a method other than a prompt over the SDK's line", `{"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"` + sess + `","modeId":"` + pad[:11<<20] + `"}}`, "5", "over the SDK's line limit"},
		{"an id after a huge params", `{"jsonrpc":"2.0","method":"session/prompt","params":{"x":"` + pad + `"},"id":6}`, "null", "over atomic acp's limit"},
		{"not JSON at all", pad, "null", "over atomic acp's limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.send(tt.line)
			m := c.await(tt.id)
			if m.Error == nil || m.Error.Code != -32600 || !strings.Contains(fmt.Sprint(m.Error.Data), tt.want) {
				t.Fatalf("answer %s %+v, want error -32600 saying %q", m.Result, m.Error, tt.want)
			}
		})
	}

	// An oversize notification gets no answer; the next request does.
	c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sess + `","x":"` + pad + `"}}`)
	c.file.Store(func(string) (string, bool) { return strings.Repeat("z", 13<<20), true })
	if err := os.WriteFile(filepath.Join(c.dir, "huge.txt"), []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.send(prompt(10, sess, "READ huge.txt"))
	if m := c.await("10"); m.Error != nil {
		t.Fatalf("a prompt after the oversize messages: %+v", m.Error)
	}
	log := c.srv.Log()
	res := log[len(log)-1].LastToolResults()
	// The answer over the limit fails the client read (rather than leave
	// it waiting for ever), and the tool reads the disk as it does on any
	// failed client read.
	if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, "on disk") {
		t.Fatalf("a file read over the limit: the tool's result %+v, want the disk's text", res)
	}
}

func TestAStringTokenAClientSendsItselfIsNotExpanded(t *testing.T) {
	l := newLargeStrings(1 << 20)
	line := []byte(`{"a":"` + strings.Repeat("q", largeString+1) + `"}`)
	small, taken, err := l.shrink(line)
	if err != nil || !l.hold(taken) {
		t.Fatal(err)
	}
	forged := struct{ A, B string }{A: tokenPrefix + "0000:0", B: string(small[6 : len(small)-2])}
	if err := expand(l, &forged); err != nil {
		t.Fatal(err)
	}
	if forged.A != tokenPrefix+"0000:0" || len(forged.B) != largeString+1 {
		t.Errorf("expanded to %d and %d bytes", len(forged.A), len(forged.B))
	}
	if err := expand(l, &forged); err != nil || len(l.held) != 0 {
		t.Errorf("held strings after expansion: %d (%v)", len(l.held), err)
	}
}
