package tools

// Core returns the core tools working in ws, in the order the model sees
// them: read, write, edit, multi_edit, bash, glob, grep, ls, web_fetch.
func Core(ws Workspace) *Set {
	return NewSet(NewRead(ws), NewWrite(ws), NewEdit(ws), NewMultiEdit(ws), NewBash(ws), NewGlob(ws), NewGrep(ws), NewLs(ws),
		NewWebFetch(WebFetchOptions{}))
}
