package demo

import (
	"fmt"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/lazy"
	"github.com/atomic-agent/atomic/internal/provider"
)

// script is what the lead does for a prompt.
type script int

const (
	menu       script = iota // anything unknown: what to try
	fanOut                   // "explore this project with agents"
	teamTour                 // "show me a team"
	lookAround               // "what is in this folder?"
)

// The prompts the menu offers, each choosing its script.
const (
	tryAgents = "explore this project with agents"
	tryTeam   = "show me a team"
	tryFolder = "what is in this folder?"
)

// footer ends every final answer, so a headless run says what it was.
const footer = "\n\n_(demo model: canned decisions, real tool calls)_"

// classify picks the script for a typed prompt from its words.
func classify(prompt string) script {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '\'')
	}) {
		words[w] = true
	}
	has := func(ws ...string) bool {
		for _, w := range ws {
			if words[w] {
				return true
			}
		}
		return false
	}
	switch {
	case has("agent", "agents", "subagent", "subagents", "sub-agent", "sub-agents", "parallel"):
		return fanOut
	case has("team", "teams", "teammate", "teammates"):
		return teamTour
	case has("folder", "directory", "here", "workspace", "explore", "files"):
		return lookAround
	}
	return menu
}

// menuText answers a prompt the demo has no script for.
const menuText = Banner + "\n\n" + `I am the demo model, so I only know a few scripts. Try one of these:

- ` + "`" + tryAgents + "`" + ` — three agents explore this folder in parallel, a fourth works in the background and wakes me when it is done, and one asks your approval to run a command
- ` + "`" + tryTeam + "`" + ` — I start a teammate, we message each other, and I shut it down
- ` + "`" + tryFolder + "`" + ` — I look around myself with ls, glob and read

For real answers, set ANTHROPIC_API_KEY or OPENAI_API_KEY and restart.`

// lead answers the lead's request: a wake-up (only delivered messages are
// new) goes to what woke it, anything else to the latest typed prompt's
// script, which reads only the conversation since that prompt.
func (p *Provider) lead(req provider.Request) reply {
	msgs := req.Messages
	if n := len(msgs); n > 0 && onlyDelivered(msgs[n-1]) {
		return p.wokenUp(msgs, delivered(msgs[n-1]))
	}
	i, prompt := lastPrompt(msgs)
	ep := msgs[i+1:]
	var r reply
	switch classify(prompt) {
	case fanOut:
		r = p.fanOut(ep)
	case teamTour:
		r = p.teamReply(msgs, ep)
	case lookAround:
		r = p.lookAroundReply(ep)
	default:
		return reply{think: 300 * time.Millisecond, text: menuText}
	}
	if len(ep) == 0 && !strings.HasPrefix(r.text, Banner) {
		r.text = Banner + "\n\n" + r.text
	}
	if len(r.calls) == 0 {
		// Background results that came in beside tool results were never
		// answered on their own: say so before ending the turn.
		for _, m := range ep {
			if m.Role == provider.RoleUser && !onlyDelivered(m) {
				for _, d := range delivered(m) {
					if strings.HasPrefix(d, taskNote) {
						r.text += "\n\n" + taskNoteSummary(d)
					}
				}
			}
		}
	}
	return r
}

// wokenUp answers the messages that woke the lead: background results
// are summarised, team messages move the team tour on.
func (p *Provider) wokenUp(msgs []provider.Message, notes []string) reply {
	var tasks []string
	team := false
	for _, n := range notes {
		if strings.HasPrefix(n, taskNote) {
			tasks = append(tasks, taskNoteSummary(n))
		} else {
			team = true
		}
	}
	r := reply{think: 400 * time.Millisecond}
	if team {
		if i := lastPromptOf(msgs, teamTour); i >= 0 {
			r = p.teamReply(msgs, msgs[i+1:])
		} else {
			r.text = "A team message arrived, but I started no team in this conversation."
		}
	}
	if len(tasks) > 0 {
		text := strings.Join(tasks, "\n\n") + "\n\nThat completes the tour: three agents in parallel, one in the background that woke me when it finished, and one that asked for approval. Try `" + tryTeam + "` next."
		if r.text != "" {
			text += "\n\n" + r.text
		} else {
			text += footer
		}
		r.text = text
	}
	return r
}

// taskNoteSummary words a background task's notification for the user.
func taskNoteSummary(note string) string {
	body := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(note, taskNote), "</task-notification>"))
	head, rest, _ := strings.Cut(body, "\n")
	head = strings.TrimSuffix(strings.TrimPrefix(head, "Background task "), ".")
	rest = strings.TrimPrefix(strings.TrimSpace(rest), "Result:")
	return fmt.Sprintf("**Background task %s**, and that woke me up. It found: %s", head, oneLine(rest, 300))
}

// Task prompts of the fan-out; each sub-agent finds its script by them.
const (
	promptLayout    = "Survey the top-level layout of the workspace: list it, find its Markdown documentation and read the main README. Report what kind of project it is."
	promptSources   = "Map the source code of the workspace: find the Go files, the main packages and the tests. Report what you counted."
	promptToolchain = "Check the project's toolchain: find its build manifest (go.mod, package.json, Cargo.toml, pyproject.toml or Makefile), read it, and run the matching version command."
	promptAudit     = "Audit the workspace in the background: count the TODO and FIXME notes, the test files and the test functions. Report the numbers."
)

var runToken = lazy.Regexp{Expr: `\(demo run \d+\)`}

// fanOut: four task calls (three sync, one background), then check_task on
// the background one, then a summary while it still runs. Its completion
// wakes the lead later (wokenUp).
func (p *Provider) fanOut(ep []provider.Message) reply {
	last := lastAssistant(ep)
	switch {
	case last == nil:
		token := fmt.Sprintf("(demo run %d)", p.runs.Add(1))
		return reply{think: 400 * time.Millisecond,
			text: "I'll split this up: three agents explore in parallel while a fourth audits the code in the background, which I won't wait for.",
			calls: []provider.ToolCall{
				p.call("task", map[string]any{"description": "Survey the layout", "prompt": promptLayout, "subagent_type": "explore"}),
				p.call("task", map[string]any{"description": "Map the source code", "prompt": promptSources, "subagent_type": "explore"}),
				p.call("task", map[string]any{"description": "Check the toolchain", "prompt": promptToolchain, "subagent_type": "general-purpose"}),
				p.call("task", map[string]any{"description": "Audit TODOs and tests", "prompt": promptAudit + " " + token, "subagent_type": "general-purpose", "mode": "background"}),
			}}
	case len(callsOf(last, "task")) > 0:
		if id := backgroundID(ep); id != "" {
			return reply{think: 300 * time.Millisecond,
				text:  "The three agents reported back. The background audit is still going; let me check on it.",
				calls: []provider.ToolCall{p.call("check_task", map[string]any{"task_id": id})}}
		}
		return reply{think: 300 * time.Millisecond, text: fanOutSummary(ep) + footer}
	case len(callsOf(last, "check_task")) > 0:
		token := ""
		for _, c := range allCalls(ep, "task") {
			if t := runToken.Get().FindString(input[struct{ Prompt string }](c).Prompt); t != "" {
				token = t
			}
		}
		return reply{think: 400 * time.Millisecond, text: fanOutSummary(ep),
			after: func() { p.leadAnswered(token) }}
	}
	return reply{text: "The agents have reported; see above." + footer}
}

// backgroundID finds the id the background task's spawn acknowledged.
func backgroundID(ep []provider.Message) string {
	for _, c := range allCalls(ep, "task") {
		if !taskInput(c).Background {
			continue
		}
		if r, ok := resultOf(ep, c.ID); ok && !r.IsError {
			if rest, ok := strings.CutPrefix(r.Content, "Started background task "); ok {
				if id, _, ok := strings.Cut(rest, " "); ok {
					return id
				}
			}
		}
	}
	return ""
}

// fanOutSummary reports each sync agent's findings and where the
// background one stands.
func fanOutSummary(ep []provider.Message) string {
	var b strings.Builder
	b.WriteString("Here is what the agents found:\n")
	for _, c := range allCalls(ep, "task") {
		in := taskInput(c)
		if in.Background {
			continue
		}
		fmt.Fprintf(&b, "\n- **%s** (%s): ", in.Description, in.SubagentType)
		r, ok := resultOf(ep, c.ID)
		switch {
		case !ok:
			b.WriteString("no report")
		case r.IsError:
			b.WriteString("failed: " + firstLine(r.Content, 200))
		default:
			b.WriteString(oneLine(r.Content, 240))
		}
	}
	for _, c := range allCalls(ep, "check_task") {
		if r, ok := resultOf(ep, c.ID); ok {
			fmt.Fprintf(&b, "\n\nMeanwhile, in the background: %s I'll tell you when it finishes; you can type meanwhile.", firstLine(r.Content, 200))
		}
	}
	return b.String()
}

// scoutPrompt is the teammate's assignment.
const scoutPrompt = "Find this project's documentation, read the main README and tell the lead what the project is, with send_message. Then wait: the lead may ask a follow-up."

// teamReply moves the team tour on from what the conversation since the
// team prompt holds: create and spawn, wait for the report, ask a
// follow-up, wait for the answer, shut the teammate down, sum up. all is
// the whole conversation (a team made earlier is reused).
func (p *Provider) teamReply(all, ep []provider.Message) reply {
	const name = "scout"
	last := lastAssistant(ep)
	spawns := allCalls(ep, "team_spawn")
	var reports []string
	for _, m := range ep {
		for _, d := range delivered(m) {
			if strings.HasPrefix(d, fmt.Sprintf("%s from=%q", teamMsg, name)) {
				_, body, _ := strings.Cut(d, "\n")
				reports = append(reports, strings.TrimSpace(strings.TrimSuffix(body, "</team-message>")))
			}
		}
	}
	asked := len(allCalls(ep, "send_message")) > 0
	shut := len(allCalls(ep, "shutdown_request")) > 0
	think := 500 * time.Millisecond
	switch {
	case len(spawns) == 0:
		var calls []provider.ToolCall
		if !teamExists(all) {
			calls = append(calls, p.call("team_create", map[string]any{"name": "demo"}))
		}
		calls = append(calls, p.call("team_spawn", map[string]any{
			"name": name, "role": "docs scout", "prompt": scoutPrompt, "subagent_type": "explore"}))
		return reply{think: think, calls: calls,
			text: "A team is for work that needs agents to cooperate over time. I'll start a teammate, scout, to read the docs and message me what it finds."}
	case spawnFailed(ep, spawns):
		return reply{think: think, text: "I could not start the teammate: " + spawnFailedReason(ep, spawns) + footer}
	case len(reports) == 0:
		return reply{think: think, text: "scout is working on its own; I'll wait for its message (you can type meanwhile)."}
	case len(reports) == 1 && !asked:
		return reply{think: think, text: "scout reported. Let me ask it a follow-up.",
			calls: []provider.ToolCall{p.call("send_message", map[string]any{"to": name,
				"content": "Thanks, scout! One follow-up: how many source files are there, and which folder holds most of them?"})}}
	case len(reports) == 1:
		return reply{think: think, text: "Waiting for scout's answer."}
	case !shut:
		return reply{think: think, text: "Thanks, scout; that's all I need. Shutting it down.",
			calls: []provider.ToolCall{p.call("shutdown_request", map[string]any{"to": name})}}
	case len(callsOf(last, "shutdown_request")) > 0:
		var b strings.Builder
		b.WriteString("That was a team: a long-lived teammate with its own context window, messages both ways, and a shutdown when the work was done. scout told me:")
		for _, r := range reports {
			b.WriteString("\n\n> " + strings.ReplaceAll(r, "\n", "\n> "))
		}
		b.WriteString("\n\nTry `" + tryAgents + "` for sub-agents, including one in the background." + footer)
		return reply{think: think, text: b.String()}
	}
	return reply{text: "scout has been shut down; the team tour is over."}
}

// teamExists reports whether the lead already created a team.
func teamExists(msgs []provider.Message) bool {
	for _, c := range allCalls(msgs, "team_create") {
		if r, ok := resultOf(msgs, c.ID); ok && !r.IsError {
			return true
		}
	}
	return false
}

func spawnFailed(ep []provider.Message, spawns []provider.ToolCall) bool {
	return spawnFailedReason(ep, spawns) != ""
}

func spawnFailedReason(ep []provider.Message, spawns []provider.ToolCall) string {
	if r, ok := resultOf(ep, spawns[len(spawns)-1].ID); ok && r.IsError {
		return r.Content
	}
	return ""
}

// lookAroundReply: ls and glob at once, then read the most telling file,
// then describe what the tools returned.
func (p *Provider) lookAroundReply(ep []provider.Message) reply {
	switch toolRounds(ep) {
	case 0:
		return reply{think: 300 * time.Millisecond,
			text: "Let me look around: listing this directory and finding its documentation at the same time.",
			calls: []provider.ToolCall{
				p.call("ls", map[string]any{"path": "."}),
				p.call("glob", map[string]any{"pattern": "**/*.md"}),
			}}
	case 1:
		if f := pickFile(resultTexts(ep)); f != "" {
			return reply{think: 300 * time.Millisecond, text: "Reading " + f + " to see what this is about.",
				calls: []provider.ToolCall{p.call("read", map[string]any{"file_path": f, "limit": 40})}}
		}
	}
	return reply{think: 300 * time.Millisecond,
		text: findings(ep) + "\nFor more, try `" + tryAgents + "` or `" + tryTeam + "`." + footer}
}
