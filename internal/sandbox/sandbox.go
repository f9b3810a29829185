// Package sandbox confines the commands the agents run (the bash tool and
// every process it starts) with the kernel: on Linux, Landlock for the file
// system, a per-thread seccomp filter for the network and the terminal
// ioctls that type into a terminal, no capabilities and, where Atomic may
// make one, a mount namespace read-only outside the writable folders (for
// the metadata Landlock does not cover). Only the thread that starts a
// command is confined, so Atomic itself keeps its rights.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is how much a sandboxed command may write.
type Mode string

// Modes of the --sandbox flag.
const (
	// ReadOnly commands write only to the sandbox's own temp dir and to
	// /dev/null-like devices.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite commands also write under the workspace and the
	// --add-dir folders. The default.
	WorkspaceWrite Mode = "workspace-write"
	// Off runs commands unconfined.
	Off Mode = "off"
)

// ParseMode parses a --sandbox value; "" is the default, workspace-write.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return WorkspaceWrite, nil
	case ReadOnly, WorkspaceWrite, Off:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q is not one of read-only, workspace-write, off", s)
}

// Config is what a session's sandbox allows.
type Config struct {
	Mode Mode
	// Network lets commands open internet sockets (--allow-network).
	Network bool
	// Writable are the folders commands may write under in
	// workspace-write mode: the workspace root and the --add-dir folders.
	Writable []string
	// Secrets are paths commands may not read (DefaultSecrets and Atomic's
	// own config and state folders).
	Secrets []string
	// Hidden are paths inside the writable folders commands may not read
	// (a Claude Code Read deny rule on a file of the workspace): where
	// Atomic may make a mount namespace, they read as empty and cannot be
	// changed; elsewhere Hides reports false.
	Hidden []string
	// CacheDir is Atomic's own build cache, writable in every mode and
	// kept across sessions: commands get GOCACHE, XDG_CACHE_HOME and
	// npm_config_cache under it unless the user set them, since the
	// caches under the home are not writable ("": none).
	CacheDir string
}

// DefaultSecrets are the user's secret stores under home that commands may
// not read: private keys and cloud, cluster and password credentials.
// git's and gh's own logins stay readable, as GITHUB_TOKEN stays in the
// environment: git and gh are what the agents run.
func DefaultSecrets(home string) []string {
	out := []string{"/etc/shadow", "/etc/gshadow"}
	if home == "" {
		return out
	}
	for _, rel := range []string{
		".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json", ".netrc",
		".config/gcloud", ".config/atomic", ".local/state/atomic", ".password-store",
		".local/share/keyrings", ".vault-token", ".pgpass",
	} {
		out = append(out, filepath.Join(home, rel))
	}
	return out
}

// UnsupportedError says why this system cannot sandbox commands; the
// session then runs with the sandbox off and says so once.
type UnsupportedError struct{ Reason string }

func (e *UnsupportedError) Error() string {
	return "the command sandbox is not available: " + e.Reason + "; commands run unconfined (the permission prompts still apply)"
}

// Sandbox confines the commands of one session. A nil *Sandbox is the
// sandbox off: Start just starts the command.
type Sandbox struct {
	mode    Mode
	network bool
	cache   string
	// p is what the first command prepares (the temp dir, the kernel
	// rules), shared with the narrowed views.
	p *prepared
	// narrow, when set, are the only folders this view of the sandbox
	// lets commands write (an isolated agent's worktree); the temp dir is
	// added when a command starts.
	narrow []string
	hidden int // how many hidden shields were asked for
}

// New checks the sandbox of a session: its mode, that this system can
// sandbox and that the writable folders exist. What confines commands (the
// temp dir, the rule plan, a walk of / and of the folders leading to
// secrets, and the ruleset) is made by the first command that starts, so a
// session that runs none pays nothing for it; the git guard still takes
// the repositories as the session found them. A Mode of Off returns nil.
// Where the kernel or platform cannot sandbox, it returns nil and an
// *UnsupportedError.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Mode == Off {
		return nil, nil
	}
	if _, err := ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	if cfg.Mode == "" {
		cfg.Mode = WorkspaceWrite
	}
	if err := supported(); err != nil {
		return nil, err
	}
	var writable []string
	var shields []shield
	if cfg.Mode == WorkspaceWrite {
		// A writable folder that is missing is a configuration error,
		// said at start rather than at the first command.
		for _, w := range cfg.Writable {
			if w == "" {
				continue
			}
			w = filepath.Clean(w)
			if _, err := os.Stat(w); err != nil {
				return nil, fmt.Errorf("the sandbox cannot let commands write under %s: %w", w, errors.Unwrap(err))
			}
			writable = append(writable, w)
		}
		shields = gitShields(cfg.Writable)
	}
	hide := hiddenShields(cfg.Hidden, cfg.Writable)
	p := &prepared{network: cfg.Network, cache: cfg.CacheDir, writable: writable, folders: cfg.Writable,
		secrets: cfg.Secrets, shields: append(shields, hide...)}
	if !mayShield() {
		// Without the mount shields the guard compares with the
		// repositories as they are now, not as the first command finds
		// them.
		p.guard = newGitGuard(shields)
	}
	return &Sandbox{mode: cfg.Mode, network: cfg.Network, cache: cfg.CacheDir, p: p, hidden: len(hide)}, nil
}

// Hides reports whether the Hidden paths are kept from commands: false
// where there were some and Atomic could not make the mount namespace that
// hides them (it is not root).
func (s *Sandbox) Hides() bool {
	return s == nil || s.hidden == 0 || s.p.shielded()
}

// Narrow returns a view of the sandbox whose commands may write only under
// root (an isolated agent's git worktree inside the workspace), its git
// folder and the repository's object store (so git add works there), the
// sandbox's temp dir and the build cache. Reads stay as the session
// allows them. The view shares the session's rules and is closed with it.
func (s *Sandbox) Narrow(root string) *Sandbox {
	if s == nil || s.mode != WorkspaceWrite {
		return s
	}
	n := *s
	n.narrow = append([]string{root}, worktreeGitDirs(root)...)
	if s.cache != "" {
		n.narrow = append(n.narrow, s.cache)
	}
	return &n
}

// worktreeGitDirs are the git folder of the linked worktree at root (its
// .git file names it) and the object store of the repository it belongs
// to; none when root holds no linked worktree.
func worktreeGitDirs(root string) []string {
	data, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return nil
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	dir = filepath.Clean(dir)
	out := []string{dir}
	common := filepath.Dir(filepath.Dir(dir)) // <repo>/.git/worktrees/<id> → <repo>/.git
	if c, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		if p := strings.TrimSpace(string(c)); filepath.IsAbs(p) {
			common = p
		} else {
			common = filepath.Join(dir, p)
		}
	}
	if fi, err := os.Stat(filepath.Join(common, "objects")); err == nil && fi.IsDir() {
		out = append(out, filepath.Join(filepath.Clean(common), "objects"))
	}
	return out
}

// Check runs after each command: where the shields are not up, it puts
// back a repository's hooks and config the command changed and returns
// the line that says so ("" when nothing changed).
func (s *Sandbox) Check() string {
	if s == nil {
		return ""
	}
	return s.p.currentGuard().check()
}

// Close removes the sandbox's temp dir and releases its kernel rules, if
// a command made them; no command starts after.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	return s.p.close()
}

// Mode is the mode in force: Off for a nil sandbox.
func (s *Sandbox) Mode() Mode {
	if s == nil {
		return Off
	}
	return s.mode
}

// Network reports whether commands may use the network.
func (s *Sandbox) Network() bool { return s == nil || s.network }

// TempDir is the sandbox's own temp dir, TMPDIR of every command (made
// now if no command made it yet; "" if it cannot be).
func (s *Sandbox) TempDir() string {
	if s == nil || s.p.prepare() != nil {
		return ""
	}
	return s.p.tempDir
}

// expand adds to paths the symlink-free form of each, so that a secret
// reached through a symlink is refused as well.
func expand(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		p = filepath.Clean(p)
		out = append(out, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// denialMarks are what commands print when the kernel refuses them.
var denialMarks = []string{"permission denied", "operation not permitted", "read-only file system", "eacces", "eperm"}

// networkMarks tell a refused socket from a refused file.
var networkMarks = []string{"socket", "connect", "dial ", "network", "resolve host", "could not resolve", "name resolution"}

// refusedSocketMarks are what tools print when socket(2) fails, in their
// own words (curl: "Couldn't connect to server").
var refusedSocketMarks = []string{"couldn't connect to server", "failed to connect", "could not resolve host", "temporary failure in name resolution", "network is unreachable"}

// Explain returns the line Atomic adds to the output of a command that
// failed because the sandbox refused it (so that the model can adapt), or
// "" when the output shows no refusal or the sandbox is off.
func (s *Sandbox) Explain(output string) string {
	if s == nil {
		return ""
	}
	low := strings.ToLower(output)
	prefix := fmt.Sprintf("atomic: the sandbox (%s) blocked this: ", s.mode)
	denied := containsAny(low, denialMarks)
	if !s.network && (containsAny(low, refusedSocketMarks) || denied && containsAny(low, networkMarks)) {
		return prefix + "commands have no network access; --allow-network or --sandbox off would allow it"
	}
	if !denied {
		return ""
	}
	for _, p := range s.p.secretPaths() {
		if strings.Contains(output, p) || strings.Contains(output, "~/"+filepath.Base(p)) {
			return prefix + "commands may not read the secret store " + p + "; --sandbox off would allow it"
		}
	}
	if s.mode == ReadOnly {
		return prefix + "commands may not write (except in $TMPDIR); --sandbox workspace-write would allow writes in the workspace"
	}
	return prefix + "writes outside the workspace and $TMPDIR are not allowed (nor reads of secret stores such as ~/.ssh); --add-dir DIR or --sandbox off would allow it"
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// errClosed is returned by Start after Close.
var errClosed = errors.New("the sandbox is closed")

// Start starts cmd confined by the sandbox, with TMPDIR set to the
// sandbox's temp dir. A nil sandbox just starts it.
func (s *Sandbox) Start(cmd *exec.Cmd) error {
	if s == nil {
		return cmd.Start()
	}
	if err := s.p.prepare(); err != nil {
		return err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	env = append(env, "TMPDIR="+s.p.tempDir)
	if s.cache != "" {
		for _, v := range [][2]string{{"GOCACHE", "go-build"}, {"XDG_CACHE_HOME", "xdg"}, {"npm_config_cache", "npm"}} {
			if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, v[0]+"=") }) {
				env = append(env, v[0]+"="+filepath.Join(s.cache, v[1]))
			}
		}
	}
	cmd.Env = env
	narrow := s.narrow
	if len(narrow) > 0 {
		narrow = append(slices.Clone(narrow), s.p.tempDir)
	}
	return s.p.current().start(cmd, narrow)
}
