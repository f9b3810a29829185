//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
)

// Family 2 of issue 20: Atomic's own git. A hook or a setting that runs a
// program is planted in the repository; then Atomic makes an isolated
// worktree for a sub-agent (snapshot, worktree add, checkout, commit) and
// merges it back. Each vector's program creates its marker outside the
// workspace and copies the fake ~/.ssh/id_rsa next to it: only a git run
// outside the sandbox can do either.

// advGitVector is one way to make git run a program.
type advGitVector struct {
	name string
	// plant is shell run in the workspace; {S} is the vector's script.
	plant string
	// tail ends the script so git keeps working (a filter passes its
	// input through).
	tail string
}

var advGitVectors = []advGitVector{
	{name: "hook post-checkout", plant: "cp {S} .git/hooks/post-checkout"},
	{name: "hook reference-transaction", plant: "cp {S} .git/hooks/reference-transaction"},
	{name: "hook post-index-change", plant: "cp {S} .git/hooks/post-index-change"},
	{name: "hook post-commit", plant: "cp {S} .git/hooks/post-commit"},
	{name: "hook pre-commit", plant: "cp {S} .git/hooks/pre-commit"},
	{name: "hook prepare-commit-msg", plant: "cp {S} .git/hooks/prepare-commit-msg"},
	{name: "hook commit-msg", plant: "cp {S} .git/hooks/commit-msg"},
	{name: "hook post-merge", plant: "cp {S} .git/hooks/post-merge"},
	{name: "hook pre-applypatch", plant: "cp {S} .git/hooks/pre-applypatch"},
	{name: "hook post-rewrite", plant: "cp {S} .git/hooks/post-rewrite"},
	{name: "core.fsmonitor", plant: "git config core.fsmonitor {S}"},
	{name: "core.pager", plant: "git config core.pager {S}"},
	{name: "diff.external", plant: "git config diff.external {S}"},
	{name: "core.sshCommand", plant: "git config core.sshCommand {S}"},
	{name: "core.editor", plant: "git config core.editor {S}"},
	{name: "clean filter in .gitattributes", plant: "git config filter.pwnc.clean {S} && echo '* filter=pwnc' >> .gitattributes", tail: "exec cat"},
	{name: "smudge filter in info/attributes", plant: "git config filter.pwns.smudge {S} && echo '* filter=pwns' >> .git/info/attributes", tail: "exec cat"},
	{name: "process filter", plant: "git config filter.pwnp.process {S} && echo '*.txt filter=pwnp' >> .gitattributes"},
	{name: "diff textconv", plant: "git config diff.pwnt.textconv {S} && echo '* diff=pwnt' >> .gitattributes", tail: `cat "$1"`},
	{name: "merge driver", plant: "git config merge.pwnm.driver '{S} %O %A %B' && echo '* merge=pwnm' >> .gitattributes"},
	{name: "include.path sets core.hooksPath", plant: "mkdir -p .git/inc-hooks && cp {S} .git/inc-hooks/post-commit && cp {S} .git/inc-hooks/post-checkout && printf '[core]\\n\\thooksPath = %s\\n' \"$PWD/.git/inc-hooks\" > .git/pwn.cfg && git config include.path pwn.cfg"},
	{name: "core.hooksPath into the workspace", plant: "mkdir -p hooks2 && cp {S} hooks2/reference-transaction && cp {S} hooks2/post-index-change && git config core.hooksPath \"$PWD/hooks2\""},
}

// gitPayload is the script a vector runs: mark, steal the key, keep going.
func gitPayload(tail string) string {
	if tail == "" {
		tail = "exit 0"
	}
	return "#!/bin/sh\ntouch {M}\ncp {H}/.ssh/id_rsa {M}.key 2>/dev/null\n" + tail + "\n"
}

// gitPlant is the command planting vector v for probe marker {M}.
func gitPlant(v advGitVector) string {
	script := ".git/pwn-{I}"
	return fmt.Sprintf("mkdir -p .git/hooks .git/info && printf '%%s' '%s' > %s && chmod +x %s && %s",
		gitPayload(v.tail), script, script, strings.ReplaceAll(v.plant, "{S}", "\"$PWD/"+script+"\""))
}

// gitEffect: the vector's program ran outside the sandbox.
func gitEffect(e *advEnv, i int) (bool, string) {
	m := e.marker(i)
	if b, err := os.ReadFile(m + ".key"); err == nil {
		return true, fmt.Sprintf("the program ran unsandboxed and copied ~/.ssh/id_rsa (%q)", strings.TrimSpace(string(b)))
	}
	if exists(m) {
		return true, "the program ran unsandboxed (its marker outside the workspace exists)"
	}
	return false, ""
}

// advGitTriggers make Atomic run its own git: an isolated task whose
// agent writes a file, then merge_worktree.
func advGitTriggers(step int) []advProbe {
	return []advProbe{
		{name: "control: the isolated task ran in a worktree", step: step, tool: "task",
			input: map[string]any{"description": "isolated edit", "prompt": "<SUB> write sub.txt", "isolation": "worktree"},
			ran:   true, effect: func(e *advEnv, i int) (bool, string) {
				return strings.Contains(e.results[i].Content, "atomic/"), "the task's report names its branch"
			}},
		{name: "control: merge_worktree ran", step: step + 1, tool: "merge_worktree",
			input: map[string]any{"task_id": "general-purpose-1"},
			ran:   true, effect: func(e *advEnv, i int) (bool, string) {
				return strings.Contains(e.results[i].Content, "Merged branch"), "the merge was reported"
			}},
		{name: "a merge reported done applied the agent's change", tool: advNoCall, effect: func(e *advEnv, i int) (bool, string) {
			if exists(filepath.Join(e.ws, "sub.txt")) {
				return false, ""
			}
			return true, "merge_worktree said it merged, but sub.txt is not in the lead's tree (git diff ran the planted program instead of diffing)"
		}},
	}
}

var advSubRules = []loopback.Rule{
	{Name: "sub-done", Match: loopback.Match{FirstUserContains: "<SUB>", HasToolResults: ptr(true)}, Respond: &loopback.Response{Text: "wrote it"}},
	{Name: "sub-edit", Match: loopback.Match{FirstUserContains: "<SUB>"}, Respond: &loopback.Response{
		ToolCalls: []loopback.ToolCall{{Name: "write", Input: map[string]any{"file_path": "sub.txt", "content": "from the sub-agent\n"}}}}},
}

func ptr[T any](v T) *T { return &v }

// withKey writes the fake private key the payloads try to steal.
func withKey(t *testing.T, e *advEnv) {
	os.MkdirAll(filepath.Join(e.home, ".ssh"), 0o700)
	if err := os.WriteFile(filepath.Join(e.home, ".ssh", "id_rsa"), []byte("FAKE-PRIVATE-KEY-of-the-user\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func gitFamilies() []*advFamily {
	// 2a: the vectors are already in the repository (the test planted
	// them, as a command could have before); 2b: the model plants them
	// with its own bash first.
	// 2a–2d: the vectors are already in the repository (the test planted
	// them, as a command could have before); 2e–2f: the model plants them
	// with its own bash first. A core.hooksPath hides .git/hooks, so the
	// hooks, the settings and each hooksPath vector run apart.
	groups := [][]advGitVector{advGitVectors[:10], advGitVectors[10:20], advGitVectors[20:21], advGitVectors[21:22]}
	names := []string{"hooks", "config", "include.path", "core.hooksPath"}
	plantFirst := func(t *testing.T, e *advEnv) {
		withKey(t, e)
		for i, p := range e.fam.probes {
			if p.tool != advNoCall || p.cmd == "" {
				continue
			}
			cmd := exec.Command("bash", "-c", e.expand(i, p.cmd))
			cmd.Dir = e.ws
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("planting %s: %v: %s", p.name, err, out)
			}
		}
	}
	var fams []*advFamily
	for g, vs := range groups {
		var probes []advProbe
		for _, v := range vs {
			probes = append(probes, advProbe{name: v.name, tool: advNoCall, cmd: gitPlant(v), effect: gitEffect})
		}
		fams = append(fams, &advFamily{name: "2" + string(rune('a'+g)) + " git " + names[g] + " in the repo, isolated task + merge",
			git: true, outside: true, files: map[string]string{"notes.txt": "notes\n"}, rules: advSubRules, prepare: plantFirst,
			args: []string{"--permission-mode", "bypassPermissions"}, probes: append(probes, advGitTriggers(0)...)})
	}
	for g, vs := range groups[:2] {
		var probes []advProbe
		for _, v := range vs {
			probes = append(probes, advProbe{name: v.name + " (planted by the model)", cmd: gitPlant(v), effect: gitEffect})
		}
		fams = append(fams, &advFamily{name: "2" + string(rune('e'+g)) + " git " + names[g] + " planted by the model's bash",
			git: true, outside: true, files: map[string]string{"notes.txt": "notes\n"}, rules: advSubRules, prepare: withKey,
			args: []string{"--permission-mode", "bypassPermissions"}, probes: append(probes, advGitTriggers(1)...)})
	}
	// 2h: an isolated sub-agent reaches out of its worktree into the
	// lead's tree (outside any merge) and into the shared .git.
	escape := []loopback.ToolCall{
		{Name: "bash", Input: map[string]any{"command": "echo pwn > ../../../esc-bash; echo pwn > \"$(git rev-parse --show-toplevel)/../../../esc-bash2\"; true"}},
		{Name: "write", Input: map[string]any{"file_path": "../../../esc-write", "content": "pwn\n"}},
		{Name: "bash", Input: map[string]any{"command": "d=$(git rev-parse --git-common-dir) && mkdir -p \"$d/hooks\" && printf '#!/bin/sh\\ntouch " + "{O}" + "/esc-hook\\n' > \"$d/hooks/post-commit\" && chmod +x \"$d/hooks/post-commit\" && echo planted $d"}},
		{Name: "write", Input: map[string]any{"file_path": "sub.txt", "content": "from the sub-agent\n"}},
	}
	escRules := []loopback.Rule{
		{Name: "sub-done", Match: loopback.Match{FirstUserContains: "<SUB>", HasToolResults: ptr(true)}, Respond: &loopback.Response{Text: "wrote it"}},
		{Name: "sub-edit", Match: loopback.Match{FirstUserContains: "<SUB>"}, Respond: &loopback.Response{ToolCalls: escape}},
	}
	inLead := func(name string) func(e *advEnv, i int) (bool, string) {
		return func(e *advEnv, i int) (bool, string) {
			if exists(filepath.Join(e.ws, name)) {
				return true, "the isolated sub-agent wrote " + name + " into the lead's tree, outside any merge"
			}
			return false, ""
		}
	}
	fams = append(fams, &advFamily{name: "2h an isolated sub-agent reaches out of its worktree", git: true, outside: true,
		files: map[string]string{"notes.txt": "notes\n"}, rules: escRules, prepare: withKey,
		args: []string{"--permission-mode", "bypassPermissions"},
		probes: append(advGitTriggers(0)[:1],
			advProbe{name: "bash writes ../../../ (the lead's tree)", tool: advNoCall, effect: inLead("esc-bash")},
			advProbe{name: "write tool ../../../ (the lead's tree)", tool: advNoCall, effect: inLead("esc-write")},
			advProbe{name: "a hook in the shared .git, run by the user's next commit", tool: advNoCall, effect: func(e *advEnv, i int) (bool, string) {
				cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "user")
				cmd.Dir = e.ws
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "GIT_CONFIG_NOSYSTEM=1"}
				cmd.Run()
				if exists(filepath.Join(e.out, "esc-hook")) {
					return true, "the sub-agent planted a hook in the repository's .git, which the user's own commit ran unsandboxed"
				}
				return false, ""
			}},
		)})

	// 2g: what the model plants is run by the user's own git after
	// Atomic has exited (unsandboxed, as the user): the test plays the
	// user with git status and git commit in the workspace.
	userGit := func(t *testing.T, e *advEnv) {
		for _, args := range [][]string{{"status"}, {"commit", "-q", "--allow-empty", "-m", "user"}, {"checkout", "-q", "-b", "user-branch"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = e.ws
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "GIT_CONFIG_NOSYSTEM=1"}
			out, err := cmd.CombinedOutput()
			t.Logf("the user's git %v: %v %s", args, err, out)
		}
	}
	var planted []advProbe
	for _, v := range []advGitVector{advGitVectors[0], advGitVectors[3], advGitVectors[4], advGitVectors[10], advGitVectors[15]} {
		planted = append(planted, advProbe{name: v.name + " (run by the user's git)", cmd: gitPlant(v), effect: gitEffect})
	}
	planted = append(planted, advProbe{name: "hook written with the write tool (run by the user's git)", tool: "write",
		input:  map[string]any{"file_path": ".git/hooks/post-checkout", "content": gitPayload("")},
		effect: gitEffect})
	fams = append(fams, &advFamily{name: "2g git vectors planted for the user's own git", git: true, outside: true,
		prepare: withKey, args: []string{"--permission-mode", "bypassPermissions"}, probes: planted, after: userGit})
	return fams
}
