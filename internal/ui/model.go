package ui

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-agent/atomic/internal/commands"
	"github.com/atomic-agent/atomic/internal/memory"
	"github.com/atomic-agent/atomic/internal/permission"
)

// Config builds a chat Model.
type Config struct {
	Backend Backend
	// Approvals is the run's approval queue (nil: nothing ever asks).
	Approvals *Approvals
	// Team is the run's team control (nil: no team).
	Team TeamControl
	// Worktrees is what /worktrees lists, merges and discards (nil: none).
	Worktrees WorktreeControl
	// Theme defaults to DefaultTheme.
	Theme *Theme
	// Now is the clock (nil: time.Now); tests fix it for stable frames.
	Now func() time.Time
	// Subject names the argument that matters of a tool call; nil picks
	// it from the input by field name.
	Subject func(tool string, input json.RawMessage) string
	// Welcome lines open the transcript (provider, warnings).
	Welcome []string
	// Past is a resumed session's history, shown before the first frame.
	Past *Past
	// Memory is the project memory /memory lists (nil: none loaded).
	Memory *memory.Memory
	// Commands are the custom slash commands (nil: none).
	Commands *commands.Set
	// RenderCommand makes a command file's prompt, running its !`commands`
	// and reading its @paths (they may ask for approval, so it runs off
	// the UI's loop); nil: the prompt is Expand's.
	RenderCommand func(ctx context.Context, c commands.Command, args string) (string, error)
	// Skills are offered as slash commands after the commands (nil: none).
	Skills Skills
	// Info is what /status, /export and /diff say of the session (nil:
	// nothing beyond the run).
	Info func() SessionInfo
	// Session answers /permissions, /config, /resume, /add-dir and
	// /doctor (nil: no session to ask).
	Session Session
	// Input features (prefixes.go, complete.go, search.go); each nil or
	// empty turns its feature off. Workspace is the root @ paths resolve
	// in and # adds memory to; Files lists it for @ completion; Attach
	// reads an @ file, Shell runs a ! command (both behind the permission
	// gate); Modes is the gate Shift+Tab switches; History the folder's
	// stored prompts, oldest first, for Ctrl+R.
	Workspace string
	Files     func(ctx context.Context, limit int) ([]string, error)
	Attach    func(ctx context.Context, path string) (string, error)
	Shell     func(ctx context.Context, command string) (string, error)
	Modes     Modes
	History   []string
	// LoadHistory reads the folder's stored prompts at the first Ctrl+R
	// (they go before History); nil: none.
	LoadHistory func() []string
	// AltScreen draws the whole chat on the alternate screen, scrolled
	// with PgUp/PgDn; false (the default) prints the finished transcript
	// into the terminal's scrollback and redraws only the live part.
	AltScreen bool
}

// tickInterval is how often elapsed times are refreshed while agents run.
const tickInterval = 500 * time.Millisecond

// quitWindow is how soon a second ctrl+c must follow the first to quit.
const quitWindow = 2 * time.Second

// tickMsg refreshes the clock.
type tickMsg time.Time

// Model is the chat screen. It is a tea.Model; every frame is computed from
// its state, which only Update changes.
type Model struct {
	cfg   Config
	theme Theme
	md    markdown

	width, height int
	now           time.Time
	model         string
	// leadBackend is where the lead runs (from its session.start): a tree
	// whose rows run elsewhere names each row's backend.
	leadBackend string

	tr     transcript
	in     input
	menu   menu
	files  []string // the workspace's files, listed at the first @
	search *search  // Ctrl+R's search, nil when none
	// pending is context for the next prompt: ! output, # lines.
	pending   []string
	streaming *assistantEntry
	// cut is the lead's message an interrupt ended, until its complete
	// (which carries the partial text) or the turn's end.
	cut *assistantEntry
	// thinking is the lead's thinking still streaming, nil when none.
	thinking *thinkingEntry
	tools    map[string]*toolEntry

	trees       []*treeEntry
	treeByCall  map[string]*treeEntry
	treeByAgent map[string]*treeEntry
	openTree    *treeEntry
	openSeq     int
	leadSeq     int
	team        *teamEntry

	usage usageInfo
	// changed are the files each sub-agent's edit tools touched (/diff).
	changed map[string][]string
	// later is a command a slash command left for Update to return.
	later tea.Cmd
	// atStart is what the next prompt sent runs as its turn starts (an
	// invoked skill's grant).
	atStart func()
	// busy is set from a prompt's submission to its turn's end: it covers
	// the moment before the lead's record says it runs (working).
	busy bool
	// clearing is set by /clear until the runtime's reset event: what
	// arrives meanwhile belongs to the cleared conversation.
	clearing bool
	expanded bool
	offset   int // transcript lines scrolled up from the bottom (AltScreen)
	sb       scrollback
	ticking  bool

	approval    *permission.Request // the request shown, head of the queue
	approvalSel int
	waiting     int // requests in the approval queue
	tasks       *tasksPanel
	rewind      *rewindPanel
	idleEsc     time.Time // an Esc on an idle, empty input: a second opens /rewind

	lastCtrlC time.Time
	lastEsc   time.Time // an Esc that left background work running
	hint      string    // a one-line notice above the input
	waits     waits     // retry countdowns and the hint's expiry (waits.go)
	quitting  bool
	switchTo  string // a session /resume chose to continue in this one's place
}

// New returns the chat model for cfg.
func New(cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	th := DefaultTheme()
	if cfg.Theme != nil {
		th = *cfg.Theme
	}
	m := &Model{
		cfg: cfg, theme: th, width: 80, height: 24, now: cfg.Now(),
		in:    newInput(th),
		tools: map[string]*toolEntry{}, treeByCall: map[string]*treeEntry{}, treeByAgent: map[string]*treeEntry{},
	}
	if cfg.Backend != nil {
		m.model = cfg.Backend.Model()
	}
	for _, w := range cfg.Welcome {
		m.note(noteInfo, w)
	}
	if cfg.Past != nil {
		m.replay(*cfg.Past)
	}
	m.in.setWidth(m.width)
	return m
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.now = m.cfg.Now()
	m.expireWaits()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.in.setWidth(m.width)
		m.sb.sized, m.sb.high = true, 0
	case tea.ColorProfileMsg:
		m.sb.profile, m.sb.hasProfile = msg.Profile, true
	case printedMsg:
		m.sb.printing = false
	case eventsMsg:
		m.applyEvents(msg.Events)
		m.observeWaits(msg.Events)
		if msg.Approvals {
			m.refreshApproval()
		}
	case tickMsg:
		m.ticking = false
	case noteMsg:
		m.note(noteWarning, string(msg))
	case compactDoneMsg:
		m.compactDone(msg)
	case rewindDoneMsg:
		m.rewindDone(msg)
	case commandReadyMsg:
		m.commandReady(msg)
	case modelListedMsg:
		m.modelListed(msg)
	case diffMsg:
		m.diffReady(msg)
	case resumeListedMsg:
		m.resumeListed(msg)
	case doctorMsg:
		m.doctorDone(msg)
	case shellDoneMsg:
		m.shellDone(msg)
	case mentionsReadyMsg:
		m.send(msg.typed, msg.prompt)
	case tea.KeyPressMsg:
		cmd = m.key(msg)
		m.refreshMenu()
	case tea.PasteMsg:
		if m.approval == nil && m.tasks == nil && m.search == nil && m.rewind == nil {
			cmd = m.in.update(msg)
			m.refreshMenu()
		}
	}
	if m.quitting {
		return m, m.quitCmd()
	}
	cmd, m.later = tea.Batch(cmd, m.later), nil
	return m, tea.Batch(cmd, m.tick(), m.flush())
}

// tick schedules the next clock refresh while any agent is active or a
// countdown or timed notice is shown, so they keep moving with no events.
func (m *Model) tick() tea.Cmd {
	if m.ticking || (m.activeAgents() == 0 && !m.timed()) {
		return nil
	}
	m.ticking = true
	return tea.Tick(tickInterval, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// refreshApproval shows the head of the approval queue.
func (m *Model) refreshApproval() {
	if m.cfg.Approvals == nil {
		return
	}
	req, ok := m.cfg.Approvals.Head()
	m.waiting = m.cfg.Approvals.Len()
	switch {
	case !ok:
		m.approval = nil
	case m.approval == nil || m.approval.ID != req.ID:
		m.approval, m.approvalSel = &req, 0
	}
}

// View implements tea.Model.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = m.cfg.AltScreen
	v.WindowTitle = "atomic"
	return v
}

// Render is the frame as a string of lines of at most width cells: inline,
// the live region (scrollback.go); on the alternate screen, height lines.
func (m *Model) Render() string {
	if !m.cfg.AltScreen {
		return m.inlineFrame()
	}
	bottom := m.bottom()
	h := max(m.height-len(bottom), 1)
	lines, off := m.tr.window(m.renderCtx(), h, m.offset)
	m.offset = off
	var b strings.Builder
	b.Grow((len(lines) + len(bottom) + h) * (m.width + 16))
	for range h - len(lines) {
		b.WriteByte('\n')
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for i, l := range bottom {
		b.WriteString(l)
		if i < len(bottom)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (m *Model) renderCtx() *renderCtx {
	return &renderCtx{Width: m.width, Expanded: m.expanded, Now: m.now, Theme: m.theme, md: &m.md, LeadBackend: m.leadBackend}
}

// bottom is everything under the transcript: a notice, the approval prompt
// or the tasks panel, the input and the status line.
func (m *Model) bottom() []string {
	var out []string
	if m.hint != "" {
		out = append(out, fit(m.theme.accent().Render(m.hint), m.width))
	}
	out = append(out, m.theme.muted().Render(strings.Repeat("─", max(m.width, 1))))
	switch {
	case m.approval != nil:
		out = append(out, m.approvalView()...)
	case m.tasks != nil:
		out = append(out, m.tasks.view(m)...)
	case m.rewind != nil:
		out = append(out, m.rewind.view(m)...)
	case m.search != nil:
		out = append(out, m.searchView()...)
	default:
		out = append(out, strings.Split(m.in.view(), "\n")...)
		out = append(out, m.menuView()...)
	}
	out = append(out, m.statusLine().render(m.theme, m.width))
	return out
}

func (m *Model) statusLine() statusLine {
	s := statusLine{Model: m.model, Usage: m.usage, ActiveAgents: m.activeAgents(), Busy: m.working(), Expanded: m.expanded}
	if m.team != nil {
		s.ActiveTeammates = m.team.active()
	}
	s.Approvals = m.waiting
	s.Mode = m.modeLabel()
	s.Retry = m.retryText()
	return s
}
