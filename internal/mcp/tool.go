package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atomic-agent/atomic/internal/tools"
)

// maxNameLen caps tool names as Claude Code does: model APIs reject longer.
const maxNameLen = 64

// ToolName is the name an MCP tool is offered under:
// mcp__<server>__<tool>, each part reduced to [A-Za-z0-9_-], at most 64
// characters.
func ToolName(server, tool string) string {
	name := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(name) > maxNameLen {
		name = name[:maxNameLen]
	}
	return name
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// Tool is one server's tool as a tools.Tool.
type Tool struct {
	name    string
	server  string
	remote  *sdk.Tool
	schema  json.RawMessage
	sess    *sdk.ClientSession
	timeout time.Duration
	// progress routes the server's progress notifications to the call.
	progress *progressRoutes
}

// newTool adapts t; a schema that does not marshal becomes an open object.
func newTool(srv *server, t *sdk.Tool, sess *sdk.ClientSession, timeout time.Duration) *Tool {
	server := srv.cfg.Name
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return &Tool{name: ToolName(server, t.Name), server: server, remote: t, schema: schema, sess: sess, timeout: timeout, progress: &srv.progress}
}

// Name implements tools.Tool.
func (t *Tool) Name() string { return t.name }

// Description implements tools.Tool.
func (t *Tool) Description() string { return t.remote.Description }

// Schema implements tools.Tool.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Kind is ReadOnly only when the server says the tool changes nothing:
// anything else may act, so the gate asks and plan mode denies.
func (t *Tool) Kind() tools.Kind {
	if a := t.remote.Annotations; a != nil && a.ReadOnlyHint {
		return tools.ReadOnly
	}
	return tools.Exec
}

// Subject labels approval prompts with the call's arguments.
func (t *Tool) Subject(input json.RawMessage) string {
	s := strings.TrimSpace(string(input))
	if s == "{}" || s == "null" {
		return ""
	}
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// Run calls the tool on its server. A call not answered within the
// tool timeout is cancelled (the server is told) and reported as the
// tool's error, naming the server, the tool, the timeout and how to raise
// it; the session goes on.
func (t *Tool) Run(ctx context.Context, call tools.Call) (tools.Result, error) {
	var args map[string]any
	if len(call.Input) > 0 {
		if err := json.Unmarshal(call.Input, &args); err != nil {
			return tools.Result{}, fmt.Errorf("%s: input is not a JSON object: %w", t.name, err)
		}
	}
	cctx, cancel := context.WithTimeoutCause(ctx, t.timeout, errToolTimeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: t.remote.Name, Arguments: args}
	if call.Progress != nil {
		// A progressToken asks the server for notifications/progress.
		token, done := t.progress.open(call.Progress)
		defer done()
		params.SetProgressToken(token)
	}
	res, err := t.sess.CallTool(cctx, params)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), errToolTimeout) {
		return tools.Result{IsError: true, Content: fmt.Sprintf(
			"mcp server %s: tool %s did not answer within %s and was cancelled; if it needs longer, raise MCP_TOOL_TIMEOUT (milliseconds) or mcp_tool_timeout (seconds) in the config file",
			t.server, t.remote.Name, t.timeout)}, nil
	}
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", t.name, err)
	}
	return convert(res), nil
}

// errToolTimeout is the cause of a call's context past the tool timeout.
var errToolTimeout = errors.New("mcp tool timeout")

// convert passes a result on without flattening it: text joined, images
// as images, resources as their text or a line naming them.
func convert(res *sdk.CallToolResult) tools.Result {
	out := tools.Result{IsError: res.IsError}
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			out.Images = append(out.Images, tools.Image{MediaType: c.MIMEType, Data: c.Data})
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource, &out))
		case *sdk.ResourceLink:
			parts = append(parts, describeResource(c.URI, c.MIMEType, c.Size))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out.Content = strings.Join(parts, "\n")
	return out
}

func embedded(r *sdk.ResourceContents, out *tools.Result) string {
	if r == nil {
		return "[empty resource]"
	}
	if r.Blob == nil {
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	if strings.HasPrefix(r.MIMEType, "image/") {
		out.Images = append(out.Images, tools.Image{MediaType: r.MIMEType, Data: r.Blob})
	}
	size := int64(len(r.Blob))
	return describeResource(r.URI, r.MIMEType, &size)
}

func describeResource(uri, mime string, size *int64) string {
	s := "[resource " + uri
	if mime != "" {
		s += ", " + mime
	}
	if size != nil {
		s += fmt.Sprintf(", %d bytes", *size)
	}
	return s + "]"
}
