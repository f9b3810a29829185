package runtime

import (
	"slices"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

var companions = []string{"check_task", "wait_for_task", "list_background_tasks", "cancel_task"}

var teamTools = []string{"team_create", "team_spawn", "team_delete", "send_message", "broadcast", "shutdown_request"}

// offered is the tools of the one request rule answered.
func offered(t *testing.T, srv *loopback.Server, rule string) []string {
	t.Helper()
	reqs := loopback.ByRule(srv.Log(), rule)
	if len(reqs) != 1 {
		t.Fatalf("%d requests answered by %s, want 1", len(reqs), rule)
	}
	return reqs[0].Tools
}

// checkOffered fails unless tools has each of want (or, !has, none).
func checkOffered(t *testing.T, when string, tools []string, has bool, want ...string) {
	t.Helper()
	for _, w := range want {
		if slices.Contains(tools, w) != has {
			t.Errorf("%s: %s offered = %v, want %v (tools %v)", when, w, !has, has, tools)
		}
	}
}

func TestMergeWorktreeIsOfferedOnlyOnceAWorktreeExists(t *testing.T) {
	repo := testkit.GitRepo(t, map[string]string{"a.txt": "a\n"})
	h, srv := startWith(t, `
rules:
  - {name: final, match: {system_contains: "You are Atomic", tool_result_contains: "merge_worktree(task_id"}, respond: {text: "done"}}
  - name: isolated
    match: {system_contains: "You are Atomic", tool_result_contains: "plain done"}
    respond: {tool_calls: [{name: task, input: {description: "edit apart", prompt: "ISO", isolation: worktree}}]}
  - name: plain
    match: {system_contains: "You are Atomic", has_tool_results: false}
    respond: {tool_calls: [{name: task, input: {description: "look", prompt: "PLAIN"}}]}
  - {name: plain-sub, match: {first_user_contains: PLAIN}, respond: {text: "plain done"}}
  - {name: iso-done, match: {first_user_contains: ISO, has_tool_results: true}, respond: {text: "iso done"}}
  - {name: iso-edit, match: {first_user_contains: ISO}, respond: {tool_calls: [{name: write, input: {file_path: a.txt, content: "b\n"}}]}}
`, Config{Workspace: tools.Workspace{Root: repo}})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "done" {
		t.Fatalf("outcome %+v", out)
	}
	checkOffered(t, "first request", offered(t, srv, "plain"), false, "merge_worktree")
	checkOffered(t, "after a task without a worktree", offered(t, srv, "isolated"), false, "merge_worktree")
	checkOffered(t, "after an isolated task", offered(t, srv, "final"), true, "merge_worktree")
	for _, rule := range []string{"plain-sub", "iso-edit", "iso-done"} {
		checkOffered(t, "sub-agent "+rule, offered(t, srv, rule), false, "merge_worktree")
		// Below the default depth limit a general-purpose sub-agent nests.
		checkOffered(t, "sub-agent "+rule, offered(t, srv, rule), true, "task")
	}
}

func TestBackgroundTaskCompanionsAreOfferedOnlyOnceABackgroundTaskExists(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: final, match: {system_contains: "You are Atomic", tool_result_contains: "bg done"}, respond: {text: "done"}}
  - name: wait
    match: {system_contains: "You are Atomic", tool_result_contains: "wait_for_task with task_id"}
    respond: {tool_calls: [{name: wait_for_task, input: {task_id: general-purpose-2}}]}
  - name: background
    match: {system_contains: "You are Atomic", tool_result_contains: "sync done"}
    respond: {tool_calls: [{name: task, input: {description: "slow part", prompt: "BG", mode: background}}]}
  - name: sync
    match: {system_contains: "You are Atomic", has_tool_results: false}
    respond: {tool_calls: [{name: task, input: {description: "quick part", prompt: "SYNC"}}]}
  - {name: sync-sub, match: {first_user_contains: SYNC}, respond: {text: "sync done"}}
  - {name: bg-sub, match: {first_user_contains: BG}, respond: {text: "bg done", delay_ms: 100}}
`, Config{})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "done" {
		t.Fatalf("outcome %+v", out)
	}
	checkOffered(t, "first request", offered(t, srv, "sync"), false, companions...)
	checkOffered(t, "after a sync task", offered(t, srv, "background"), false, companions...)
	checkOffered(t, "after a background task started", offered(t, srv, "wait"), true, companions...)
	checkOffered(t, "after waiting for it", offered(t, srv, "final"), true, companions...)
	checkOffered(t, "a sub-agent", offered(t, srv, "bg-sub"), false, companions...)
}

func TestTeamToolsAndTheirPromptAreOfferedOnlyWhenTeamsAreEnabled(t *testing.T) {
	for _, teams := range []bool{false, true} {
		h, srv := startWith(t, `rules: [{name: answer, respond: {text: "hi"}}]`, Config{Teams: teams})
		h.rt.Submit("hello")
		if out := h.await(t); out.Err != nil {
			t.Fatalf("teams %v: %v", teams, out.Err)
		}
		req := srv.Log()[0]
		checkOffered(t, "teams "+map[bool]string{false: "off", true: "on"}[teams], req.Tools, teams, teamTools...)
		// cancel_task stops a teammate outright: it comes with the team.
		checkOffered(t, "cancel_task", req.Tools, teams, "cancel_task")
		if strings.Contains(req.System, "team") != teams {
			t.Errorf("teams %v: the lead's prompt speaks of teams = %v:\n%s", teams, !teams, req.System)
		}
	}
}

// Without --teams the team tools cost no request a byte, yet a model that
// calls them anyway (a script, a model that knows the names) forms its
// team: they are held, not missing.
func TestHeldTeamToolsAreNotOfferedButAModelThatCallsThemStillFormsATeam(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: final, match: {tool_result_contains: "Deleted team"}, respond: {text: "team done"}}
  - {name: woken, match: {has_tool_results: false, last_user_contains: "reviewer"}, respond: {text: "noted"}}
  - name: stop
    match: {tool_result_contains: "Spawned teammate"}
    respond: {tool_calls: [{name: team_delete, input: {}}]}
  - name: spawn
    match: {tool_result_contains: "Created team"}
    respond: {tool_calls: [{name: team_spawn, input: {name: reviewer, role: reviews, prompt: "MATE look"}}]}
  - name: create
    match: {has_tool_results: false, first_user_contains: "form"}
    respond: {tool_calls: [{name: team_create, input: {name: crew}}]}
  - {name: mate, match: {first_user_contains: MATE}, respond: {text: "looked"}}
`, Config{})
	h.rt.Submit("form a team")
	out := h.await(t)
	if out.Err != nil || out.Result != "team done" {
		t.Fatalf("outcome %+v: the held team tools did not run", out)
	}
	checkOffered(t, "teams off", offered(t, srv, "create"), false, teamTools...)
	// Each held tool answered as it does when offered: team_create's
	// result led to the spawn, team_spawn's ("Spawned teammate") to the
	// delete, team_delete's to the final answer. (Whether the teammate got
	// its first request out before the delete stopped it is a race.)
	for _, rule := range []string{"spawn", "stop", "final"} {
		if n := len(loopback.ByRule(srv.Log(), rule)); n != 1 {
			t.Errorf("%d requests answered by %s, want 1", n, rule)
		}
	}
}

func TestShellToolsAreOfferedToAnAgentOnlyOnceItStartsABackgroundShell(t *testing.T) {
	h, srv := startWith(t, `
rules:
  - {name: final, match: {system_contains: "You are Atomic", tool_result_contains: "shell sub done"}, respond: {text: "done"}}
  - name: shell
    match: {system_contains: "You are Atomic", tool_result_contains: "plain done"}
    respond: {tool_calls: [{name: task, input: {description: "run in background", prompt: "SHELL"}}]}
  - name: plain
    match: {system_contains: "You are Atomic", has_tool_results: false}
    respond: {tool_calls: [{name: task, input: {description: "look", prompt: "PLAIN"}}]}
  - {name: plain-sub, match: {first_user_contains: PLAIN}, respond: {text: "plain done"}}
  - {name: shell-after, match: {first_user_contains: SHELL, tool_results_contain_all: ["running in background"]}, respond: {text: "shell sub done"}}
  - {name: shell-start, match: {first_user_contains: SHELL}, respond: {tool_calls: [{name: bash, input: {command: "true", run_in_background: true}}]}}
`, Config{})
	h.rt.Submit("go")
	if out := h.await(t); out.Err != nil || out.Result != "done" {
		t.Fatalf("outcome %+v", out)
	}
	shellTools := []string{"bash_output", "kill_shell"}
	for _, rule := range []string{"plain", "shell", "final"} {
		checkOffered(t, "the lead, which started no shell ("+rule+")", offered(t, srv, rule), false, shellTools...)
	}
	checkOffered(t, "a sub-agent that starts no shell", offered(t, srv, "plain-sub"), true, "bash")
	checkOffered(t, "a sub-agent that starts no shell", offered(t, srv, "plain-sub"), false, shellTools...)
	checkOffered(t, "a sub-agent before its first shell", offered(t, srv, "shell-start"), false, shellTools...)
	after := loopback.ByRule(srv.Log(), "shell-after")
	if len(after) == 0 {
		t.Fatal("the sub-agent made no request after starting its shell")
	}
	checkOffered(t, "a sub-agent after starting a shell", after[0].Tools, true, shellTools...)
}
