package sandbox

import (
	"fmt"
	"os"
	"sync"
)

// prepared is what confines a session's commands, made by the first
// command that starts and shared with the session's narrowed views: the
// temp dir, the rule plan and the kernel's ruleset and mount namespace.
// The plan walks / and the folders leading to secrets (milliseconds) that
// a session running no command would pay at start for nothing.
type prepared struct {
	network bool
	cache   string
	// writable are the session's folders commands may write (besides the
	// temp dir and the cache); folders are the workspace and the
	// --add-dir folders, whatever the mode (see newKernel).
	writable, folders []string
	shields           []shield

	mu     sync.Mutex
	done   bool // prepare ran; err is its outcome
	err    error
	closed bool
	// secrets are the configured secret paths, and once prepared their
	// symlink-free forms too.
	secrets []string
	tempDir string
	kernel  *kernel
	// retired are the kernels AddWritable replaced, closed with p.
	retired []*kernel
	// guard restores the repositories' hooks and config after each
	// command where the shields are not up (nil where they are).
	guard *gitGuard
}

// prepare makes the temp dir and the kernel rules once; every later call
// returns the first outcome, and errClosed after close.
func (p *prepared) prepare() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errClosed
	}
	if !p.done {
		p.done = true
		p.err = p.make()
	}
	return p.err
}

func (p *prepared) make() error {
	tmp, err := os.MkdirTemp("", "atomic-sandbox-")
	if err != nil {
		return fmt.Errorf("creating the sandbox's temp dir: %w", err)
	}
	if p.cache != "" {
		if err := os.MkdirAll(p.cache, 0o700); err != nil {
			os.RemoveAll(tmp)
			return fmt.Errorf("creating the sandbox's build cache: %w", err)
		}
	}
	p.tempDir = tmp
	secrets := expand(p.secrets)
	k, err := newKernel(plan(p.kernelWritable(p.writable), secrets), p.network, p.folders, p.shields)
	if err != nil {
		os.RemoveAll(tmp)
		p.tempDir = ""
		return err
	}
	p.kernel, p.secrets = k, secrets
	switch {
	case k.shielded():
		p.guard = nil
	case p.guard == nil:
		// The namespace was expected but could not be made: the guard
		// takes the repositories as they are now.
		p.guard = newGitGuard(p.shields)
	}
	return nil
}

// shielded reports whether the shields are up, preparing the sandbox to
// know.
func (p *prepared) shielded() bool {
	return p.prepare() == nil && p.current().shielded()
}

// current is the kernel the next command starts with.
func (p *prepared) current() *kernel {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kernel
}

func (p *prepared) currentGuard() *gitGuard {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.guard
}

func (p *prepared) secretPaths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.secrets
}

// close releases what prepare made; nothing is made after.
func (p *prepared) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.kernel == nil {
		return nil
	}
	p.kernel.close()
	for _, k := range p.retired {
		k.close()
	}
	if err := os.RemoveAll(p.tempDir); err != nil {
		return fmt.Errorf("removing the sandbox's temp dir: %w", err)
	}
	return nil
}
