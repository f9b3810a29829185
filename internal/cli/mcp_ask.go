package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// askMCPTrust asks, one server at a time through the chat UI's approval
// queue, whether each project MCP server held for want of approval may
// start. Allowed once, it starts for this session; allowed for the
// session ("a"), its entry is also remembered as approved (as by 'atomic
// mcp trust'), so later sessions start it until the entry changes; its
// tools join when it is up. Denied, it stays off and is asked about
// again next time.
// note tells the transcript. The returned function stops asking and waits
// for the asking goroutine; call it before the session ends.
func askMCPTrust(ctx context.Context, asker permission.Asker, ios IOStreams, s *setup, note func(string)) (stop func()) {
	if len(s.mcpHeld) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ws := mcp.Workspace(ios.Dir)
		var before *mcp.Approvals
		if path := approvalsPath(ios); path != "" {
			before, _ = mcp.LoadApprovals(path)
		}
		for _, srv := range s.mcpHeld {
			changed := false
			if before != nil {
				_, changed = before.Check(ws, srv)
			}
			ans, err := asker.Ask(ctx, mcpTrustRequest(srv, changed))
			if err != nil {
				return // the UI closed or the session ended: nothing starts
			}
			if ans != permission.AllowOnce && ans != permission.AllowSession {
				note(fmt.Sprintf("mcp server %s not started; approve it later with 'atomic mcp trust %s'", srv.Name, srv.Name))
				continue
			}
			what := "approved for this session"
			if ans == permission.AllowSession {
				what = "approved and remembered"
				if err := rememberApproval(ios, ws, srv); err != nil {
					what = fmt.Sprintf("approved for this session only (%v)", err)
				}
			}
			if s.mcp.Add(srv) {
				note(fmt.Sprintf("mcp server %s %s; starting it", srv.Name, what))
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

// mcpTrustRequest is the approval prompt for starting srv: its command
// and arguments (or URL), the file it comes from, and what allowing does.
func mcpTrustRequest(srv mcp.Server, changed bool) permission.Request {
	verdict := "It has not been approved before."
	if changed {
		verdict = "Its entry changed since you approved it."
	}
	return permission.Request{
		ID: "mcp-trust-" + srv.Name, Tool: "the project's MCP server " + srv.Name + ":", Kind: tools.Exec,
		Subject: what(srv),
		Diff: fmt.Sprintf("from %s\n%s\ny starts it this time only; a also remembers the approval (asked again if the entry changes);\n'atomic mcp untrust %s' withdraws a remembered approval.",
			srv.Source, verdict, srv.Name),
	}
}

// rememberApproval records srv as approved in the workspace ws.
func rememberApproval(ios IOStreams, ws string, srv mcp.Server) error {
	path := approvalsPath(ios)
	if path == "" {
		return errors.New("neither XDG_CONFIG_HOME nor HOME is set: no place to keep approvals")
	}
	a, err := mcp.LoadApprovals(path)
	if err != nil {
		return err
	}
	a.Approve(ws, srv)
	return a.Save()
}
