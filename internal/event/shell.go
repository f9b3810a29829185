package event

// Background shell events (bash run_in_background). The event's AgentID is
// the shell's id (shell-1), ParentAgentID the agent that started it, and
// ToolCallID the bash call that started it.
const (
	// ShellStart: a background shell began running Command.
	ShellStart Type = "shell.start"
	// ShellOutput: a background shell's last output line changed
	// (throttled: at most a few a second per shell).
	ShellOutput Type = "shell.output"
	// ShellEnd: a background shell ended: exited (ExitCode), or was
	// stopped (Interrupted) by kill_shell, its agent's end or an interrupt.
	ShellEnd Type = "shell.end"
)

// ShellStartData: a background shell began.
type ShellStartData struct {
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
}

// ShellOutputData: the last line a background shell wrote.
type ShellOutputData struct {
	Line string `json:"line"`
}

// ShellEndData: a background shell ended. Tail is the end of its output.
type ShellEndData struct {
	ExitCode    int    `json:"exit_code"`
	Interrupted bool   `json:"interrupted,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Tail        string `json:"tail,omitempty"`
}
