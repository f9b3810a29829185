package ui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/skills"
)

// loadedSkills is the chat's Skills over a real skills folder, loading an
// invoked one with skills.Instructions as the CLI does; granted records
// the allowed-tools it was given.
type loadedSkills struct {
	set     *skills.Set
	granted [][]string
}

func (l *loadedSkills) List() []SkillCommand {
	var out []SkillCommand
	for _, sk := range l.set.All() {
		out = append(out, SkillCommand{Name: sk.Name, Description: sk.Description, Scope: sk.Scope})
	}
	return out
}

func (l *loadedSkills) Expand(text string) (string, func(), bool, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	sk, ok := l.set.Get(name)
	if !ok {
		return "", nil, false, nil
	}
	var rules []string
	body, err := sk.Instructions(args, func(r []string) error { rules = r; return nil })
	return "skill " + sk.Name + ":\n" + body, func() { l.granted = append(l.granted, rules) }, true, err
}

// turnBackend is a Backend that runs a prompt's start when told its turn
// starts, as the run does.
type turnBackend struct {
	*fakeBackend
	starts []func()
}

func (b *turnBackend) SubmitAtStart(p string, start func()) {
	b.Submit(p)
	b.starts = append(b.starts, start)
}

func newSkillsModel(t *testing.T) (*Model, *fakeBackend, *loadedSkills, string) {
	t.Helper()
	m, b, root := newProjectModel(t, map[string]string{
		".claude/skills/pdf/SKILL.md":    "---\nname: pdf\ndescription: Fill PDF forms\nallowed-tools: Read\n---\nFill the form $ARGUMENTS with forms.py.",
		".claude/skills/pdf/forms.py":    "print(1)",
		".claude/skills/review/SKILL.md": "---\nname: review\ndescription: My review\n---\nReview my way.",
		".claude/skills/fix/SKILL.md":    "---\nname: fix\ndescription: Skill fix\n---\nFix as the skill says.",
		".claude/commands/fix.md":        "---\ndescription: Fix an issue\n---\nFix issue $1.",
	})
	set, problems := skills.Load(skills.Dirs(root, ""))
	if len(problems) != 0 {
		t.Fatalf("skill problems: %v", problems)
	}
	l := &loadedSkills{set: set}
	m.cfg.Skills = l
	return m, b, l, root
}

func TestSlashMenuOffersSkillsAndSaysWhichCommandRunsInsteadOfOne(t *testing.T) {
	m, _, _, _ := newSkillsModel(t)
	typeText(m, "/p")
	var pdf *suggestion
	for i, it := range m.menu.items {
		if it.insert == "/pdf" {
			pdf = &m.menu.items[i]
		}
	}
	if pdf == nil || pdf.detail != "Fill PDF forms (skill, project)" {
		t.Fatalf("menu for /p lacks the skill pdf as a skill: %+v", m.menu.items)
	}
	m.in.reset()
	typeText(m, "/f")
	if len(m.menu.items) != 1 || m.menu.items[0].insert != "/fix" || !strings.Contains(m.menu.items[0].detail, "Fix an issue (project) · runs instead of the skill fix") {
		t.Errorf("the command fix should be the one row and name the skill it hides: %+v", m.menu.items)
	}
	m.in.reset()
	typeText(m, "/rev")
	if len(m.menu.items) != 1 || !strings.Contains(m.menu.items[0].detail, "runs instead of the skill review") {
		t.Errorf("the built-in /review should be the one row and name the skill it hides: %+v", m.menu.items)
	}
}

func TestHelpListsSkillsAndTheOnesACommandHides(t *testing.T) {
	m, _, _, _ := newSkillsModel(t)
	userAsk(m, "/help")
	f := frame(m)
	for _, want := range []string{"Skills (/name args loads one for the lead):", "/pdf                Fill PDF forms (skill, project)",
		"/fix                not invocable here: the command /fix runs instead", "/review             not invocable here: the command /review runs instead"} {
		if !strings.Contains(f, want) {
			t.Errorf("/help lacks %q:\n%s", want, f)
		}
	}
}

func TestInvokingASkillSendsTheLeadItsInstructionsAndShowsWhatWasTyped(t *testing.T) {
	m, b, l, root := newSkillsModel(t)
	m.in.ta.SetValue("/pdf tax.pdf")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(b.submitted) != 0 {
		t.Fatalf("submitted %q before the skill was loaded", b.submitted)
	}
	m.Update(awaitMsg[commandReadyMsg](t, cmd))
	if len(b.submitted) != 1 {
		t.Fatalf("submitted %q, want the loaded skill", b.submitted)
	}
	got := b.submitted[0]
	for _, want := range []string{"skill pdf:", "Base directory for this skill: " + filepath.Join(root, ".claude/skills/pdf"), "forms.py", "Fill the form tax.pdf with forms.py."} {
		if !strings.Contains(got, want) {
			t.Errorf("the lead's prompt lacks %q:\n%s", want, got)
		}
	}
	if len(l.granted) != 1 || strings.Join(l.granted[0], ",") != "Read" {
		t.Errorf("granted %q, want the skill's allowed-tools once", l.granted)
	}
	tb := &turnBackend{fakeBackend: b}
	m.cfg.Backend = tb
	m.in.ta.SetValue("/pdf again.pdf")
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(awaitMsg[commandReadyMsg](t, cmd))
	if len(b.submitted) != 2 || len(tb.starts) != 1 || len(l.granted) != 1 {
		t.Fatalf("submitted %q, %d starts, granted %q: the grant should wait for the prompt's turn", b.submitted, len(tb.starts), l.granted)
	}
	tb.starts[0]()
	if len(l.granted) != 2 {
		t.Errorf("granted %q after the turn started, want the allowed-tools again", l.granted)
	}
	if f := frame(m); !strings.Contains(f, "/pdf tax.pdf") || strings.Contains(f, "Fill the form") {
		t.Errorf("the transcript should show what was typed, not the skill:\n%s", f)
	}
	userAsk(m, "/fix 7") // the command file wins over the skill
	if len(b.submitted) != 3 || b.submitted[2] != "Fix issue 7." {
		t.Errorf("submitted %q, want the command file's prompt", b.submitted)
	}
}
