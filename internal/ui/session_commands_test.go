package ui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/tools"
)

// gateSession answers the session commands from a real permission gate
// and fixed rows.
type gateSession struct {
	gate     *permission.Gate
	settings []Setting
	sessions []PickerSession
	listErr  error
	checks   []Check
	dirs     map[string]string // path → absolute; others are missing
	added    []string          // what AddDir added
}

func (s *gateSession) Permissions() (string, []permission.RuleInForce) {
	return string(s.gate.Mode()), s.gate.Rules()
}
func (s *gateSession) AllowRule(r string) error { return s.gate.AllowForSession(r) }
func (s *gateSession) DenyRule(r string) error  { return s.gate.DenyForSession(r) }
func (s *gateSession) Settings() []Setting      { return s.settings }
func (s *gateSession) Sessions(context.Context) ([]PickerSession, error) {
	return s.sessions, s.listErr
}
func (s *gateSession) Doctor(context.Context) []Check { return s.checks }
func (s *gateSession) AddDir(p string) (string, error) {
	if abs, ok := s.dirs[p]; ok {
		s.added = append(s.added, abs)
		return abs, nil
	}
	return "", errors.New("--add-dir " + p + ": no such folder")
}

func newGateSession(t *testing.T) *gateSession {
	t.Helper()
	g, err := permission.NewGate(permission.Options{Mode: permission.Default, Root: "/w", Disallowed: []string{"bash(rm:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	return &gateSession{gate: g}
}

func TestPermissionsListsTheRulesInForceAndAddsOnesForTheSession(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 40)
	s := newGateSession(t)
	m.cfg.Session = s
	userAsk(m, "/permissions allow Bash(go test:*)")
	userAsk(m, "/permissions deny web_fetch")
	userAsk(m, "/permissions allow NotebookEdit")
	userAsk(m, "/permissions")
	f := frame(m)
	for _, want := range []string{
		"Allowed Bash(go test:*) for this session (deny rules and plan mode still hold).",
		"Denied web_fetch for this session.",
		`Could not allow NotebookEdit: "NotebookEdit" names no tool Atomic has`,
		"Permissions · mode default",
		"deny  bash(rm:*) · --disallowed-tools",
		"deny  web_fetch · /permissions deny (this session)",
		"allow bash(go test:*) · allowed for this session",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("/permissions lacks %q:\n%s", want, f)
		}
	}
	req := permission.Request{AgentID: "lead", Tool: "bash", Kind: tools.Exec, Subject: "go test ./..."}
	if d, decided := s.gate.Check(req); !decided || !d.Allow {
		t.Errorf("the session allow did not reach the gate: %+v", d)
	}
	req.Subject = "go test ./... && rm -rf /"
	if d, _ := s.gate.Check(req); d.Allow {
		t.Error("/permissions allow widened past --disallowed-tools")
	}
	userAsk(m, "/permissions allow")
	if !strings.Contains(frame(m), "Usage: /permissions") {
		t.Errorf("a rule-less allow is not answered with the usage:\n%s", frame(m))
	}
}

func TestConfigShowsEachSettingAndWhereItComesFrom(t *testing.T) {
	m, _, _ := newTestModel(t, 120, 30)
	m.cfg.Session = &gateSession{settings: []Setting{
		{"model", "claude-sonnet-4-5", "--model"},
		{"max depth", "3", "/home/u/.config/atomic/config.json"},
		{"sandbox", "workspace-write", "default"},
	}}
	userAsk(m, "/config")
	f := frame(m)
	for _, want := range []string{
		"Config (value · where it comes from):",
		"model     claude-sonnet-4-5 · --model",
		"max depth 3 · /home/u/.config/atomic/config.json",
		"sandbox   workspace-write · default",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("/config lacks %q:\n%s", want, f)
		}
	}
}

func TestResumeListsThisFoldersOtherSessionsAndSwitchesToTheOneNamed(t *testing.T) {
	newResumeModel := func() *Model {
		m, _, _ := newTestModel(t, 140, 30)
		m.cfg.Info = func() SessionInfo { return SessionInfo{SessionID: "atomic-now"} }
		m.cfg.Session = &gateSession{sessions: []PickerSession{
			{ID: "atomic-now", Title: "this one", Status: "running", Started: time.Now()},
			{ID: "atomic-old", Title: "fix the parser", Status: "done", Started: time.Now().Add(-2 * time.Hour), Agents: 4},
		}}
		return m
	}
	m := newResumeModel()
	runLater(t, m, ask(m, "/resume"))
	f := frame(m)
	if !strings.Contains(f, "atomic-old · done · 2h ago · 4 agents · fix the parser") || strings.Contains(f, "this one") ||
		!strings.Contains(f, "/resume ID continues one here") {
		t.Errorf("/resume does not list the folder's other sessions alone:\n%s", f)
	}
	runLater(t, m, ask(m, "/resume atomic-elsewhere"))
	if !strings.Contains(frame(m), "No session atomic-elsewhere in this folder") || m.switchTo != "" {
		t.Errorf("an unknown id is not refused:\n%s", frame(m))
	}
	runLater(t, m, ask(m, "/resume atomic-now"))
	if !strings.Contains(frame(m), "This is session atomic-now already.") || m.quitting {
		t.Errorf("the current session is switched to:\n%s", frame(m))
	}
	runLater(t, m, ask(m, "/resume atomic-old"))
	if m.switchTo != "atomic-old" || !m.quitting {
		t.Fatalf("/resume atomic-old: switchTo %q, quitting %v; want the chat to end switching to it", m.switchTo, m.quitting)
	}

	busy := newResumeModel()
	busy.busy = true
	runLater(t, busy, ask(busy, "/resume atomic-old"))
	if busy.switchTo != "" || busy.quitting || !strings.Contains(frame(busy), "Agents are at work") {
		t.Errorf("/resume while the lead works: switchTo %q, quitting %v\n%s", busy.switchTo, busy.quitting, frame(busy))
	}
}

func TestAddDirNamesAMissingFolderAndAddsAnExistingOneInPlace(t *testing.T) {
	m, _, _ := newTestModel(t, 160, 30)
	sess := &gateSession{dirs: map[string]string{"../lib": "/work/lib dir"}}
	m.cfg.Session = sess
	userAsk(m, "/add-dir /nonexistent")
	userAsk(m, "/add-dir ../lib")
	userAsk(m, "/add-dir")
	f := frame(m)
	for _, want := range []string{"--add-dir /nonexistent: no such folder", "Added /work/lib dir to the workspace", "Usage: /add-dir PATH"} {
		if !strings.Contains(f, want) {
			t.Errorf("/add-dir lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "Quit (/exit)") || len(sess.added) != 1 || sess.added[0] != "/work/lib dir" {
		t.Errorf("/add-dir did not add in place: added %q\n%s", sess.added, f)
	}
}

func TestDoctorShowsOneLinePerCheckWithWhatToDo(t *testing.T) {
	m, _, _ := newTestModel(t, 140, 30)
	m.cfg.Session = &gateSession{checks: []Check{
		{Name: "provider", OK: true, Detail: "anthropic listed 3 models"},
		{Name: "git", OK: false, Detail: "not found", Fix: "install git"},
		{Name: "codex CLI", Optional: true, Detail: "codex is not on PATH", Fix: "npm install -g @openai/codex"},
	}}
	runLater(t, m, ask(m, "/doctor"))
	f := frame(m)
	for _, want := range []string{"✓ provider: anthropic listed 3 models", "✗ git: not found → install git", "· codex CLI: codex is not on PATH → npm install -g @openai/codex", "1 of 3 checks failed"} {
		if !strings.Contains(f, want) {
			t.Errorf("/doctor lacks %q:\n%s", want, f)
		}
	}
}

func TestHelpListsPermissionsConfigResumeAddDirAndDoctor(t *testing.T) {
	m, _, _ := newTestModel(t, 140, 70)
	userAsk(m, "/help")
	f := frame(m)
	for _, want := range []string{"/permissions [allow RULE | deny RULE]", "/config", "/resume [ID]", "/add-dir PATH", "/doctor"} {
		if !strings.Contains(f, want) {
			t.Errorf("/help lacks %q", want)
		}
	}
}

func TestSlashMenuCompletesPermissionsAllowAndDeny(t *testing.T) {
	m, _, _ := newTestModel(t, 100, 14)
	typeText(m, "/permissions d")
	if len(m.menu.items) != 1 || m.menu.items[0].insert != "deny" {
		t.Fatalf("menu for /permissions d: %+v", m.menu.items)
	}
}
