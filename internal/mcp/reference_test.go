package mcp_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/mcp/mcptest"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

// The reference servers from the npm registry (.ci/run installs them).

func TestTheEverythingServerEchoesAddsAndReturnsAnImage(t *testing.T) {
	bin := testkit.MCPEverything(t)
	m, set, w := start(t, mcp.Server{Name: "everything", Type: mcp.Stdio, Command: bin, Args: []string{"stdio"}})
	if slow := m.Ready(context.Background(), 20*time.Second); len(slow) > 0 {
		t.Fatalf("not ready: %v %v", w.All(), m.Statuses())
	}
	if res := run(t, set, "mcp__everything__echo", `{"message":"hello"}`); !strings.Contains(res.Content, "hello") || res.IsError {
		t.Errorf("echo = %+v", res)
	}
	if res := run(t, set, "mcp__everything__get-sum", `{"a":2,"b":3}`); !strings.Contains(res.Content, "5") {
		t.Errorf("get-sum = %+v", res)
	}
	img := run(t, set, "mcp__everything__get-tiny-image", `{}`)
	if len(img.Images) == 0 || img.Images[0].MediaType != "image/png" || len(img.Images[0].Data) == 0 {
		t.Errorf("get-tiny-image images = %+v (content %q)", img.Images, img.Content)
	}
	m.Close()
	if kids := mcptest.Children(t); len(kids) > 0 {
		t.Errorf("children left after Close: %v", kids)
	}
}

func TestTheFilesystemServerReadsAFileInItsFolder(t *testing.T) {
	bin := testkit.MCPFilesystem(t)
	dir := t.TempDir()
	write(t, dir+"/note.txt", "from the filesystem server")
	m, set, w := start(t, mcp.Server{Name: "fs", Type: mcp.Stdio, Command: bin, Args: []string{dir}})
	if slow := m.Ready(context.Background(), 20*time.Second); len(slow) > 0 {
		t.Fatalf("not ready: %v %v", w.All(), m.Statuses())
	}
	res := run(t, set, "mcp__fs__read_text_file", `{"path":`+strconv.Quote(dir+"/note.txt")+`}`)
	if !strings.Contains(res.Content, "from the filesystem server") {
		t.Errorf("read_text_file = %+v", res)
	}
	tool, _ := set.Get("mcp__fs__read_text_file")
	if tool.Kind() != tools.ReadOnly {
		t.Errorf("read_text_file is not read-only (kind %v)", tool.Kind())
	}
	if w, _ := set.Get("mcp__fs__write_file"); w == nil || w.Kind() == tools.ReadOnly {
		t.Errorf("write_file missing or read-only")
	}
}
