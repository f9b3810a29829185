package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/mcp"
)

const mcpSynopsis = `Usage: atomic mcp [list]
       atomic mcp add|add-json|get|remove ... (see 'atomic mcp add --help')
       atomic mcp trust NAME... | --all
       atomic mcp untrust NAME... | --all

Lists the MCP servers a run in this folder would use, with their commands
and whether they start. Servers of the folder's .mcp.json come with the
repository (and the model can edit that file), so they start only once you
approved them: 'atomic mcp trust NAME' approves one as it is written now
(a change to its entry asks again), 'atomic mcp untrust NAME' withdraws
it. Approvals are kept in $XDG_CONFIG_HOME/atomic/trusted-mcp.json.
`

// runMCP is `atomic mcp`: list, trust and untrust the workspace's MCP
// servers.
func runMCP(_ context.Context, args []string, ios IOStreams) int {
	fs := flag.NewFlagSet("atomic mcp", flag.ContinueOnError)
	var c common
	fs.StringVar(&c.configPath, "config", "", "config file (default $XDG_CONFIG_HOME/atomic/config.json)")
	var all bool
	fs.BoolVar(&all, "all", false, "trust or untrust every server of the workspace's .mcp.json")
	verb := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		verb, args = args[0], args[1:]
	}
	switch verb {
	case "add", "add-json", "get", "remove":
		return runMCPEdit(verb, args, ios)
	}
	if code, ok := c.parse(fs, args, ios, mcpSynopsis); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(ios.Err, "atomic mcp: "+format+"\n", a...)
		return 2
	}
	// Flags may come after names too (trust db --all is refused, not a
	// server called "--all").
	var names []string
	for rest := fs.Args(); len(rest) > 0; rest = fs.Args() {
		names = append(names, rest[0])
		if err := fs.Parse(rest[1:]); err != nil {
			return fail("%v", err)
		}
	}
	switch verb {
	case "list":
		if len(names) > 0 || all {
			return fail("list takes no arguments")
		}
		return mcpList(&c, ios)
	case "trust", "untrust":
		if len(names) == 0 && !all {
			return fail("%s needs server names or --all (run 'atomic mcp' to list them)", verb)
		}
		if len(names) > 0 && all {
			return fail("give server names or --all, not both")
		}
		return mcpTrustCmd(ios, verb == "trust", names, all)
	}
	return fail("unknown command %q (want list, add, add-json, get, remove, trust or untrust)", verb)
}

// mcpList prints every server a run here would configure: name, where it
// comes from, whether it starts, and what it runs.
func mcpList(c *common, ios IOStreams) int {
	f, err := c.configFile(ios)
	if err != nil {
		fmt.Fprintf(ios.Err, "atomic mcp: %v\n", err)
		return 2
	}
	servers, errs := mcp.Load(c.mcpSources(ios, f), envLookup(ios))
	for _, err := range errs {
		fmt.Fprintf(ios.Err, "atomic mcp: warning: %v\n", err)
	}
	trust, terrs := c.mcpTrust(ios, nil)
	for _, err := range terrs {
		fmt.Fprintf(ios.Err, "atomic mcp: warning: %v\n", err)
	}
	if len(servers) == 0 {
		fmt.Fprintln(ios.Out, "No MCP servers. Configure them in .mcp.json (mcpServers), ~/.config/atomic/mcp.json or --mcp-config FILE.")
		return 0
	}
	for _, s := range servers {
		fmt.Fprintf(ios.Out, "%s  %s\n    %s\n    from %s\n", s.Name, trust.Check(s), what(s), s.Source)
	}
	return 0
}

// mcpTrustCmd approves (or withdraws) the named servers of the
// workspace's .mcp.json, or all of them.
func mcpTrustCmd(ios IOStreams, approve bool, names []string, all bool) int {
	path := approvalsPath(ios)
	if path == "" {
		fmt.Fprintln(ios.Err, "atomic mcp: neither XDG_CONFIG_HOME nor HOME is set: no place to keep approvals")
		return 2
	}
	a, err := mcp.LoadApprovals(path)
	if err != nil {
		fmt.Fprintf(ios.Err, "atomic mcp: %v\n", err)
		return 1
	}
	if mcp.Within(path, ios.Dir) {
		fmt.Fprintf(ios.Err, "atomic mcp: warning: %s is inside this workspace, where the model can write it: runs here do not use its approvals (use --trust-project-mcp)\n", path)
	}
	ws := mcp.Workspace(ios.Dir)
	file := filepath.Join(ios.Dir, ".mcp.json")
	project, errs := mcp.Load([]mcp.Source{{Path: file, Optional: true, Project: true}}, envLookup(ios))
	for _, err := range errs {
		fmt.Fprintf(ios.Err, "atomic mcp: warning: %v\n", err)
	}
	if all {
		names = nil
		for _, s := range project {
			names = append(names, s.Name)
		}
		if !approve {
			for n := range a.Projects[ws] {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		if len(names) == 0 {
			fmt.Fprintf(ios.Err, "atomic mcp: no servers in %s\n", file)
			return 1
		}
		slices.Sort(names)
	}
	code := 0
	for _, n := range names {
		i := slices.IndexFunc(project, func(s mcp.Server) bool { return s.Name == n })
		switch {
		case !approve:
			if a.Revoke(ws, n) {
				fmt.Fprintf(ios.Out, "untrusted %s\n", n)
			} else {
				fmt.Fprintf(ios.Out, "%s was not approved\n", n)
			}
		case i < 0:
			fmt.Fprintf(ios.Err, "atomic mcp: no server %q in %s (servers of your own files need no approval)\n", n, file)
			code = 1
		default:
			s := project[i]
			a.Approve(ws, s)
			fmt.Fprintf(ios.Out, "trusted %s: %s (from %s)\n", s.Name, what(s), s.Source)
		}
	}
	if err := a.Save(); err != nil {
		fmt.Fprintf(ios.Err, "atomic mcp: %v\n", err)
		return 1
	}
	return code
}

// what is what a server runs or where it connects (mcp.Describe).
func what(s mcp.Server) string { return mcp.Describe(s) }

// envLookup is ios.Getenv for ${VAR} expansion: an empty variable counts
// as unset, as in the shell's ${VAR:-default}.
func envLookup(ios IOStreams) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v := ios.Getenv(k)
		return v, v != ""
	}
}
