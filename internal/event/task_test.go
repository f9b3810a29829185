package event

import (
	"encoding/json"
	"testing"
)

func TestParseTaskInputReadsEverySpellingOfABackgroundTask(t *testing.T) {
	for _, tc := range []struct {
		input string
		bg    bool
	}{
		{`{"prompt":"p","mode":"background"}`, true},
		{`{"prompt":"p","mode":"async"}`, true},
		{`{"prompt":"p","mode":" Background "}`, true},
		{`{"prompt":"p","mode":"ASYNC"}`, true},
		{`{"prompt":"p","run_in_background":true}`, true}, // Claude Code
		{`{"prompt":"p","background":true}`, true},        // OpenCode
		{`{"prompt":"p","mode":"sync"}`, false},
		{`{"prompt":"p"}`, false},
		{`{"prompt":"p","mode":"plan"}`, false}, // Claude Code's permission mode
		{`{"prompt":"p","run_in_background":false,"background":false}`, false},
	} {
		in, err := ParseTaskInput([]byte(tc.input))
		if err != nil || in.Background != tc.bg {
			t.Errorf("%s: background %v, err %v; want %v", tc.input, in.Background, err, tc.bg)
		}
	}
}

func TestParseTaskInputTakesTheAgentTypeFromSubagentTypeOrCopilotsAgentTypeTrimmedWithTheDefaultForNone(t *testing.T) {
	for input, want := range map[string]string{
		`{"subagent_type":" explore "}`:                   "explore",
		`{"agent_type":"explore"}`:                        "explore",
		`{"subagent_type":"plan","agent_type":"explore"}`: "plan",
		`{"subagent_type":"  "}`:                          DefaultAgentType,
		`{}`:                                              DefaultAgentType,
		``:                                                DefaultAgentType,
	} {
		in, err := ParseTaskInput([]byte(input))
		if err != nil || in.Type() != want {
			t.Errorf("%q: type %q, err %v; want %q", input, in.Type(), err, want)
		}
	}
}

func TestParseTaskInputOfAMemberOfTheWrongTypeFailsButKeepsTheRest(t *testing.T) {
	in, err := ParseTaskInput([]byte(`{"description":"Scan","prompt":"go","mode":7,"subagent_type":"explore"}`))
	if err == nil {
		t.Fatal("a numeric mode parsed without error")
	}
	if in.Description != "Scan" || in.Prompt != "go" || in.Type() != "explore" {
		t.Fatalf("the rest was lost: %+v", in)
	}
	if _, err := ParseTaskInput([]byte(`not json`)); err == nil {
		t.Fatal("not JSON parsed without error")
	}
}

func TestTaskCallWritesTheNativeToolsInputThatParsesBackToTheSameCall(t *testing.T) {
	for _, tc := range []struct {
		in   TaskInput
		want string
	}{
		// The bytes adapters announced before TaskCall existed.
		{TaskInput{Description: "d", Prompt: "p", SubagentType: "explore", Background: true},
			`{"description":"d","mode":"background","prompt":"p","subagent_type":"explore"}`},
		{TaskInput{Description: "d", Prompt: "p", Mode: TaskSync},
			`{"description":"d","mode":"sync","prompt":"p","subagent_type":"general-purpose"}`},
		{TaskInput{Description: "d", Prompt: "p", Model: "haiku", SubagentType: "plan"},
			`{"description":"d","model":"haiku","prompt":"p","subagent_type":"plan"}`},
		{TaskInput{Description: "d", Prompt: "p", Mode: TaskAsync, Isolation: "worktree"},
			`{"description":"d","isolation":"worktree","mode":"async","prompt":"p","subagent_type":"general-purpose"}`},
	} {
		raw := TaskCall(tc.in)
		if string(raw) != tc.want {
			t.Errorf("got  %s\nwant %s", raw, tc.want)
		}
		back, err := ParseTaskInput(raw)
		if err != nil || back.Background != (tc.in.Background || tc.in.Mode == TaskAsync) || back.Type() != tc.in.Type() ||
			back.Description != tc.in.Description || back.Prompt != tc.in.Prompt || back.Model != tc.in.Model || back.Isolation != tc.in.Isolation {
			t.Errorf("%s read back as %+v (err %v)", raw, back, err)
		}
	}
}

func TestStopReasonsKeepTheirWireValues(t *testing.T) {
	b, err := json.Marshal(TurnEndData{StopReason: StopInterrupted, NumTurns: 2})
	if err != nil || string(b) != `{"stop_reason":"interrupted","num_turns":2}` {
		t.Fatalf("turn.end: %s (%v)", b, err)
	}
	for r, want := range map[StopReason]string{StopEndTurn: "end_turn", StopToolUse: "tool_use", StopMaxTokens: "max_tokens",
		StopOther: "other", StopInterrupted: "interrupted", StopError: "error"} {
		if string(r) != want {
			t.Errorf("%q, want %q", r, want)
		}
	}
}
