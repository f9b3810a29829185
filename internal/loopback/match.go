package loopback

import (
	"slices"
	"strings"
)

// matches reports whether req satisfies every condition m gives.
func (m *Match) matches(req *request) bool {
	if m.API != "" && m.API != req.api {
		return false
	}
	if m.Model != "" && m.Model != req.model {
		return false
	}
	if m.LastUserContains != "" && !strings.Contains(req.lastUserText(), m.LastUserContains) {
		return false
	}
	if m.FirstUserContains != "" && !strings.Contains(req.firstUserText(), m.FirstUserContains) {
		return false
	}
	if m.AnyUserContains != "" && !slices.ContainsFunc(req.userTexts(), func(t string) bool {
		return strings.Contains(t, m.AnyUserContains)
	}) {
		return false
	}
	for _, text := range m.UserTextsContainAll {
		if !slices.ContainsFunc(req.userTexts(), func(t string) bool { return strings.Contains(t, text) }) {
			return false
		}
	}
	if m.SystemContains != "" && !strings.Contains(req.system, m.SystemContains) {
		return false
	}
	for _, name := range m.ToolsInclude {
		if !slices.Contains(req.tools, name) {
			return false
		}
	}
	for _, name := range m.ToolsExclude {
		if slices.Contains(req.tools, name) {
			return false
		}
	}
	if m.HasToolResults != nil && *m.HasToolResults != (len(req.lastTurnResults) > 0) {
		return false
	}
	if m.ToolResultContains != "" && !slices.ContainsFunc(req.lastTurnResults, func(r LogToolResult) bool {
		return strings.Contains(r.Content, m.ToolResultContains)
	}) {
		return false
	}
	if m.ToolResultHasImage != nil && *m.ToolResultHasImage != (len(req.lastTurnImages()) > 0) {
		return false
	}
	for _, text := range m.ToolResultsContainAll {
		if !slices.ContainsFunc(req.toolResults(), func(r LogToolResult) bool {
			return strings.Contains(r.Content, text)
		}) {
			return false
		}
	}
	return true
}

// pick chooses the answer for req: the first rule that matches and is not
// used up, and the entry of its sequence for this use. used counts the
// requests each rule has answered and is updated. ok is false when no rule
// answers.
func pick(rules []Rule, used []int, req *request) (index int, resp *Response, ok bool) {
	for i := range rules {
		r := &rules[i]
		if r.Times > 0 && used[i] >= r.Times {
			continue
		}
		if !r.Match.matches(req) {
			continue
		}
		n := used[i]
		used[i]++
		if r.Respond != nil {
			return i, r.Respond, true
		}
		return i, &r.Sequence[min(n, len(r.Sequence)-1)], true
	}
	return -1, nil, false
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
