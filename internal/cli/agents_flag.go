package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/spawn"
)

// inlineAgents parses --agents, Claude Code's agent types given as JSON:
// {"name": {"description": …, "prompt": …, "tools": […], "model": …}}.
// Each entry is read as the agent file it stands for (front matter of its
// fields, the prompt as body), so Claude Code's tool names, model aliases
// and fields map as in a file; what Atomic lacks comes back as warnings.
func inlineAgents(spec string, knownTools []string) ([]spawn.Type, []string, error) {
	var entries map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(spec), &entries); err != nil {
		return nil, nil, fmt.Errorf("--agents: want a JSON object of agents, {\"name\": {\"description\": …, \"prompt\": …}}: %w", err)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	var types []spawn.Type
	var warnings []string
	for _, name := range names {
		fields := entries[name]
		var prompt string
		if raw, ok := fields["prompt"]; ok {
			if err := json.Unmarshal(raw, &prompt); err != nil {
				return nil, nil, fmt.Errorf("--agents %s: prompt: want a string: %w", name, err)
			}
		}
		if _, ok := fields["description"]; !ok {
			return nil, nil, fmt.Errorf("--agents %s: no description (the lead picks an agent by it)", name)
		}
		if strings.TrimSpace(prompt) == "" {
			return nil, nil, fmt.Errorf("--agents %s: no prompt", name)
		}
		// JSON values are YAML flow values: the entry becomes front matter.
		var file strings.Builder
		nameJSON, _ := json.Marshal(name)
		fmt.Fprintf(&file, "---\nname: %s\n", nameJSON)
		keys := make([]string, 0, len(fields))
		for k := range fields {
			if k != "prompt" && k != "name" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&file, "%s: %s\n", k, fields[k])
		}
		fmt.Fprintf(&file, "---\n%s\n", prompt)
		t, warn, err := spawn.ParseType("--agents "+name, []byte(file.String()), knownTools)
		var fe *spawn.AgentFileError
		if errors.As(err, &fe) {
			return nil, nil, fmt.Errorf("--agents %s: %w", name, fe.Err)
		}
		if err != nil {
			return nil, nil, err
		}
		if warn != nil {
			warn.Line = 0 // a line of the front matter made here means nothing to the user
			warnings = append(warnings, "agent "+warn.Error())
		}
		t.Source = "--agents"
		types = append(types, t)
	}
	return types, warnings, nil
}
