package tools

// Core returns the core tools working in ws, in the order the model sees
// them: read, write, edit, multi_edit, bash, glob, grep, ls, web_fetch,
// and bash_output and kill_shell where background shells run (ws.Shells).
func Core(ws Workspace) *Set {
	set := NewSet(NewRead(ws), NewWrite(ws), NewEdit(ws), NewMultiEdit(ws), NewBash(ws), NewGlob(ws), NewGrep(ws), NewLs(ws),
		NewWebFetch(WebFetchOptions{}))
	if ws.Shells != nil {
		set.Add(NewBashOutput(ws.Shells))
		set.Add(NewKillShell(ws.Shells))
	}
	return set
}
