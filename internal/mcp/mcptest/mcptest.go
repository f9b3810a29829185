// Package mcptest serves a small MCP server written with the official Go
// SDK, for tests: over streamable HTTP, SSE, or stdio from the test binary
// itself (TestMain re-exec), so clients are tested against the real
// protocol.
package mcptest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atomic-agent/atomic/internal/mcp"
)

// stdioEnv set to 1 makes the test binary serve MCP on stdio (ServeStdio);
// delayEnv (milliseconds) makes it wait that long first.
// exitEnv makes it write a few stderr lines and exit with that status
// before answering anything.
const (
	stdioEnv = "ATOMIC_MCPTEST_STDIO"
	delayEnv = "ATOMIC_MCPTEST_DELAY_MS"
	exitEnv  = "ATOMIC_MCPTEST_EXIT"
)

// TinyPNG is the image the "picture" tool returns.
var TinyPNG = []byte("\x89PNG\r\n\x1a\n-mcptest-")

// NewServer returns the test server. Tools: echo (read-only; returns its
// text), add (a+b), pid (the serving process's pid), picture (an image),
// document (an embedded text resource and a resource link), grow (adds a
// tool, so the server announces a changed tool list), fail (an error
// result), env (the value of a variable in the serving process's
// environment, or "unset"), hang (never answers until the call is
// cancelled) and steps (reports progress: "step 1" of n …).
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*sdk.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			A int `json:"a"`
			B int `json:"b"`
		}) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(in.A + in.B)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "The server's process id.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "picture", Description: "A tiny picture.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "here it is"},
				&sdk.ImageContent{MIMEType: "image/png", Data: TinyPNG}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "document", Description: "A document and a link.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			size := int64(2048)
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "the notes"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///shot.png", MIMEType: "image/png", Blob: TinyPNG}},
				&sdk.ResourceLink{URI: "file:///big.bin", Name: "big", MIMEType: "application/octet-stream", Size: &size},
			}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds the tool named by name to this server."},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			Name string `json:"name"`
		}) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: in.Name, Description: "Added by grow."},
				func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return text("I am " + in.Name), nil, nil
				})
			return text("added " + in.Name), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "A variable of the server's environment.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			Name string `json:"name"`
		}) (*sdk.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				return text("unset"), nil, nil
			}
			return text(v), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never answers."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(s, &sdk.Tool{Name: "steps", Description: "Reports progress step by step (when the call carries a progressToken), then says how many."},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct {
			Steps  int `json:"steps"`
			HoldMS int `json:"hold_ms,omitempty"`
		}) (*sdk.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps && token != nil; i++ {
				if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
					Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, nil, err
				}
			}
			// A long tool's last report comes well before its answer; the
			// client handles notifications apart from responses.
			time.Sleep(time.Duration(in.HoldMS) * time.Millisecond)
			return text(fmt.Sprintf("%d steps, token %v", in.Steps, token != nil)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it failed on purpose"}}}, nil, nil
		})
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// HTTP serves NewServer over streamable HTTP until the test ends and
// returns its URL.
func HTTP(t testing.TB) string {
	t.Helper()
	srv := NewServer()
	return serve(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
}

// SSE serves NewServer over the older HTTP+SSE transport until the test
// ends and returns its URL.
func SSE(t testing.TB) string {
	t.Helper()
	srv := NewServer()
	return serve(t, sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
}

func serve(t testing.TB, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// ServeStdio serves NewServer on stdio and exits when the test binary was
// started by Stdio; call it first in TestMain.
func ServeStdio() {
	if os.Getenv(stdioEnv) != "1" {
		return
	}
	if code, err := strconv.Atoi(os.Getenv(exitEnv)); err == nil {
		for i := 1; i <= 8; i++ {
			fmt.Fprintf(os.Stderr, "mcptest: start-up line %d\n", i)
		}
		fmt.Fprintln(os.Stderr, "mcptest: fatal: cannot open the database")
		os.Exit(code)
	}
	if ms, _ := strconv.Atoi(os.Getenv(delayEnv)); ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond) // a server slow to come up
	}
	if err := NewServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Stdio is a server configuration that runs the test binary as a stdio
// MCP server (its TestMain must call ServeStdio).
func Stdio(t testing.TB, name string) mcp.Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Server{Name: name, Type: mcp.Stdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{stdioEnv: "1"}}
}

// SlowStdio is Stdio for a server that starts answering only after delay.
func SlowStdio(t testing.TB, name string, delay time.Duration) mcp.Server {
	t.Helper()
	s := Stdio(t, name)
	s.Env[delayEnv] = strconv.Itoa(int(delay.Milliseconds()))
	return s
}

// FailingStdio is Stdio for a server that writes nine lines to stderr,
// the last "mcptest: fatal: cannot open the database", and exits with
// code before the handshake.
func FailingStdio(t testing.TB, name string, code int) mcp.Server {
	t.Helper()
	s := Stdio(t, name)
	s.Env[exitEnv] = strconv.Itoa(code)
	return s
}

// Children lists the pids of this process's child processes, zombies
// included (from /proc), so tests can check that nothing is left running
// or unreaped.
func Children(t testing.TB) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	me := os.Getpid()
	var out []int
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == me {
			pid, _ := strconv.Atoi(strings.Fields(s)[0])
			out = append(out, pid)
		}
	}
	return out
}

// Marked lists the live processes whose environment holds marker (as
// KEY=VALUE): a server's children re-parented away from the test still
// carry the environment the test gave the server.
func Marked(marker string) []int {
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var out []int
	for _, p := range environs {
		b, err := os.ReadFile(p)
		if err != nil || !slices.Contains(strings.Split(string(b), "\x00"), marker) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if pid != os.Getpid() && Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// Alive reports whether pid is a live (not zombie) process.
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:])
	return len(f) > 0 && f[0] != "Z"
}

// Warnings records what a manager warns about (mcp.Options.Warn), safe for
// the servers' goroutines.
type Warnings struct {
	mu   sync.Mutex
	list []string
}

// Add records one warning; pass it as mcp.Options.Warn.
func (w *Warnings) Add(s string) { w.mu.Lock(); w.list = append(w.list, s); w.mu.Unlock() }

// All returns the warnings so far.
func (w *Warnings) All() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.list)
}
