package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/mcp"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/sandbox"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/ui"
)

// doctorListTimeout bounds the provider's model list: reachable means it
// answers in this time.
const doctorListTimeout = 5 * time.Second

// Doctor checks what the session needs: the provider (a models list call)
// and its key, the store, the sandbox, git, the external CLIs and the MCP
// servers. The slow probes run at once.
func (t *tuiSession) Doctor(ctx context.Context) []ui.Check {
	var reach ui.Check
	var clis []backendStatus
	var wg sync.WaitGroup
	wg.Go(func() { reach = t.reachable(ctx) })
	wg.Go(func() { clis = probeBackends(ctx, backend.Known(), t.ios.Getenv) })
	git := t.gitFound(ctx)
	wg.Wait()
	out := []ui.Check{reach, t.keyPresent(), t.storeWritable(), t.sandboxAvailable(), git}
	for _, r := range clis {
		if r.Binary == "" {
			continue
		}
		// A CLI the lead does not run in is optional: agent files may
		// still name it, and then it is needed.
		c := ui.Check{Name: r.Name + " CLI", OK: r.Found && r.Error == "", Optional: r.Name != t.c.backendName(t.s)}
		switch {
		case !r.Found:
			c.Detail, c.Fix = r.Binary+" is not on PATH", "npm install -g "+r.Package+" to use --backend "+r.Name
		case r.Error != "":
			c.Detail, c.Fix = r.Path+": "+r.Error, "run "+r.Path+" --version to see why"
		default:
			c.Detail = r.Path + " " + r.Version
		}
		out = append(out, c)
	}
	return append(out, t.mcpUp()...)
}

func (t *tuiSession) reachable(ctx context.Context) ui.Check {
	c := ui.Check{Name: "provider reachable"}
	var p provider.Provider
	if t.run != nil {
		p = t.run.Provider()
	}
	switch {
	case p == nil:
		c.OK, c.Detail = true, "the lead runs in "+t.c.backendName(t.s)+", which reaches its own model"
		return c
	case p.Name() == "demo":
		c.OK, c.Detail = true, "the demo model runs in Atomic"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, doctorListTimeout)
	defer cancel()
	ids, err := provider.ListModels(ctx, p)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		c.Detail, c.Fix = fmt.Sprintf("%s did not list its models within %s", p.Name(), doctorListTimeout), "check the network and the base URL"
	case err != nil:
		c.Detail, c.Fix = brief(err.Error()), "check the key, the base URL and the network"
	default:
		c.OK, c.Detail = true, fmt.Sprintf("%s listed %d models", p.Name(), len(ids))
		if len(ids) == 1 {
			c.Detail = fmt.Sprintf("%s listed its model %s", p.Name(), ids[0])
		}
	}
	return c
}

func (t *tuiSession) keyPresent() ui.Check {
	c := ui.Check{Name: "API key"}
	ps := t.s.ps
	switch {
	case ps.Provider == "" || ps.Provider == "demo":
		c.OK, c.Detail = true, "none needed"
	case ps.APIKey != "":
		c.OK, c.Detail = true, "set ("+ps.Source+")"
	case ps.BaseURL != "":
		c.OK, c.Detail = true, "none; "+ps.BaseURL+" may not need one"
	default:
		env := "ANTHROPIC_API_KEY"
		if ps.Provider == "openai" {
			env = "OPENAI_API_KEY"
		}
		c.Detail, c.Fix = "no key for "+ps.Provider, "set "+env+" or api_key in the config file"
	}
	return c
}

// storeWritable writes a file beside the store: the store itself is
// held by this session, and what matters is whether a save can land.
func (t *tuiSession) storeWritable() ui.Check {
	c := ui.Check{Name: "session store"}
	if t.c.noPersistence {
		c.OK, c.Detail = true, "not saved (--no-session-persistence)"
		return c
	}
	if t.stored != nil {
		t.stored.mu.Lock()
		err := t.stored.err
		t.stored.mu.Unlock()
		if err != nil {
			c.Detail, c.Fix = "not saved: "+err.Error(), "close other Atomic sessions, or move the damaged file aside (atomic sessions shows where)"
			return c
		}
	}
	path, err := store.Path(t.ios.Getenv)
	if err != nil {
		c.Detail, c.Fix = err.Error(), "set HOME or XDG_STATE_HOME"
		return c
	}
	// The store makes its folder as this does on its first save.
	err = os.MkdirAll(filepath.Dir(path), 0o700)
	var f *os.File
	if err == nil {
		f, err = os.CreateTemp(filepath.Dir(path), ".doctor-*")
	}
	if err != nil {
		c.Detail, c.Fix = "cannot write "+filepath.Dir(path)+": "+err.Error(), "make the folder writable"
		return c
	}
	f.Close()
	os.Remove(f.Name())
	c.OK, c.Detail = true, path
	return c
}

func (t *tuiSession) sandboxAvailable() ui.Check {
	c := ui.Check{Name: "sandbox"}
	asked := firstNonEmpty(t.c.sandbox, t.s.file.Sandbox)
	switch {
	case t.s.sandbox != nil:
		c.OK, c.Detail = true, string(t.s.sandbox.Mode())
	case asked == string(sandbox.Off):
		c.OK, c.Detail = true, "off, as asked: commands run unconfined"
	default:
		c.Detail, c.Fix = "not available here: commands run unconfined", "Linux with Landlock (5.13+) or macOS; or --sandbox off to say so"
	}
	return c
}

func (t *tuiSession) gitFound(ctx context.Context) ui.Check {
	c := ui.Check{Name: "git"}
	path, err := lookPath("git", t.ios.Getenv)
	if err != nil {
		c.Detail, c.Fix = "not on PATH", "install git (/diff, /review and worktrees need it)"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		c.Detail, c.Fix = path+": "+err.Error(), "reinstall git"
		return c
	}
	c.OK, c.Detail = true, strings.TrimSpace(string(out))
	return c
}

func (t *tuiSession) mcpUp() []ui.Check {
	if t.run == nil {
		return nil
	}
	servers := t.run.MCP()
	var out []ui.Check
	for _, h := range t.s.mcpHeld {
		if slices.ContainsFunc(servers, func(s mcp.Status) bool { return s.Name == h.Name }) {
			continue // approved since, and started
		}
		out = append(out, ui.Check{Name: "MCP " + h.Name, Detail: "not started: the project's server awaits your approval", Fix: "approve it when asked, or --trust-project-mcp"})
	}
	if len(servers) == 0 && len(out) == 0 {
		return []ui.Check{{Name: "MCP servers", OK: true, Detail: "none configured"}}
	}
	for _, s := range servers {
		c := ui.Check{Name: "MCP " + s.Name, OK: s.State == mcp.Ready, Detail: fmt.Sprintf("%s · %s · %d tools", s.State, s.Transport, s.Tools)}
		if !c.OK {
			if s.Err != "" {
				c.Detail += " · " + s.Err
			}
			c.Fix = "/mcp shows its state; check its command or URL"
		}
		out = append(out, c)
	}
	return out
}

// brief is an error's first line, cut to a line of the chat: SDK errors
// carry the whole response body.
func brief(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}
