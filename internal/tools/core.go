package tools

// Core returns the core tools working in ws, in the order the model sees
// them: read, write, edit, bash, glob, grep, ls.
func Core(ws Workspace) *Set {
	return NewSet(NewRead(ws), NewWrite(ws), NewEdit(ws), NewBash(ws), NewGlob(ws), NewGrep(ws), NewLs(ws))
}
