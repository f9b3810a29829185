package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/testkit"
)

// The chain: the model, sandboxed, cannot read ~/.ssh; it tries to
// plant hooks that run even with --no-verify, core.fsmonitor and a filter
// driver in .git/config, then has an isolated sub-agent edit a file and
// merges its worktree: Atomic's own git, which runs outside the sandbox,
// would run every one of them as the user. The sandbox refuses the plant
// (the hooks and config are shielded), so the test plants the same
// programs itself before the run (as a run with --sandbox off could
// have): none may run during Atomic's git, and the merge still lands.
func TestAGitHookOrConfiguredProgramPlantedByTheModelDoesNotRunWhenAtomicMakesAndMergesAWorktree(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "one\n"})
	loot := t.TempDir() // outside the workspace: the sandbox keeps the model's commands from writing it
	marker := filepath.Join(loot, "ran")
	payload := "#!/bin/sh\necho \"$0\" >> " + marker + "\ncat \"$HOME/.ssh/id_x\" >> " + marker + " 2>/dev/null\ncat\n"
	plant := "mkdir -p .git/hooks && cat > .git/evil <<'EOF'\n" + payload + "EOF\nchmod +x .git/evil && " +
		"for h in post-checkout post-commit post-index-change reference-transaction pre-commit commit-msg; do cp .git/evil .git/hooks/$h; done && " +
		"git config core.fsmonitor \"$PWD/.git/evil\" && git config filter.evil.clean \"$PWD/.git/evil\" && " +
		"git config filter.evil.smudge \"$PWD/.git/evil\" && git config diff.external \"$PWD/.git/evil\" && " +
		"echo '*.txt filter=evil' > .gitattributes && echo PLANTED"
	bash, _ := json.Marshal(map[string]string{"command": plant, "description": "plant"})
	srv := server(t, `
rules:
  - {name: sub-done, match: {first_user_contains: EDIT-ONE, has_tool_results: true}, respond: {text: "edited"}}
  - name: sub-edit
    match: {first_user_contains: EDIT-ONE}
    respond: {tool_calls: [{name: write, input: {file_path: a.txt, content: "one, by the agent\n"}}]}
  - {name: done, match: {tool_result_contains: "Merged branch"}, respond: {text: "MERGED"}}
  - name: merge
    match: {tool_result_contains: "merge_worktree(task_id"}
    respond: {tool_calls: [{name: merge_worktree, input: {task_id: general-purpose-1}}]}
  - name: spawn
    match: {tool_result_contains: "blocked this"}
    respond: {tool_calls: [{name: task, input: {description: "edit a file", prompt: "EDIT-ONE", isolation: worktree}}]}
  - name: plant
    match: {has_tool_results: false}
    respond: {tool_calls: [{name: bash, input: `+string(bash)+`}]}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := command(t, ctx, srv, "anthropic", repo, "-p", "plant and delegate", "--permission-mode", "bypassPermissions")
	for _, kv := range cmd.Env {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			os.MkdirAll(filepath.Join(h, ".ssh"), 0o700)
			os.WriteFile(filepath.Join(h, ".ssh", "id_x"), []byte("PRIVATE KEY\n"), 0o600)
		}
	}
	pre := exec.Command("/bin/bash", "-c", plant)
	pre.Dir = repo
	if out, err := pre.CombinedOutput(); err != nil || !strings.Contains(string(out), "PLANTED") {
		t.Fatalf("planting before the run: %v %s", err, out)
	}
	config, _ := readFile(repo, ".git/config")
	r := runCmd(t, cmd)
	if r.code != 0 || !strings.Contains(r.stdout, "MERGED") {
		t.Fatalf("code %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if got, _ := readFile(repo, ".git/config"); got != config {
		t.Fatalf("the model's command changed .git/config:\n%s", got)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a program the model planted ran as the user during Atomic's git:\n%s", b)
	}
	if got, _ := readFile(repo, "a.txt"); got != "one, by the agent\n" {
		t.Errorf("the merge did not land: a.txt is %q", got)
	}
}
