package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// maxInputRows is the tallest the input grows before it scrolls.
const maxInputRows = 8

// input is the prompt editor: multi-line (alt+enter, ctrl+j or a trailing
// backslash insert a newline; enter sends) with a history of sent prompts
// walked with up and down from the first and last line.
type input struct {
	ta      textarea.Model
	history []string
	// pos is the history entry shown (len(history): the draft).
	pos   int
	draft string
}

func newInput(th Theme) input {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Placeholder = "Ask anything · /help for commands"
	ta.SetPromptFunc(2, func(pi textarea.PromptInfo) string {
		if pi.LineNumber == 0 {
			return userMarker
		}
		return indent
	})
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = maxInputRows
	ta.MaxContentHeight = 10000
	ta.CharLimit = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "shift+enter", "ctrl+j"))
	// ctrl+d quits on an empty input; it is not delete-forward here.
	ta.KeyMap.DeleteCharacterForward = key.NewBinding(key.WithKeys("delete"))
	st := textarea.DefaultDarkStyles()
	st.Cursor.Blink = false
	st.Focused.CursorLine = lipgloss.NewStyle()
	st.Focused.Prompt = lipgloss.NewStyle().Foreground(th.Accent)
	st.Blurred.Prompt = lipgloss.NewStyle().Foreground(th.Muted)
	st.Focused.Placeholder = lipgloss.NewStyle().Foreground(th.Muted)
	ta.SetStyles(st)
	ta.Focus()
	return input{ta: ta}
}

func (in *input) setWidth(w int) { in.ta.SetWidth(max(w, 10)) }

func (in *input) value() string { return in.ta.Value() }

func (in *input) empty() bool { return in.ta.Value() == "" }

func (in *input) reset() {
	in.ta.Reset()
	in.pos = len(in.history)
	in.draft = ""
}

// take returns the prompt to send, records it in the history and clears
// the editor.
func (in *input) take() string {
	v := strings.TrimSpace(in.ta.Value())
	if v != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != v) {
		in.history = append(in.history, v)
	}
	in.reset()
	return v
}

// continued handles enter after a trailing backslash: the backslash becomes
// a newline and nothing is sent.
func (in *input) continued() bool {
	v := in.ta.Value()
	if !strings.HasSuffix(v, "\\") || in.ta.Line() != in.ta.LineCount()-1 {
		return false
	}
	in.ta.SetValue(strings.TrimSuffix(v, "\\") + "\n")
	return true
}

// update passes a key or paste to the editor, walking the history on up
// from the first line and down from the last.
func (in *input) update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "up":
			if in.ta.Line() == 0 && in.pos > 0 {
				if in.pos == len(in.history) {
					in.draft = in.ta.Value()
				}
				in.pos--
				in.ta.SetValue(in.history[in.pos])
				return nil
			}
		case "down":
			if in.ta.Line() == in.ta.LineCount()-1 && in.pos < len(in.history) {
				in.pos++
				if in.pos == len(in.history) {
					in.ta.SetValue(in.draft)
				} else {
					in.ta.SetValue(in.history[in.pos])
				}
				return nil
			}
		}
	}
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return cmd
}

func (in *input) view() string { return in.ta.View() }
