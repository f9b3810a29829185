package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-agent/atomic/internal/mcp"
)

const mcpEditSynopsis = `Usage: atomic mcp add [-s local|project|user] [-t stdio|http|sse] [-e KEY=VALUE]... [-H 'Name: value']... NAME COMMAND_OR_URL [ARGS...]
       atomic mcp add-json [-s SCOPE] NAME JSON
       atomic mcp get NAME
       atomic mcp remove [-s SCOPE] NAME

Adds, shows and removes MCP servers where Claude Code keeps them, so
'claude mcp' and 'atomic mcp' see the same servers: local (this folder
only, in ~/.claude.json; the default), project (this folder's .mcp.json,
shared through the repository; a run starts them once approved with
'atomic mcp trust') and user (every folder, in ~/.claude.json). Flags come
before NAME: what follows the command or URL is passed to the server.
`

// mcpPlaces are the scopes' places for this folder, local first.
func mcpPlaces(ios IOStreams) (map[string]mcp.Place, error) {
	claudeJSON := claudeJSONPath(ios.Getenv)
	if claudeJSON == "" {
		return nil, errors.New("neither CLAUDE_CONFIG_DIR nor HOME is set: no ~/.claude.json to keep servers in")
	}
	return map[string]mcp.Place{
		mcp.ScopeLocal:   {Scope: mcp.ScopeLocal, File: claudeJSON, Project: ios.Dir},
		mcp.ScopeProject: {Scope: mcp.ScopeProject, File: filepath.Join(ios.Dir, ".mcp.json")},
		mcp.ScopeUser:    {Scope: mcp.ScopeUser, File: claudeJSON},
	}, nil
}

var mcpScopeOrder = []string{mcp.ScopeLocal, mcp.ScopeProject, mcp.ScopeUser}

type kvList []string

func (k *kvList) String() string     { return strings.Join(*k, ",") }
func (k *kvList) Set(v string) error { *k = append(*k, v); return nil }

// runMCPEdit is `atomic mcp add|add-json|get|remove`.
func runMCPEdit(verb string, args []string, ios IOStreams) int {
	fs := flag.NewFlagSet("atomic mcp "+verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var scope, transport string
	var env, headers kvList
	if verb != "get" {
		fs.StringVar(&scope, "s", "", "scope: local (default), project or user")
		fs.StringVar(&scope, "scope", "", "scope: local (default), project or user")
	}
	if verb == "add" {
		fs.StringVar(&transport, "t", "", "transport: stdio (default), http or sse")
		fs.StringVar(&transport, "transport", "", "transport: stdio (default), http or sse")
		fs.Var(&env, "e", "KEY=VALUE for the server's environment (repeatable)")
		fs.Var(&env, "env", "KEY=VALUE for the server's environment (repeatable)")
		fs.Var(&headers, "H", "'Name: value' header for an http or sse server (repeatable)")
		fs.Var(&headers, "header", "'Name: value' header for an http or sse server (repeatable)")
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(ios.Err, "atomic mcp %s: "+format+"\n", append([]any{verb}, a...)...)
		return code
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(ios.Out, mcpEditSynopsis)
		return 0
	} else if err != nil {
		return fail(2, "%v (run 'atomic mcp %s --help')", err, verb)
	}
	rest := fs.Args()
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	places, err := mcpPlaces(ios)
	if err != nil {
		return fail(1, "%v", err)
	}
	if scope != "" {
		if _, ok := places[scope]; !ok {
			return fail(2, "unknown scope %q (want local, project or user)", scope)
		}
	}
	switch verb {
	case "add", "add-json":
		if len(rest) < 2 || (verb == "add-json" && len(rest) != 2) {
			return fail(2, "needs NAME and %s (run 'atomic mcp %s --help')", map[string]string{"add": "a command or URL", "add-json": "one JSON entry"}[verb], verb)
		}
		if scope == "" {
			scope = mcp.ScopeLocal
		}
		entry, err := mcpEntry(verb, transport, env, headers, rest)
		if err != nil {
			return fail(2, "%v", err)
		}
		p := places[scope]
		if err := p.AddServer(rest[0], entry); err != nil {
			return fail(1, "%v", err)
		}
		fmt.Fprintf(ios.Out, "Added %s MCP server %s to %s config (%s)\n", mcpTransport(entry), rest[0], scope, p.File)
		if scope == mcp.ScopeProject {
			fmt.Fprintf(ios.Out, "A run starts it once you approve it: atomic mcp trust %s\n", rest[0])
		}
		return 0
	case "get":
		if len(rest) != 1 {
			return fail(2, "needs one server NAME")
		}
		return mcpGet(ios, places, rest[0])
	case "remove":
		if len(rest) != 1 {
			return fail(2, "needs one server NAME")
		}
		return mcpRemove(ios, places, scope, rest[0])
	}
	return fail(2, "unknown command")
}

// mcpEntry is the .mcp.json entry add or add-json was given.
func mcpEntry(verb, transport string, env, headers kvList, rest []string) (json.RawMessage, error) {
	if verb == "add-json" {
		return json.RawMessage(rest[1]), nil
	}
	e := mcp.Entry{}
	switch transport {
	case "", mcp.Stdio:
		e.Command, e.Args = rest[1], rest[2:]
		if len(headers) > 0 {
			return nil, errors.New("-H is for http and sse servers")
		}
	case mcp.HTTP, mcp.SSE:
		if len(rest) != 2 {
			return nil, fmt.Errorf("an %s server takes a URL and nothing after it", transport)
		}
		e.Type, e.URL = transport, rest[1]
	default:
		return nil, fmt.Errorf("unknown transport %q (want stdio, http or sse)", transport)
	}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-e %q: want KEY=VALUE", kv)
		}
		if e.Env == nil {
			e.Env = map[string]string{}
		}
		e.Env[k] = v
	}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("-H %q: want 'Name: value'", h)
		}
		if e.Headers == nil {
			e.Headers = map[string]string{}
		}
		e.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return json.Marshal(e)
}

func mcpTransport(entry json.RawMessage) string {
	var e mcp.Entry
	_ = json.Unmarshal(entry, &e)
	if e.Type == "" {
		return mcp.Stdio
	}
	return e.Type
}

// mcpGet prints where server name is configured and how it starts; the
// values of its environment and headers are not printed (they often are
// tokens).
func mcpGet(ios IOStreams, places map[string]mcp.Place, name string) int {
	found := false
	for _, scope := range mcpScopeOrder {
		p := places[scope]
		servers, err := p.Servers()
		if err != nil {
			fmt.Fprintf(ios.Err, "atomic mcp get: %v\n", err)
			return 1
		}
		raw, ok := servers[name]
		if !ok {
			continue
		}
		found = true
		var e mcp.Entry
		if err := json.Unmarshal(raw, &e); err != nil {
			fmt.Fprintf(ios.Err, "atomic mcp get: %s in %s: %v\n", name, p.File, err)
			return 1
		}
		fmt.Fprintf(ios.Out, "%s:\n  Scope: %s (%s)\n  Type: %s\n", name, scope, p.File, mcpTransport(raw))
		if e.Command != "" {
			fmt.Fprintf(ios.Out, "  Command: %s\n", strings.TrimSpace(e.Command+" "+strings.Join(e.Args, " ")))
		}
		if e.URL != "" {
			fmt.Fprintf(ios.Out, "  URL: %s\n", e.URL)
		}
		if len(e.Env) > 0 {
			fmt.Fprintf(ios.Out, "  Environment: %s (values not shown)\n", strings.Join(sortedKeys(e.Env), ", "))
		}
		if len(e.Headers) > 0 {
			fmt.Fprintf(ios.Out, "  Headers: %s (values not shown)\n", strings.Join(sortedKeys(e.Headers), ", "))
		}
	}
	if !found {
		fmt.Fprintf(ios.Err, "atomic mcp get: no MCP server %q in the local, project or user config (run 'atomic mcp list')\n", name)
		return 1
	}
	return 0
}

// mcpRemove removes server name from scope, or from the one scope that
// has it; in several scopes it asks for -s.
func mcpRemove(ios IOStreams, places map[string]mcp.Place, scope, name string) int {
	scopes := mcpScopeOrder
	if scope != "" {
		scopes = []string{scope}
	}
	var in []string
	for _, s := range scopes {
		servers, err := places[s].Servers()
		if err != nil {
			fmt.Fprintf(ios.Err, "atomic mcp remove: %v\n", err)
			return 1
		}
		if _, ok := servers[name]; ok {
			in = append(in, s)
		}
	}
	switch {
	case len(in) == 0:
		fmt.Fprintf(ios.Err, "atomic mcp remove: no MCP server %q in the %s config\n", name, strings.Join(scopes, ", "))
		return 1
	case len(in) > 1:
		sort.Strings(in)
		fmt.Fprintf(ios.Err, "atomic mcp remove: %q is in the %s configs: say which with -s\n", name, strings.Join(in, " and "))
		return 2
	}
	p := places[in[0]]
	if err := p.RemoveServer(name); err != nil {
		fmt.Fprintf(ios.Err, "atomic mcp remove: %v\n", err)
		return 1
	}
	fmt.Fprintf(ios.Out, "Removed MCP server %s from %s config (%s)\n", name, in[0], p.File)
	return 0
}
