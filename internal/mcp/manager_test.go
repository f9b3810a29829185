package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/tools"
)

// start runs servers until the test ends and returns the manager and the
// set its tools join.
func start(t *testing.T, servers ...mcp.Server) (*mcp.Manager, *tools.Set, *mcptest.Warnings) {
	t.Helper()
	w := &mcptest.Warnings{}
	m := mcp.Start(context.Background(), servers, mcp.Options{Warn: w.Add, HandshakeTimeout: 20 * time.Second})
	t.Cleanup(m.Close)
	set := tools.NewSet()
	m.AddTo(set)
	return m, set, w
}

func run(t *testing.T, set *tools.Set, name string, input string) tools.Result {
	t.Helper()
	tool, ok := set.Get(name)
	if !ok {
		t.Fatalf("no tool %s; have %v", name, set.Names())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tool.Run(ctx, tools.Call{ID: "c1", Input: json.RawMessage(input)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestServersOverEveryTransportOfferTheirToolsUnderMcpNames(t *testing.T) {
	tests := []mcp.Server{
		mcptest.Stdio(t, "local"),
		{Name: "remote", Type: mcp.HTTP, URL: mcptest.HTTP(t)},
		{Name: "legacy", Type: mcp.SSE, URL: mcptest.SSE(t)},
	}
	for _, srv := range tests {
		t.Run(srv.Type, func(t *testing.T) {
			m, set, w := start(t, srv)
			if slow := m.Ready(context.Background(), 20*time.Second); len(slow) > 0 {
				t.Fatalf("not ready: %v; warnings %v; status %+v", slow, w.All(), m.Statuses())
			}
			res := run(t, set, "mcp__"+srv.Name+"__echo", `{"text":"hi"}`)
			if res.Content != "echo: hi" || res.IsError {
				t.Errorf("echo = %+v", res)
			}
			st := m.Statuses()
			if len(st) != 1 || st[0].State != mcp.Ready || st[0].Tools != 10 || st[0].Transport != srv.Type {
				t.Errorf("status = %+v, want ready with 10 tools over %s", st, srv.Type)
			}
			if len(w.All()) > 0 {
				t.Errorf("warnings: %v", w.All())
			}
		})
	}
}

func TestToolKindFollowsTheReadOnlyHint(t *testing.T) {
	m, set, _ := start(t, mcptest.Stdio(t, "s"))
	m.Ready(context.Background(), 20*time.Second)
	for name, want := range map[string]tools.Kind{"mcp__s__echo": tools.ReadOnly, "mcp__s__add": tools.Exec} {
		tool, ok := set.Get(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		if tool.Kind() != want {
			t.Errorf("%s kind = %v, want %v", name, tool.Kind(), want)
		}
	}
	add, _ := set.Get("mcp__s__add")
	if s := add.(tools.Subjecter).Subject(json.RawMessage(`{"a":1,"b":2}`)); s != `{"a":1,"b":2}` {
		t.Errorf("subject = %q", s)
	}
}

func TestResultsPassImagesResourcesAndErrorsOn(t *testing.T) {
	m, set, _ := start(t, mcptest.Stdio(t, "s"))
	m.Ready(context.Background(), 20*time.Second)

	pic := run(t, set, "mcp__s__picture", `{}`)
	if len(pic.Images) != 1 || pic.Images[0].MediaType != "image/png" || !bytes.Equal(pic.Images[0].Data, mcptest.TinyPNG) {
		t.Errorf("picture images = %+v", pic.Images)
	}
	if !strings.Contains(pic.Content, "here it is") {
		t.Errorf("picture text = %q", pic.Content)
	}

	doc := run(t, set, "mcp__s__document", `{}`)
	for _, want := range []string{"[resource file:///notes.txt]\nthe notes", "[resource file:///shot.png, image/png, 17 bytes]",
		"[resource file:///big.bin, application/octet-stream, 2048 bytes]"} {
		if !strings.Contains(doc.Content, want) {
			t.Errorf("document content lacks %q:\n%s", want, doc.Content)
		}
	}
	if len(doc.Images) != 1 {
		t.Errorf("document images = %d, want the image blob", len(doc.Images))
	}

	fail := run(t, set, "mcp__s__fail", `{}`)
	if !fail.IsError || fail.Content != "it failed on purpose" {
		t.Errorf("fail = %+v", fail)
	}
}

func TestAServerThatNeverAnswersIsReportedWithinTheBudgetAndTheOthersWork(t *testing.T) {
	m, set, w := start(t, mcp.Server{Name: "mute", Type: mcp.Stdio, Command: "sleep", Args: []string{"1000"}}, mcptest.Stdio(t, "ok"))
	begin := time.Now()
	slow := m.Ready(context.Background(), 2*time.Second)
	if took := time.Since(begin); took > 3*time.Second {
		t.Errorf("Ready took %v with a 2s budget", took)
	}
	if !slices.Equal(slow, []string{"mute"}) {
		t.Fatalf("slow = %v, want [mute]", slow)
	}
	if ws := w.All(); len(ws) != 1 || !strings.Contains(ws[0], "mcp server mute: not ready after 2s") {
		t.Errorf("warnings = %q, want one about mute", ws)
	}
	m.Ready(context.Background(), 2*time.Second)
	if len(w.All()) != 1 {
		t.Errorf("a second Ready warned again: %q", w.All())
	}
	if res := run(t, set, "mcp__ok__echo", `{"text":"x"}`); res.Content != "echo: x" {
		t.Errorf("echo = %+v", res)
	}
}

func TestAServerThatCannotStartFailsWithOneWarningNamingIt(t *testing.T) {
	m, _, w := start(t, mcp.Server{Name: "gone", Type: mcp.Stdio, Command: "/nonexistent/server"})
	m.Ready(context.Background(), 10*time.Second)
	st := m.Statuses()
	if st[0].State != mcp.Failed || !strings.Contains(st[0].Err, "/nonexistent/server") {
		t.Errorf("status = %+v, want failed naming the command", st[0])
	}
	if ws := w.All(); len(ws) != 1 || !strings.HasPrefix(ws[0], "mcp server gone: ") {
		t.Errorf("warnings = %q", ws)
	}
}

func TestAServerPastItsHandshakeTimeoutFailsAndItsProcessEnds(t *testing.T) {
	w := &mcptest.Warnings{}
	m := mcp.Start(context.Background(), []mcp.Server{{Name: "mute", Type: mcp.Stdio, Command: "sleep", Args: []string{"1000"}}},
		mcp.Options{Warn: w.Add, HandshakeTimeout: 300 * time.Millisecond})
	defer m.Close()
	m.Ready(context.Background(), 10*time.Second)
	if st := m.Statuses(); st[0].State != mcp.Failed {
		t.Fatalf("status = %+v, want failed", st)
	}
	if kids := mcptest.Children(t); len(kids) > 0 {
		t.Errorf("child processes left after the failed handshake: %v", kids)
	}
}

func TestALateServerJoinsTheSetsWhenItComesUp(t *testing.T) {
	m, set, _ := start(t, mcptest.Stdio(t, "late"))
	// A budget of zero: the first request does not wait.
	m.Ready(context.Background(), 0)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, ok := set.Get("mcp__late__echo"); ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("tools never joined; status %+v", m.Statuses())
}

func TestCloseEndsEveryServerProcess(t *testing.T) {
	marker := "ATOMIC_MCP_TEST_CLOSE=" + strconv.Itoa(os.Getpid())
	m, set, _ := start(t, mcptest.Stdio(t, "a"), mcptest.Stdio(t, "b"),
		// The background sleep is a grandchild: only the group kill ends it.
		mcp.Server{Name: "mute", Type: mcp.Stdio, Command: "sh", Args: []string{"-c", "sleep 1000 & sleep 1000"},
			Env: map[string]string{"ATOMIC_MCP_TEST_CLOSE": strconv.Itoa(os.Getpid())}})
	m.Ready(context.Background(), time.Second)
	var pids []int
	for _, n := range []string{"a", "b"} {
		pid, err := strconv.Atoi(run(t, set, "mcp__"+n+"__pid", `{}`).Content)
		if err != nil || !mcptest.Alive(pid) {
			t.Fatalf("server %s pid %d not alive (%v)", n, pid, err)
		}
		pids = append(pids, pid)
	}
	if len(mcptest.Children(t)) != 3 {
		t.Fatalf("children = %v, want 3 servers", mcptest.Children(t))
	}
	m.Close()
	for _, pid := range pids {
		if mcptest.Alive(pid) {
			t.Errorf("server pid %d still alive after Close", pid)
		}
	}
	if kids := mcptest.Children(t); len(kids) > 0 {
		t.Errorf("children left after Close: %v", kids)
	}
	// The group was sent SIGKILL; a loaded machine may take a moment to
	// schedule the grandchildren's exit (they would live 1000 s).
	left := mcptest.Marked(marker)
	for deadline := time.Now().Add(5 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = mcptest.Marked(marker) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("the mute server's processes left 5 s after Close: %v", left)
		for _, pid := range left {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
	for _, st := range m.Statuses() {
		if st.State != mcp.Closed {
			t.Errorf("%s state %s after Close, want closed", st.Name, st.State)
		}
	}
}

func TestToolsAServerAddsLaterJoinTheSets(t *testing.T) {
	for _, srv := range []mcp.Server{mcptest.Stdio(t, "s"), {Name: "s", Type: mcp.HTTP, URL: mcptest.HTTP(t)}} {
		t.Run(srv.Type, func(t *testing.T) {
			m, set, _ := start(t, srv)
			m.Ready(context.Background(), 20*time.Second)
			if res := run(t, set, "mcp__s__grow", `{"name":"sprout"}`); res.Content != "added sprout" {
				t.Fatalf("grow = %+v", res)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				if _, ok := set.Get("mcp__s__sprout"); ok {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("mcp__s__sprout never joined; tools %v", set.Names())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if res := run(t, set, "mcp__s__sprout", `{}`); res.Content != "I am sprout" {
				t.Errorf("sprout = %+v", res)
			}
			if st := m.Statuses(); st[0].Tools != 11 {
				t.Errorf("tool count %d, want 11", st[0].Tools)
			}
		})
	}
}

func TestHTTPServersGetTheConfiguredHeaders(t *testing.T) {
	srv := mcptest.NewServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close) // after the manager's Close: its streams end first
	m, set, w := start(t,
		mcp.Server{Name: "with", Type: mcp.HTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		mcp.Server{Name: "without", Type: mcp.HTTP, URL: ts.URL})
	m.Ready(context.Background(), 20*time.Second)
	if res := run(t, set, "mcp__with__echo", `{"text":"in"}`); res.Content != "echo: in" {
		t.Errorf("echo = %+v", res)
	}
	st := m.Statuses()
	if st[1].State != mcp.Failed || len(w.All()) != 1 || !strings.Contains(w.All()[0], "mcp server without:") {
		t.Errorf("the server without the header: %+v, warnings %q", st[1], w.All())
	}
}

func TestAServerThatExitsWhileStartingIsReportedWithItsExitStatusAndLastStderrLines(t *testing.T) {
	m, _, w := start(t, mcptest.FailingStdio(t, "db", 3))
	m.Ready(context.Background(), 10*time.Second)
	st := m.Statuses()
	if st[0].State != mcp.Failed {
		t.Fatalf("status = %+v, want failed", st[0])
	}
	for _, want := range []string{"mcp server db: exited during start with status 3", "mcptest: fatal: cannot open the database", "start-up line 8", "start-up line 5"} {
		if !strings.Contains(st[0].Err, want) {
			t.Errorf("error %q does not say %q", st[0].Err, want)
		}
	}
	for _, not := range []string{"EOF", "client is closing", "start-up line 4"} {
		if strings.Contains(st[0].Err, not) {
			t.Errorf("error %q says %q", st[0].Err, not)
		}
	}
	if ws := w.All(); len(ws) != 1 || ws[0] != st[0].Err {
		t.Errorf("warnings = %q, want the error once", ws)
	}
}

func TestAwaitingAToolWaitsOnlyForAServerStillStartingAndOnlyUntilItsStartEnds(t *testing.T) {
	m, set, _ := start(t, mcptest.SlowStdio(t, "slow", 700*time.Millisecond), mcptest.FailingStdio(t, "broken", 1))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	begin := time.Now()
	if _, ok := set.Await(ctx, "read_everything"); ok || time.Since(begin) > 100*time.Millisecond {
		t.Errorf("a name no server offers: found %v after %v, want none at once", ok, time.Since(begin))
	}
	tool, ok := set.Await(ctx, "mcp__slow__echo")
	if !ok {
		t.Fatalf("the slow server's echo was not waited for; status %+v", m.Statuses())
	}
	if res, err := tool.Run(ctx, tools.Call{ID: "c1", Input: json.RawMessage(`{"text":"late"}`)}); err != nil || res.Content != "echo: late" {
		t.Errorf("echo = %+v, %v", res, err)
	}
	if _, ok := set.Await(ctx, "mcp__broken__echo"); ok {
		t.Error("a tool of a server that failed to start was found")
	}
	if _, ok := set.Await(ctx, "mcp__slow__nosuch"); ok {
		t.Error("a tool the server does not offer was found")
	}
}
