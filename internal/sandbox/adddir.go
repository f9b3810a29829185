package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// AddWritable lets the commands started from now on write under dir, as
// if it had been one of Config.Writable (--add-dir) from the start: its
// repository's hooks and config are shielded as theirs are. Commands
// already running keep the rules they started with; narrowed views keep
// their narrowing. It refuses, naming it, a folder that is missing, not a
// folder, a secret store or under one, holding one (its write rule would
// let commands read it), or under a shielded path (a git dir's hooks or
// config). In read-only mode it only checks dir: commands write nowhere.
func (s *Sandbox) AddWritable(dir string) error {
	if s == nil {
		return nil
	}
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the sandbox cannot let commands write under %s: no such folder", dir)
	case err != nil:
		return fmt.Errorf("the sandbox cannot let commands write under %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("the sandbox cannot let commands write under %s: not a folder", dir)
	}
	return s.p.add(dir, s.mode == WorkspaceWrite)
}

// add checks dir against what the sandbox protects and, when write, adds
// it to the writable folders; once the kernel rules exist, the next
// command gets new ones (a new ruleset, mount namespace and confined
// threads). The old kernel is kept until close: a command starting now on
// one of its threads still starts, with the narrower old rules.
func (p *prepared) add(dir string, write bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errClosed
	}
	forms := expand([]string{dir})
	secrets := expand(p.secrets)
	for _, f := range forms {
		if isUnder(f, secrets) {
			return fmt.Errorf("the sandbox cannot let commands write under %s: commands may not read it (a secret store)", dir)
		}
		if leadsTo(f, secrets) {
			return fmt.Errorf("the sandbox cannot let commands write under %s: it holds a secret store commands may not read", dir)
		}
		for _, sh := range p.shields {
			if isUnder(f, []string{sh.path}) {
				return fmt.Errorf("the sandbox cannot let commands write under %s: it is under %s, which the sandbox shields", dir, sh.path)
			}
		}
	}
	if !write || slices.Contains(p.writable, dir) {
		return nil
	}
	shields := gitShields([]string{dir})
	writable := append(slices.Clone(p.writable), dir)
	folders := append(slices.Clone(p.folders), dir)
	all := append(slices.Clone(p.shields), shields...)
	if p.done && p.err == nil {
		k, err := newKernel(plan(p.kernelWritable(writable), p.secrets), p.network, folders, all)
		if err != nil {
			return err
		}
		p.retired = append(p.retired, p.kernel)
		p.kernel = k
		if k.shielded() {
			p.guard = nil
		} else {
			p.guard = p.guard.with(all)
		}
	} else if p.guard != nil {
		p.guard = p.guard.with(all)
	}
	p.writable, p.folders, p.shields = writable, folders, all
	return nil
}

// kernelWritable are the folders the kernel rules let commands write: the
// temp dir, the build cache and writable.
func (p *prepared) kernelWritable(writable []string) []string {
	out := []string{p.tempDir}
	if p.cache != "" {
		out = append(out, p.cache)
	}
	return append(out, writable...)
}
