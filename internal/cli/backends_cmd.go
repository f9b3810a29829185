package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
)

// backendStatus is one row of `atomic backends`: what the backend is and
// whether its CLI is installed here.
type backendStatus struct {
	backend.Info
	Found   bool   `json:"found"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

// versionTimeout bounds each `CLI --version` (a first run may unpack
// itself).
const versionTimeout = 20 * time.Second

// runBackends prints every backend: found or not (path, version), what it
// supports and the npm package that provides it.
func runBackends(ctx context.Context, args []string, io IOStreams) int {
	fs := flag.NewFlagSet("atomic backends", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print a JSON array")
	if code, ok := parseFlags(fs, args, io, "Usage: atomic backends [--json]\n\nLists the backends a lead, sub-agent or teammate can run on (--backend, backend: in agent files)."); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.Err, "atomic backends: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	rows := probeBackends(ctx, backend.Known(), io.Getenv)
	if *asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return 1
		}
		return 0
	}
	tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BACKEND\tFOUND\tVERSION\tAPI\tSUB-AGENTS\tBACKGROUND\tINTERRUPT\tAPPROVALS\tUSAGE\tCANCEL ONE\tIMAGES\tPLAN\tRESUME\tNPM PACKAGE")
	for _, r := range rows {
		found, version, pkg, api := "built in", Version, "-", "any"
		if r.Binary != "" {
			found, version, pkg, api = "not found ("+r.Binary+" is not on PATH)", "-", r.Package, r.API
			if r.Found {
				found, version = r.Path, r.Version
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, found, version, api,
			yes(r.Subagents), yes(r.Background), yes(r.Interrupt), yes(r.Approvals), yes(r.Usage), yes(r.CancelAgent),
			yes(r.Images), yes(r.Plan), yes(r.Resume), pkg)
	}
	tw.Flush()
	return 0
}

// probeBackends looks each CLI up on PATH and asks it its version, all at
// once.
func probeBackends(ctx context.Context, known []backend.Info, getenv func(string) string) []backendStatus {
	rows := make([]backendStatus, len(known))
	var wg sync.WaitGroup
	for i, b := range known {
		rows[i].Info = b
		if b.Binary == "" {
			rows[i].Found, rows[i].Version = true, Version
			continue
		}
		path, err := lookPath(b.Binary, getenv)
		if err != nil {
			continue
		}
		rows[i].Found, rows[i].Path = true, path
		wg.Add(1)
		go func(r *backendStatus) {
			defer wg.Done()
			r.Version, err = cliVersion(ctx, r.Path)
			if err != nil {
				r.Error = err.Error()
			}
		}(&rows[i])
	}
	wg.Wait()
	return rows
}

// lookPath finds bin on the PATH of getenv (the command's environment).
func lookPath(bin string, getenv func(string) string) (string, error) {
	for _, dir := range strings.Split(getenv("PATH"), ":") {
		if dir == "" {
			continue
		}
		if p, err := exec.LookPath(dir + "/" + bin); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// cliVersion is the first line of `bin --version`, without the CLI's name.
func cliVersion(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	for _, f := range strings.Fields(line) {
		if f != "" && f[0] >= '0' && f[0] <= '9' {
			return f, nil
		}
	}
	return line, nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
