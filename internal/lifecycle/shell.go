package lifecycle

import (
	"strconv"
	"strings"

	"github.com/atomic-agent/atomic/internal/event"
)

// stepShell is the transition of a background shell's record: shell.start
// creates it running (the starting agent is its parent), shell.output sets
// its last line, shell.end ends it: completed on exit 0, error on another
// exit status, interrupted when it was stopped. A shell's record is never
// moved by agent events, nor an agent's by shell events.
func stepShell(r Record, e event.Event) Record {
	switch e.Type {
	case event.ShellStart:
		if r.ID != "" || e.AgentID == "" {
			return r
		}
		d, ok := event.Payload[event.ShellStartData](e.Data)
		if !ok {
			return r
		}
		return Record{
			Kind:        KindShell,
			ID:          e.AgentID,
			ToolCallID:  e.ToolCallID,
			ParentID:    e.ParentAgentID,
			Name:        "Shell",
			Description: d.Description,
			Command:     d.Command,
			Background:  true,
			Status:      Running,
			StartedAt:   e.Time,
		}
	case event.ShellOutput:
		if !r.IsShell() || r.Status.Terminal() {
			return r
		}
		if d, ok := event.Payload[event.ShellOutputData](e.Data); ok {
			r.LastLine = d.Line
		}
		return r
	case event.ShellEnd:
		if !r.IsShell() || r.Status.Terminal() {
			return r
		}
		d, ok := event.Payload[event.ShellEndData](e.Data)
		if !ok {
			return r
		}
		if line := LastLine(d.Tail); line != "" {
			r.LastLine = line
		}
		r.ExitCode = d.ExitCode
		switch {
		case d.Interrupted:
			r.Error = d.Reason
			return finish(r, Interrupted, e.Time)
		case d.ExitCode == 0:
			return finish(r, Completed, e.Time)
		default:
			r.Error = "exit status " + strconv.Itoa(d.ExitCode)
			return finish(r, Error, e.Time)
		}
	}
	return r
}

// shellMoves reports whether an event of type t may move a shell's record:
// its own events, and an interrupt or reset, which stop every shell.
func shellMoves(t event.Type) bool {
	switch t {
	case event.ShellStart, event.ShellOutput, event.ShellEnd, event.Interrupt, event.Reset:
		return true
	}
	return false
}

// applyShell routes a shell event: shell.start creates the shell's record
// (once), the others step the record of the shell they name.
func (s *State) applyShell(e event.Event) (Record, bool) {
	i, found := s.byAgent[e.AgentID]
	if e.Type == event.ShellStart {
		if found {
			return Record{}, false
		}
		return s.create(e)
	}
	if !found || !s.recs[i].IsShell() {
		return Record{}, false
	}
	return s.step(i, e)
}

// Shells counts the background shells still running, started by parent
// ("" : by anyone).
func (s *State) Shells(parent string) int {
	n := 0
	for i := range s.recs {
		r := &s.recs[i]
		if r.IsShell() && r.Status.Active() && (parent == "" || r.ParentID == parent) {
			n++
		}
	}
	return n
}

// LastLine is the last line of text with anything but blanks.
func LastLine(text string) string {
	for text != "" {
		i := strings.LastIndexByte(text, '\n')
		if line := strings.TrimSpace(text[i+1:]); line != "" {
			return line
		}
		if i < 0 {
			break
		}
		text = text[:i]
	}
	return ""
}

// ShellLine is the line under a shell's row (the tree, ACP): its last
// output line while it runs, then how it ended with its last line.
func ShellLine(r Record) string {
	var end string
	switch r.Status {
	case Completed:
		end = "exit 0"
	case Error:
		end = "exit " + strconv.Itoa(r.ExitCode)
	case Interrupted:
		end = "Interrupted"
	}
	switch {
	case end == "" && r.LastLine == "":
		return "Running in background…"
	case end == "":
		return r.LastLine
	case r.LastLine == "":
		return end
	}
	return end + " · " + r.LastLine
}
