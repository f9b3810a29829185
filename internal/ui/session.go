package ui

import (
	"context"

	"github.com/atomic-agent/atomic/internal/permission"
)

// Session is what /permissions, /config, /resume, /add-dir and /doctor
// ask of the CLI's session (the flags, files and store the run was built
// from); nil when there is none.
type Session interface {
	// Permissions are the mode and the rules in force, with their sources.
	Permissions() (mode string, rules []permission.RuleInForce)
	// AllowRule and DenyRule add a rule for this session through the
	// permission gate (/permissions allow|deny RULE).
	AllowRule(rule string) error
	DenyRule(rule string) error
	// Settings are the effective settings and where each came from.
	Settings() []Setting
	// Sessions are this folder's saved sessions, newest first.
	Sessions(ctx context.Context) ([]PickerSession, error)
	// AddDir adds a folder to the workspace for the rest of the
	// session (/add-dir), returning it absolute, or says why not.
	AddDir(path string) (string, error)
	// Doctor runs the checks of /doctor (off the UI's loop).
	Doctor(ctx context.Context) []Check
}

// Setting is one row of /config.
type Setting struct{ Name, Value, From string }

// Check is one line of /doctor: what was checked, whether it passed,
// what was found and, when it failed, what to do.
type Check struct {
	Name string
	OK   bool
	// Optional: a failure is shown (·) but not counted (a CLI the
	// session does not use).
	Optional bool
	Detail   string
	Fix      string
}
