package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/atomic-agent/atomic/internal/reaper"
	"github.com/atomic-agent/atomic/internal/tools"
)

// Atomic's own git runs in the user's repository outside the sandbox, and
// everything under .git is writable by the commands the model runs there:
// a hook, or a program named in the repository's config (core.fsmonitor, a
// filter's clean/smudge/process command, diff.external, a textconv, a
// gpg.program with commit.gpgSign, core.sshCommand for a lazy fetch...),
// would run as the user. So every git of Atomic's own goes through Git,
// which switches all of them off on the command line, where they take
// precedence over every config file (includes too), strips the inherited
// GIT_* environment and the provider keys, and only runs the subcommands
// it knows how to harden.

// hardenedConfig is set with -c on every git Atomic runs.
func hardenedConfig() []string {
	return []string{
		"core.hooksPath=" + os.DevNull, // no hook at all: reference-transaction, post-checkout, post-commit, post-index-change...
		"core.fsmonitor=false",
		"core.pager=cat",
		"core.editor=:", // ":" is git's "no editor"
		"sequence.editor=:",
		"core.askPass=",
		"core.sshCommand=",
		"credential.helper=",   // empties the list of helpers
		"protocol.allow=never", // no transport: a lazy fetch cannot run ssh, ext:: or an upload-pack
		"commit.gpgSign=false", // commit and commit-tree would run gpg.program
		"tag.gpgSign=false",
		"log.showSignature=false",
		"diff.external=",
		"submodule.recurse=false", // no git in a submodule, whose config the names below do not cover
		"gc.auto=0",               // no auto maintenance after a commit
		"maintenance.auto=false",
		"color.ui=never", // patches Atomic applies stay plain
	}
}

// sub says how one git subcommand Atomic runs is hardened: whether it can
// read or write files' contents (and so run a filter driver), and the
// flags that go right after it.
type sub struct {
	content bool
	flags   []string
}

// subcommand returns the hardening of args' subcommand, or false when it is
// not one Atomic runs: a new use has to be added here, with thought.
func subcommand(args []string) (sub, bool) {
	if len(args) == 0 {
		return sub{}, false
	}
	switch args[0] {
	case "rev-parse", "config", "merge-base", "branch", "commit-tree":
		return sub{}, true
	case "cat-file": // only the existence check: --filters and --textconv run drivers
		return sub{}, len(args) == 3 && args[1] == "-e"
	case "worktree":
		if len(args) > 1 && (args[1] == "list" || args[1] == "prune" || args[1] == "unlock") {
			return sub{}, true
		}
		return sub{content: true}, len(args) > 1 && (args[1] == "add" || args[1] == "remove")
	case "add", "apply", "reset", "commit", "write-tree": // write-tree re-reads a racily clean file
		return sub{content: true}, true
	case "status":
		return sub{content: true, flags: []string{"--ignore-submodules=dirty"}}, true
	case "diff":
		// No external diff, no textconv (diff.<driver>.command and
		// .textconv), no color, git's own prefixes whatever diff.noprefix
		// says, and no git run in a submodule's work tree.
		return sub{content: true, flags: []string{"--no-ext-diff", "--no-textconv", "--no-color",
			"--src-prefix=a/", "--dst-prefix=b/", "--ignore-submodules=dirty"}}, true
	}
	return sub{}, false
}

// gitEnv is the environment of Atomic's git: Atomic's own without any
// GIT_* variable (GIT_DIR, GIT_INDEX_FILE, GIT_EXTERNAL_DIFF, GIT_PAGER,
// GIT_SSH_COMMAND, GIT_ASKPASS, GIT_EDITOR, GIT_CONFIG_PARAMETERS...: set
// for the user's own git, or by a hook Atomic was started from) and without
// provider keys, then no system config or attributes, no prompt, no lazy
// fetch and no replace refs, then the caller's extra.
func gitEnv(extra []string) []string {
	environ := os.Environ()
	env := make([]string, 0, len(environ)+8+len(extra))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(name), "GIT_") || tools.SecretEnv(name) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_NO_LAZY_FETCH=1", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0")
	return append(env, extra...)
}

// Git runs git in dir with stdin (nil: none) and extra environment, and
// returns its standard output as is (a binary patch stays whole); the
// error carries git's standard error. It is the one way Atomic runs git:
// hardened as above, and for a subcommand that touches files' contents
// with every filter driver the config names switched off.
func Git(ctx context.Context, dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	s, ok := subcommand(args)
	if !ok {
		return nil, fmt.Errorf("worktree.Git: git %s is not a subcommand Atomic runs hardened", strings.Join(args, " "))
	}
	var filters []string
	if s.content {
		var err error
		if filters, err = filterOverrides(ctx, dir); err != nil {
			return nil, err
		}
	}
	full := make([]string, 0, 40+len(filters)+len(args)+len(s.flags))
	full = append(full, "--no-pager")
	for _, kv := range hardenedConfig() {
		full = append(full, "-c", kv)
	}
	for _, kv := range filters {
		full = append(full, "-c", kv)
	}
	full = append(full, args[0])
	full = append(full, s.flags...)
	full = append(full, args[1:]...)
	return runGit(ctx, dir, env, stdin, args[0], full)
}

func runGit(ctx context.Context, dir string, env []string, stdin []byte, name string, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(env)
	reaper.Guard(cmd)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s: %w", name, msg, err)
	}
	return out.Bytes(), nil
}

// filterOverrides returns clean, smudge and process emptied (git then runs
// no filter) for every filter driver any config of the repository at dir
// names, read by a hardened git config. git has no switch for all filters,
// and the attributes that pick one can come from files Atomic cannot
// override, so each name is switched off. A driver's "required" is left as
// configured: a file that needs git-lfs or git-crypt then makes the
// operation fail with git's own words rather than carry the file
// unfiltered (a decrypted secret committed in the clear).
func filterOverrides(ctx context.Context, dir string) ([]string, error) {
	full := []string{"--no-pager"}
	for _, kv := range hardenedConfig() {
		full = append(full, "-c", kv)
	}
	full = append(full, "config", "-z", "--get-regexp", `^filter\.`)
	out, err := runGit(ctx, dir, nil, nil, "config", full)
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 && len(out) == 0 {
			return nil, nil // no filter configured
		}
		return nil, fmt.Errorf("reading the repository's filter drivers: %w", err)
	}
	var kvs []string
	seen := map[string]bool{}
	for _, rec := range strings.Split(string(out), "\x00") {
		key, _, _ := strings.Cut(rec, "\n")
		rest, ok := strings.CutPrefix(key, "filter.")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 {
			continue // filter.<var> with no driver name configures nothing
		}
		name := rest[:i]
		if seen[name] {
			continue
		}
		seen[name] = true
		if strings.ContainsAny(name, "=\n") {
			return nil, fmt.Errorf("the repository's config names a filter driver %q that Atomic cannot switch off on git's command line: remove it from the config", name)
		}
		kvs = append(kvs, "filter."+name+".clean=", "filter."+name+".smudge=", "filter."+name+".process=")
	}
	return kvs, nil
}
