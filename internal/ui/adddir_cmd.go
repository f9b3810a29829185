package ui

import "strings"

// addDirCommand checks a folder for /add-dir and says how to add it. The
// folder is not added in place: the sandbox's kernel rules, which fix the
// folders commands may write, are made once per session, and a folder the
// file tools may write but commands may not would be half added.
func (m *Model) addDirCommand(args []string) {
	if len(args) != 1 {
		m.note(noteError, "Usage: /add-dir PATH")
		return
	}
	s := m.cfg.Session
	if s == nil {
		return
	}
	dir, err := s.AddDir(args[0])
	if err != nil {
		m.note(noteError, err.Error())
		return
	}
	how := "atomic --add-dir " + quoteArg(dir)
	if id := m.info().SessionID; id != "" {
		how = "atomic --resume " + id + " --add-dir " + quoteArg(dir)
	}
	m.note(noteInfo, dir+" can be added, but not to a running session: the sandbox's folders are fixed when it starts.\nQuit (/exit) and run: "+how)
}

// quoteArg quotes a path for a shell when it needs it.
func quoteArg(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
