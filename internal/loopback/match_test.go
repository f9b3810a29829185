package loopback

import (
	"testing"
)

// The same conversation on both wires: a task, a tool call, its result.
const (
	anthropicToolTurn = `{"model":"claude-x","max_tokens":100,
	  "system":[{"type":"text","text":"You explore code."}],
	  "tools":[{"name":"bash","input_schema":{}},{"name":"read","input_schema":{}}],
	  "messages":[
	    {"role":"user","content":"Find the bug in parser"},
	    {"role":"assistant","content":[{"type":"text","text":"Looking"},{"type":"tool_use","id":"t1","name":"bash","input":{"command":"grep"}}]},
	    {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"parser.go:12: panic"}]}]}]}`
	openAIToolTurn = `{"model":"gpt-x",
	  "tools":[{"type":"function","function":{"name":"bash"}},{"type":"function","function":{"name":"read"}}],
	  "messages":[
	    {"role":"developer","content":"You explore code."},
	    {"role":"user","content":[{"type":"text","text":"Find the bug in parser"}]},
	    {"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"grep\"}"}}]},
	    {"role":"tool","tool_call_id":"t1","content":"parser.go:12: panic"}]}`
	responsesToolTurn = `{"model":"gpt-x","instructions":"You explore code.","stream":true,"store":false,
	  "reasoning":{"effort":"medium","summary":"auto"},"include":["reasoning.encrypted_content"],
	  "prompt_cache_key":"k1","parallel_tool_calls":false,"tool_choice":"auto",
	  "tools":[{"type":"function","name":"bash","parameters":{}},{"type":"function","name":"read","parameters":{}}],
	  "input":[
	    {"type":"message","role":"user","content":[{"type":"input_text","text":"Find the bug in parser"}]},
	    {"type":"reasoning","summary":[],"encrypted_content":"xyz"},
	    {"type":"function_call","call_id":"t1","name":"bash","arguments":"{\"command\":\"grep\"}"},
	    {"type":"function_call_output","call_id":"t1","output":"parser.go:12: panic"}]}`
	// A plain follow-up: two user turns, no tools.
	anthropicFollowUp = `{"model":"claude-x","max_tokens":100,"system":"You explore code.","messages":[
	    {"role":"user","content":"Find the bug in parser"},
	    {"role":"assistant","content":"Found it"},
	    {"role":"user","content":[{"type":"text","text":"now fix it"}]}]}`
	openAIFollowUp = `{"model":"gpt-x","messages":[
	    {"role":"system","content":"You explore code."},
	    {"role":"user","content":"Find the bug in parser"},
	    {"role":"assistant","content":"Found it"},
	    {"role":"user","content":"now fix it"}]}`
	responsesFollowUp = `{"model":"gpt-x","input":[
	    {"role":"developer","content":"You explore code."},
	    {"role":"user","content":"Find the bug in parser"},
	    {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Found it"}]},
	    {"role":"user","content":[{"type":"input_text","text":"now fix it"}]}]}`
)

// parseFor is the request parser of api.
func parseFor(api string) func([]byte) (*request, *apiError) {
	switch api {
	case APIAnthropic:
		return parseAnthropic
	case APIOpenAI:
		return parseOpenAI
	}
	return func(body []byte) (*request, *apiError) { return parseResponses(body, nil) }
}

func parsed(t *testing.T, api, body string) *request {
	t.Helper()
	req, err := parseFor(api)([]byte(body))
	if err != nil {
		t.Fatalf("parsing %s body: %v", api, err)
	}
	return req
}

func TestMatchConditionsMeanTheSameOnEveryAPI(t *testing.T) {
	tests := []struct {
		name      string
		match     Match
		toolTurn  bool // want for the tool-result conversation
		followUp  bool // want for the plain follow-up
		apiSample string
	}{
		{name: "empty match matches anything", match: Match{}, toolTurn: true, followUp: true},
		{name: "last user text skips tool-result turns", match: Match{LastUserContains: "Find the bug"}, toolTurn: true, followUp: false},
		{name: "last user text is the latest prompt", match: Match{LastUserContains: "fix it"}, toolTurn: false, followUp: true},
		{name: "first user text", match: Match{FirstUserContains: "Find the bug"}, toolTurn: true, followUp: true},
		{name: "first user text is not a later one", match: Match{FirstUserContains: "fix it"}, toolTurn: false, followUp: false},
		{name: "any user text", match: Match{AnyUserContains: "fix"}, toolTurn: false, followUp: true},
		{name: "user texts contain all", match: Match{UserTextsContainAll: []string{"Find the bug", "fix it"}}, toolTurn: false, followUp: true},
		{name: "user texts contain all, one missing", match: Match{UserTextsContainAll: []string{"fix it", "segfault"}}, toolTurn: false, followUp: false},
		{name: "system prompt", match: Match{SystemContains: "explore"}, toolTurn: true, followUp: true},
		{name: "system prompt mismatch", match: Match{SystemContains: "write poems"}, toolTurn: false, followUp: false},
		{name: "tools include all named", match: Match{ToolsInclude: []string{"bash", "read"}}, toolTurn: true, followUp: false},
		{name: "tools include a missing one", match: Match{ToolsInclude: []string{"bash", "task"}}, toolTurn: false, followUp: false},
		{name: "tools exclude absent", match: Match{ToolsExclude: []string{"task"}}, toolTurn: true, followUp: true},
		{name: "tools exclude present", match: Match{ToolsExclude: []string{"read"}}, toolTurn: false, followUp: true},
		{name: "has tool results", match: Match{HasToolResults: ptr(true)}, toolTurn: true, followUp: false},
		{name: "has no tool results", match: Match{HasToolResults: ptr(false)}, toolTurn: false, followUp: true},
		{name: "tool result text", match: Match{ToolResultContains: "panic"}, toolTurn: true, followUp: false},
		{name: "tool result text is not user text", match: Match{ToolResultContains: "Find"}, toolTurn: false, followUp: false},
		{name: "tool results contain all", match: Match{ToolResultsContainAll: []string{"parser.go", "panic"}}, toolTurn: true, followUp: false},
		{name: "tool results contain all, one missing", match: Match{ToolResultsContainAll: []string{"panic", "segfault"}}, toolTurn: false, followUp: false},
		{name: "all conditions together", match: Match{FirstUserContains: "parser", SystemContains: "explore", ToolsInclude: []string{"bash"}, HasToolResults: ptr(true), ToolResultContains: "12"}, toolTurn: true, followUp: false},
	}
	bodies := map[string][2]string{
		APIAnthropic: {anthropicToolTurn, anthropicFollowUp},
		APIOpenAI:    {openAIToolTurn, openAIFollowUp},
		APIResponses: {responsesToolTurn, responsesFollowUp},
	}
	for api, b := range bodies {
		toolTurn, followUp := parsed(t, api, b[0]), parsed(t, api, b[1])
		for _, tt := range tests {
			t.Run(api+"/"+tt.name, func(t *testing.T) {
				if got := tt.match.matches(toolTurn); got != tt.toolTurn {
					t.Errorf("tool-result conversation: matches = %v, want %v", got, tt.toolTurn)
				}
				if got := tt.match.matches(followUp); got != tt.followUp {
					t.Errorf("follow-up conversation: matches = %v, want %v", got, tt.followUp)
				}
			})
		}
	}
}

func TestMatchAPIAndModel(t *testing.T) {
	a, o, r := parsed(t, APIAnthropic, anthropicFollowUp), parsed(t, APIOpenAI, openAIFollowUp), parsed(t, APIResponses, responsesFollowUp)
	tests := []struct {
		match Match
		wantA bool
		wantO bool
		wantR bool
	}{
		{Match{API: APIAnthropic}, true, false, false},
		{Match{API: APIOpenAI}, false, true, false},
		{Match{API: APIResponses}, false, false, true},
		{Match{Model: "gpt-x"}, false, true, true},
		{Match{API: APIAnthropic, Model: "claude-x"}, true, false, false},
	}
	for _, tt := range tests {
		if got := tt.match.matches(a); got != tt.wantA {
			t.Errorf("%+v on anthropic = %v", tt.match, got)
		}
		if got := tt.match.matches(o); got != tt.wantO {
			t.Errorf("%+v on openai = %v", tt.match, got)
		}
		if got := tt.match.matches(r); got != tt.wantR {
			t.Errorf("%+v on openai-responses = %v", tt.match, got)
		}
	}
}

func TestPickSkipsUsedUpRulesAndRepeatsLastSequenceEntry(t *testing.T) {
	rules := []Rule{
		{Name: "once", Times: 1, Respond: &Response{Text: "first"}},
		{Name: "seq", Sequence: []Response{{Text: "a"}, {Text: "b"}}},
	}
	used := make([]int, len(rules))
	req := parsed(t, APIOpenAI, openAIFollowUp)
	var got []string
	for range 4 {
		_, resp, ok := pick(rules, used, req)
		if !ok {
			t.Fatal("no rule picked")
		}
		got = append(got, resp.Text)
	}
	if want := []string{"first", "a", "b", "b"}; !equalStrings(got, want) {
		t.Errorf("answers = %v, want %v", got, want)
	}
	rules[1].Times = 3
	if _, _, ok := pick(rules, used, req); ok {
		t.Error("a used-up rule answered")
	}
}

func equalStrings(a, b []string) bool { return !diffStrings(a, b) }

func TestParseRequestNormalisesMessages(t *testing.T) {
	bodies := map[string]string{APIAnthropic: anthropicToolTurn, APIOpenAI: openAIToolTurn, APIResponses: responsesToolTurn}
	for api, body := range bodies {
		req := parsed(t, api, body)
		if req.system != "You explore code." || len(req.tools) != 2 || req.lastUserText() != "Find the bug in parser" {
			t.Errorf("%s: system %q tools %v last user %q", api, req.system, req.tools, req.lastUserText())
		}
		var calls []LogToolCall
		for _, m := range req.messages {
			calls = append(calls, m.ToolCalls...)
		}
		if len(calls) != 1 || calls[0].ID != "t1" || calls[0].Name != "bash" || string(calls[0].Input) != `{"command":"grep"}` {
			t.Errorf("%s: tool calls %+v", api, calls)
		}
		if len(req.lastTurnResults) != 1 || req.lastTurnResults[0].Content != "parser.go:12: panic" {
			t.Errorf("%s: last turn results %+v", api, req.lastTurnResults)
		}
	}
}

func TestParseRequestRejectsWhatTheRealAPIsReject(t *testing.T) {
	tests := []struct {
		api, body, want string
	}{
		{APIAnthropic, `{"max_tokens":1,"messages":[{"role":"user","content":"x"}]}`, "model: Field required"},
		{APIAnthropic, `{"model":"m","messages":[{"role":"user","content":"x"}]}`, "max_tokens: Field required"},
		{APIAnthropic, `{"model":"m","max_tokens":1,"messages":[]}`, "at least one message"},
		{APIAnthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"system","content":"x"}]}`, "messages.0.role"},
		{APIAnthropic, `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":7}]}`, "messages.0.content"},
		{APIAnthropic, `not json`, "not valid JSON"},
		{APIOpenAI, `{"messages":[{"role":"user","content":"x"}]}`, "must provide a model"},
		{APIOpenAI, `{"model":"m","messages":[]}`, "too short"},
		{APIOpenAI, `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, "'robot'"},
		{APIResponses, `{"input":"x"}`, "Missing required parameter: 'model'"},
		{APIResponses, `{"model":"m"}`, "Missing required parameter: 'input'"},
		{APIResponses, `{"model":"m","input":7}`, "expected a string or an array of input items"},
		{APIResponses, `{"model":"m","input":[{"role":"robot","content":"x"}]}`, "'robot'"},
		{APIResponses, `{"model":"m","input":[{"role":"user"}]}`, "content"},
		{APIResponses, `{"model":"m","input":[{"type":"function_call","name":"bash","arguments":"{}"}]}`, "'input[0].call_id'"},
		{APIResponses, `{"model":"m","input":[{"type":"function_call","call_id":"c1","name":"bash","arguments":{}}]}`, "expected a string"},
		{APIResponses, `{"model":"m","input":[{"type":"function_call_output","call_id":"c9","output":"x"}]}`, "No tool call found for function call output with call_id c9"},
		{APIResponses, `{"model":"m","input":[{"role":"user","content":"x"},{"type":"function_call","call_id":"c1","name":"bash","arguments":"{}"}]}`, "No tool output found for function call c1"},
		{APIResponses, `{"model":"m","input":"x","tools":[{"type":"function","parameters":{}}]}`, "'tools[0].name'"},
		{APIResponses, `{"model":"m","input":"x","tools":[{"name":"bash"}]}`, "'tools[0].type'"},
		{APIResponses, `not json`, "could not parse"},
	}
	for _, tt := range tests {
		_, err := parseFor(tt.api)([]byte(tt.body))
		if err == nil || err.status != 400 || !contains(err.message, tt.want) {
			t.Errorf("%s %s: error = %v, want 400 containing %q", tt.api, tt.body, err, tt.want)
		}
	}
}
