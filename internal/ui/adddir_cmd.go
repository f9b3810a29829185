package ui

// addDirCommand adds a folder to the workspace for the rest of the
// session, as --add-dir does at start: the session checks it (the sandbox
// refuses a folder it protects), the file tools may use it and the
// commands started from now on may write it; running commands keep their
// rules.
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
	m.note(noteInfo, "Added "+dir+" to the workspace: the file tools may use it, and commands started from now on may write it (/config lists it).")
}
