package lifecycle

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DisplayName is how an agent type is shown: the built-in explore type as
// "Explore", every other type as written.
func DisplayName(agentType string) string {
	if strings.EqualFold(agentType, "explore") {
		return "Explore"
	}
	return agentType
}

// Header is the agents tree's header text (SPEC §4) without the TUI's dot
// and "(ctrl+o to expand)": "Running 3 Explore agents…" while any record is
// active, "3 agents finished · 1 failed · 2 interrupted" when none is. The
// count is every record; the type is named when all records share it. It is
// empty when there are no records.
func (s *State) Header() string { return header(s.recs, s.Counts()) }

// header is the Header of recs, whose counts are c.
func header(recs []Record, c Counts) string {
	n := len(recs)
	if n == 0 {
		return ""
	}
	noun := "agents"
	if name := recs[0].Name; name != "" && sameName(recs, name) {
		noun = name + " agents"
		if recs[0].IsShell() {
			noun = "background shells"
		}
	}
	if n == 1 {
		noun = strings.TrimSuffix(noun, "s")
	}
	what := strconv.Itoa(n) + " " + noun
	if shells := countShells(recs); shells > 0 && shells < n {
		// A shell is not an agent: a mixed tree counts each.
		what = plural(n-shells, "agent") + ", " + plural(shells, "shell")
	}
	if c.Active() > 0 {
		return "Running " + what + "…"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s finished", what)
	if c.Error > 0 {
		fmt.Fprintf(&b, " · %d failed", c.Error)
	}
	if c.Interrupted > 0 {
		fmt.Fprintf(&b, " · %d interrupted", c.Interrupted)
	}
	return b.String()
}

func countShells(recs []Record) int {
	n := 0
	for i := range recs {
		if recs[i].IsShell() {
			n++
		}
	}
	return n
}

// plural is "1 agent", "3 agents".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// sameName reports whether every record's Name is name.
func sameName(recs []Record, name string) bool {
	for i := range recs {
		if recs[i].Name != name {
			return false
		}
	}
	return true
}

// FormatDuration renders an elapsed time as the agents tree shows it:
// "12s", "1m 02s", "1h 03m". It truncates (a ticking clock never runs ahead)
// and shows negative durations as "0s".
func FormatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	secs := int64(d / time.Second)
	switch {
	case secs < 60:
		return fmt.Sprintf("%ds", secs)
	case secs < 3600:
		return fmt.Sprintf("%dm %02ds", secs/60, secs%60)
	default:
		return fmt.Sprintf("%dh %02dm", secs/3600, secs%3600/60)
	}
}

// SubLine is the second line of r's row in the agents tree: the first line
// of the error when failed, "Done" when completed, "Interrupted" when
// interrupted; while active, what it waits for ("Waiting for approval: …",
// "Queued…" for a concurrency slot), "Waiting for the work it started…"
// when waiting, else "Running in background…" for a
// background agent, else its current tool, else "Initializing…".
func SubLine(r Record) string {
	if r.IsShell() {
		return ShellLine(r)
	}
	switch r.Status {
	case Error:
		if msg := firstLine(r.Error); msg != "" {
			return msg
		}
		return "Failed"
	case Completed:
		return "Done"
	case Interrupted:
		return "Interrupted"
	}
	switch {
	case r.Waiting == WaitingSlot:
		return "Queued…"
	case r.Waiting != "":
		return "Waiting for approval: " + r.Waiting
	case r.Status == Waiting:
		return "Waiting for the work it started…"
	case r.Note != "" && r.CurrentTool != "":
		return r.Note + " · " + r.CurrentTool
	case r.Note != "":
		return r.Note
	case r.Background:
		return "Running in background…"
	case r.CurrentTool != "":
		return r.CurrentTool
	default:
		return "Initializing…"
	}
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}
