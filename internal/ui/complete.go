package ui

import (
	"context"
	"path"
	"slices"
	"strings"
)

// menuRows is the most suggestions the menu shows at once.
const menuRows = 6

// maxMentionFiles bounds the files listed for @ completion.
const maxMentionFiles = 20000

// suggestion is one row of the completion menu: insert replaces the token
// being typed; detail says what it is.
type suggestion struct {
	insert, detail string
}

// menu is the completion menu under the input: slash commands and their
// arguments, or files for an @ mention, for the token at the end of the
// input (where the cursor is while typing).
type menu struct {
	items []suggestion
	sel   int
	start int  // byte offset of the token the pick replaces
	file  bool // an @ mention (enter picks) rather than a command (enter runs)
	// shut is the input Esc closed the menu on: it stays closed until the
	// input changes.
	shut string
	// of is the input the items were computed for.
	of string
}

func (mn *menu) open() bool { return len(mn.items) > 0 }

// subcommands are a built-in command's first arguments, completed after
// "/name ".
func subcommands(name string) []suggestion {
	switch name {
	case "/tasks":
		return []suggestion{{"cancel", "cancel a background task: /tasks cancel ID"}, {"resume", "continue an interrupted task: /tasks resume ID"}}
	case "/team":
		return []suggestion{{"send", "message a teammate: /team send NAME TEXT"}, {"stop", "stop a teammate: /team stop NAME"}}
	case "/worktrees":
		return []suggestion{{"merge", "apply an isolated agent's worktree: /worktrees merge ID"}, {"discard", "drop one: /worktrees discard ID"}}
	case "/permissions":
		return []suggestion{{"allow", "allow a rule for this session: /permissions allow RULE"}, {"deny", "deny a rule for this session: /permissions deny RULE"}}
	}
	return nil
}

// refreshMenu recomputes the menu for the input as it now is.
func (m *Model) refreshMenu() {
	v := m.in.value()
	if v == m.menu.of {
		return
	}
	sel := m.menu.sel
	m.menu = menu{of: v, shut: m.menu.shut}
	if v == m.menu.shut {
		return
	}
	m.menu.shut = ""
	switch {
	case strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n"):
		m.menu.items = m.commandSuggestions(strings.ToLower(v))
	case strings.HasPrefix(v, "/") && !strings.Contains(v, "\n"):
		name, arg, _ := strings.Cut(v, " ")
		if strings.Contains(arg, " ") {
			break
		}
		for _, s := range subcommands(strings.ToLower(name)) {
			if strings.HasPrefix(s.insert, strings.ToLower(arg)) && s.insert != arg {
				m.menu.items = append(m.menu.items, s)
			}
		}
		m.menu.start = len(name) + 1
	default:
		i := strings.LastIndexAny(v, " \n\t") + 1
		if tok := v[i:]; strings.HasPrefix(tok, "@") {
			m.menu.items, m.menu.start, m.menu.file = m.fileSuggestions(tok[1:]), i, true
		}
	}
	if sel < len(m.menu.items) && m.menu.file {
		m.menu.sel = sel // typing on keeps the row picked while it is still there
	}
}

// commandSuggestions are the built-in and custom commands and the skills
// starting with
// prefix, each with its line of /help.
func (m *Model) commandSuggestions(prefix string) []suggestion {
	help := map[string]string{}
	for _, l := range strings.Split(helpText, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "/") {
			help[f[0]] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), f[0]))
		}
	}
	var out []suggestion
	for _, name := range BuiltinCommands() {
		if name != "/?" && strings.HasPrefix(name, prefix) && !shadowed(m.cfg.Commands, name) { // the file's own row says it hides it
			out = append(out, suggestion{name, help[name]})
		}
	}
	for _, c := range m.cfg.Commands.All() {
		name := "/" + c.Name
		if strings.HasPrefix(name, prefix) {
			d := strings.TrimSpace(c.ArgumentHint + "  " + oneLine(c.Description) + " (" + string(c.Scope) + ")")
			if slices.Contains(BuiltinCommands(), name) {
				d += " · hides the built-in " + name
			}
			out = append(out, suggestion{name, d})
		}
	}
	out = append(out, m.skillSuggestions(prefix, out)...)
	slices.SortStableFunc(out, func(a, b suggestion) int { return strings.Compare(a.insert, b.insert) })
	return out
}

// fileSuggestions are the workspace's files matching q fuzzily (its
// letters in order), best first: q in the file's name, then in its path,
// then scattered; shorter paths first within each.
func (m *Model) fileSuggestions(q string) []suggestion {
	if m.files == nil {
		m.files = []string{}
		if m.cfg.Files != nil {
			if fs, err := m.cfg.Files(context.Background(), maxMentionFiles); err == nil {
				m.files = fs
			} else {
				m.note(noteWarning, "@ completion: "+err.Error())
			}
		}
	}
	q = strings.ToLower(q)
	type hit struct {
		p     string
		score int
	}
	var hits []hit
	for _, p := range m.files {
		lp := strings.ToLower(p)
		if !subsequence(lp, q) {
			continue
		}
		rank := 2
		switch {
		case strings.Contains(path.Base(lp), q):
			rank = 0
		case strings.Contains(lp, q):
			rank = 1
		}
		hits = append(hits, hit{p, rank*100000 + len(p)})
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return a.score - b.score
		}
		return strings.Compare(a.p, b.p)
	})
	out := make([]suggestion, 0, min(len(hits), 50))
	for _, h := range hits[:min(len(hits), 50)] {
		out = append(out, suggestion{insert: "@" + h.p})
	}
	return out
}

// subsequence reports whether q's bytes appear in s in order.
func subsequence(s, q string) bool {
	for i := 0; i < len(q); i++ {
		j := strings.IndexByte(s, q[i])
		if j < 0 {
			return false
		}
		s = s[j+1:]
	}
	return true
}

// pick puts the selected suggestion in place of the token being typed.
func (m *Model) pick() {
	it := m.menu.items[m.menu.sel]
	v := m.in.value()
	m.in.ta.SetValue(v[:m.menu.start] + it.insert + " ")
	m.refreshMenu()
}

// menuKey handles a key while the menu is open: tab picks, up and down
// move, esc closes it, enter picks a file or runs the command picked.
// handled is false for keys the input takes.
func (m *Model) menuKey(s string) (handled bool) {
	if !m.menu.open() {
		return false
	}
	n := len(m.menu.items)
	switch s {
	case "tab":
		m.pick()
	case "up", "shift+tab":
		m.menu.sel = (m.menu.sel + n - 1) % n
	case "down":
		m.menu.sel = (m.menu.sel + 1) % n
	case "esc":
		m.menu = menu{shut: m.in.value(), of: m.in.value()}
	case "enter":
		file := m.menu.file
		m.pick()
		if !file {
			m.submit(m.in.take())
		}
	default:
		return false
	}
	return true
}

// menuView is the menu's rows: a window of menuRows around the pick.
func (m *Model) menuView() []string {
	if !m.menu.open() {
		return nil
	}
	first := max(0, m.menu.sel-menuRows+1)
	var out []string
	for i := first; i < len(m.menu.items) && i < first+menuRows; i++ {
		it := m.menu.items[i]
		name := it.insert
		if !m.menu.file {
			name = padRight(name, 14)
		}
		row := "  " + name
		if it.detail != "" {
			row += "  " + m.theme.muted().Render(it.detail)
		}
		if i == m.menu.sel {
			row = m.theme.accent().Render("› "+name) + strings.TrimPrefix(row, "  "+name)
		}
		out = append(out, fit(row, m.width))
	}
	if more := len(m.menu.items) - menuRows; more > 0 {
		out = append(out, fit(m.theme.muted().Render("  tab to complete · ↑/↓ to choose · "+plural(more, "more", "more")), m.width))
	}
	return out
}

// padRight pads s with spaces to n bytes.
func padRight(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}
