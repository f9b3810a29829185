package loopback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

func newResponses(s *Server, opts ...ooption.RequestOption) *responses.ResponseService {
	c := openAIClient(s, testKey, opts...)
	return &c.Responses
}

func responsesParams(model, prompt string) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)}}
}

func functionTool(name string) responses.ToolUnionParam {
	return responses.ToolParamOfFunction(name, map[string]any{"type": "object"}, false)
}

// functionCallOutput is the output of call callID.
func functionCallOutput(callID, output string) responses.ResponseInputItemUnionParam {
	item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item
}

// responsesRun is what a streamed Responses answer delivered.
type responsesRun struct {
	types      []string // event types in order
	textDeltas int
	argDeltas  int
	acc        responses.ResponseAccumulator
	final      *responses.Response // from response.completed or .incomplete
	failed     *responses.Response // from response.failed
	err        error
}

// responsesStream runs a streaming request with the SDK, checks that
// sequence numbers count up from 0, and feeds every event to the SDK's
// accumulator, which validates the fields it reads.
func responsesStream(ctx context.Context, c *responses.ResponseService, p responses.ResponseNewParams, opts ...ooption.RequestOption) *responsesRun {
	stream := c.NewStreaming(ctx, p, opts...)
	defer stream.Close()
	run := &responsesRun{}
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != int64(len(run.types)) {
			run.err = fmt.Errorf("event %d (%s) has sequence_number %d", len(run.types), ev.Type, ev.SequenceNumber)
			return run
		}
		run.types = append(run.types, ev.Type)
		var se responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(ev.RawJSON()), &se); err != nil {
			run.err = fmt.Errorf("event %s: %w", ev.Type, err)
			return run
		}
		if err := run.acc.AddEvent(se); err != nil {
			run.err = fmt.Errorf("accumulator refused %s: %w", ev.RawJSON(), err)
			return run
		}
		switch ev.Type {
		case "response.output_text.delta":
			run.textDeltas++
		case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
			run.argDeltas++
		case "response.completed", "response.incomplete":
			r := ev.Response
			run.final = &r
		case "response.failed":
			r := ev.Response
			run.failed = &r
		}
	}
	run.err = stream.Err()
	return run
}

func TestResponsesNonStreamingText(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Match: Match{API: APIResponses, SystemContains: "terse"}, Respond: &Response{Text: "Hello there!", Usage: &Usage{InputTokens: 10, OutputTokens: 5}}}}})
	p := responsesParams("gpt-x", "hello")
	p.Instructions = openai.String("Be terse.")
	resp, err := newResponses(s).New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if resp.OutputText() != "Hello there!" || resp.Status != "completed" || resp.Model != "gpt-x" || !strings.HasPrefix(resp.ID, "resp_") {
		t.Fatalf("response = %s", resp.RawJSON())
	}
	if len(resp.Output) != 1 || resp.Output[0].Type != "message" || resp.Output[0].Role != "assistant" || resp.Instructions.OfString != "Be terse." {
		t.Errorf("output = %+v, instructions %q", resp.Output, resp.Instructions.OfString)
	}
	if u := resp.Usage; u.InputTokens != 10 || u.OutputTokens != 5 || u.TotalTokens != 15 {
		t.Errorf("usage = %+v", u)
	}
	e := waitForLog(t, s, 1)[0]
	want := []LogMessage{{Role: "user", Text: "hello"}}
	if e.API != APIResponses || e.Path != "/v1/responses" || e.Stream || e.System != "Be terse." || e.Status != 200 || !cmp.Equal(e.Messages, want) {
		t.Errorf("log entry = %+v", e)
	}
}

func TestResponsesStreamSendsTheRealEventSequence(t *testing.T) {
	text := "The quick brown fox jumps over the lazy dog, twice."
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: text, Usage: &Usage{InputTokens: 7, OutputTokens: 3}}}}})
	run := responsesStream(context.Background(), newResponses(s), responsesParams("gpt-x", "hello"))
	if run.err != nil {
		t.Fatal(run.err)
	}
	if run.textDeltas < 2 {
		t.Errorf("text arrived in %d deltas, want several", run.textDeltas)
	}
	var want []string
	want = append(want, "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added")
	for range run.textDeltas {
		want = append(want, "response.output_text.delta")
	}
	want = append(want, "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed")
	if diff := cmp.Diff(want, run.types); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	snap := run.acc.Snapshot()
	if snap.OutputText() != text || snap.TerminalEvent != "response.completed" {
		t.Errorf("accumulated %q, terminal %q", snap.OutputText(), snap.TerminalEvent)
	}
	final, err := run.acc.ReconstructedResponse()
	if err != nil || final.OutputText() != text || final.Status != "completed" {
		t.Fatalf("reconstructed response: %v", err)
	}
	if u := run.final.Usage; u.InputTokens != 7 || u.OutputTokens != 3 || u.TotalTokens != 10 {
		t.Errorf("completed usage = %+v", u)
	}
	if e := waitForLog(t, s, 1)[0]; !e.Stream || e.API != APIResponses || e.Outcome != "" {
		t.Errorf("log entry = %+v", e)
	}
}

func TestResponsesStreamTwoFunctionCallsThenTheirOutputsMatchTheNextRule(t *testing.T) {
	sc := &Scenario{Rules: []Rule{
		{Name: "after-tools", Match: Match{API: APIResponses, HasToolResults: ptr(true), ToolResultContains: "go.mod"}, Respond: &Response{Text: "Both done."}},
		{Name: "plan", Match: Match{API: APIResponses, FirstUserContains: "list", SystemContains: "helpful", ToolsInclude: []string{"bash", "read"}, HasToolResults: ptr(false)}, Respond: &Response{
			Text: "Looking around.",
			ToolCalls: []ToolCall{
				{Name: "bash", Input: map[string]any{"command": "ls -la"}},
				{Name: "read", Input: map[string]any{"path": "README.md", "limit": 20}},
			},
		}},
	}}
	s := startServer(t, sc)
	c := newResponses(s)
	p := responsesParams("gpt-x", "list files")
	p.Instructions = openai.String("You are helpful.")
	p.Tools = []responses.ToolUnionParam{functionTool("bash"), functionTool("read")}
	run := responsesStream(context.Background(), c, p)
	if run.err != nil {
		t.Fatal(run.err)
	}
	if run.argDeltas < 4 {
		t.Errorf("arguments arrived in %d deltas, want several per call", run.argDeltas)
	}
	snap := run.acc.Snapshot()
	if len(snap.Output) != 3 || snap.Output[0].Type != "message" || snap.OutputText() != "Looking around." {
		t.Fatalf("snapshot = %+v", snap)
	}
	calls := snap.Output[1:]
	if calls[0].Name != "bash" || calls[0].Arguments != `{"command":"ls -la"}` || calls[1].Name != "read" || calls[1].Arguments != `{"limit":20,"path":"README.md"}` {
		t.Errorf("calls = %+v", calls)
	}
	if calls[0].CallID == "" || calls[0].CallID == calls[1].CallID || calls[0].CallID == calls[0].ItemID {
		t.Errorf("call ids %q %q (items %q %q) want distinct call_ids apart from item ids", calls[0].CallID, calls[1].CallID, calls[0].ItemID, calls[1].ItemID)
	}

	// The client sends back the whole conversation, each output right
	// after its call as Codex does; both outputs are the last turn's.
	input := responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("list files", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfMessage("Looking around.", responses.EasyInputMessageRoleAssistant),
	}
	outputs := []string{"go.mod\nmain.go", "# Project"}
	for i, item := range run.final.Output[1:] {
		call := item.AsFunctionCall()
		fc := call.ToParam()
		input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &fc}, functionCallOutput(call.CallID, outputs[i]))
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	resp, err := c.New(context.Background(), p)
	if err != nil || resp.OutputText() != "Both done." {
		t.Fatalf("second request: %v (log %+v)", err, s.Log())
	}

	entries := waitForLog(t, s, 2)
	if entries[0].Rule != "plan" || entries[1].Rule != "after-tools" {
		t.Errorf("rules = %q, %q", entries[0].Rule, entries[1].Rule)
	}
	if !cmp.Equal(entries[1].Tools, []string{"bash", "read"}) || entries[1].System != "You are helpful." {
		t.Errorf("tools %v system %q", entries[1].Tools, entries[1].System)
	}
	wantMsgs := []LogMessage{
		{Role: "user", Text: "list files"},
		{Role: "assistant", Text: "Looking around.", ToolCalls: []LogToolCall{
			{ID: calls[0].CallID, Name: "bash", Input: json.RawMessage(`{"command":"ls -la"}`)},
			{ID: calls[1].CallID, Name: "read", Input: json.RawMessage(`{"limit":20,"path":"README.md"}`)},
		}},
		{Role: "tool", ToolResults: []LogToolResult{{ToolCallID: calls[0].CallID, Content: "go.mod\nmain.go"}}},
		{Role: "tool", ToolResults: []LogToolResult{{ToolCallID: calls[1].CallID, Content: "# Project"}}},
	}
	if diff := cmp.Diff(wantMsgs, entries[1].Messages); diff != "" {
		t.Errorf("logged messages (-want +got):\n%s", diff)
	}
	if got := entries[1].LastToolResults(); len(got) != 2 {
		t.Errorf("LastToolResults = %+v", got)
	}
}

func TestResponsesNonStreamingFunctionCallsKeepAFixedCallID(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{ToolCalls: []ToolCall{
		{Name: "bash", ID: "call_fixed", Input: map[string]any{"command": "pwd"}},
		{Name: "bash", Input: map[string]any{"command": "date"}},
	}}}}})
	p := responsesParams("gpt-x", "go")
	p.Tools = []responses.ToolUnionParam{functionTool("bash")}
	resp, err := newResponses(s).New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Output) != 2 {
		t.Fatalf("output = %s", resp.RawJSON())
	}
	first, second := resp.Output[0].AsFunctionCall(), resp.Output[1].AsFunctionCall()
	if first.CallID != "call_fixed" || first.Arguments != `{"command":"pwd"}` || second.Arguments != `{"command":"date"}` || second.CallID == "call_fixed" || first.Status != "completed" {
		t.Errorf("calls = %+v / %+v", first, second)
	}
}

// Codex declares tools of many types and sends its own items; the rules
// see every named tool, and a call of a namespaced or freeform tool comes
// back in the shape Codex expects.
func TestResponsesCodexShapedRequestAndNamespacedAndFreeformCalls(t *testing.T) {
	body := `{"model":"gpt-5","instructions":"You are Codex.","stream":true,"store":false,
	  "reasoning":{"effort":"medium","summary":"auto"},"include":["reasoning.encrypted_content"],
	  "prompt_cache_key":"019a","parallel_tool_calls":true,"tool_choice":"auto","text":{"verbosity":"medium"},
	  "tools":[
	    {"type":"function","name":"exec_command","strict":false,"parameters":{"type":"object"}},
	    {"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: x"}},
	    {"type":"local_shell"},
	    {"type":"web_search","external_web_access":false},
	    {"type":"namespace","name":"multi_agent_v1","description":"agents","tools":[
	      {"type":"function","name":"spawn_agent","parameters":{"type":"object"}},
	      {"type":"function","name":"wait_agent","parameters":{"type":"object"}}]}],
	  "input":[
	    {"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions>never</permissions>"}]},
	    {"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context/>"}]},
	    {"type":"message","role":"user","content":[{"type":"input_text","text":"CAP-FG3: fan out"}]},
	    {"type":"reasoning","summary":[]},
	    {"type":"function_call","name":"spawn_agent","namespace":"multi_agent_v1","arguments":"{\"message\":\"go\"}","call_id":"call_1_0"},
	    {"type":"function_call_output","call_id":"call_1_0","output":"{\"agent_id\":\"a1\"}"},
	    {"type":"custom_tool_call","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch"},
	    {"type":"custom_tool_call_output","call_id":"call_2","output":"Done!"},
	    {"type":"local_shell_call","call_id":"call_3","status":"completed","action":{"type":"exec","command":["ls"]}},
	    {"type":"function_call_output","call_id":"call_3","output":[{"type":"input_text","text":"go.mod"}]}]}`
	s := startServer(t, &Scenario{Rules: []Rule{{
		Name:  "codex",
		Match: Match{API: APIResponses, LastUserContains: "CAP-FG3", SystemContains: "Codex", HasToolResults: ptr(true), ToolResultContains: "go.mod", ToolsInclude: []string{"spawn_agent", "apply_patch", "local_shell", "web_search", "multi_agent_v1"}},
		Respond: &Response{ToolCalls: []ToolCall{
			{Name: "spawn_agent", ID: "call_9", Input: map[string]any{"message": "SUBTASK-ALPHA"}},
			{Name: "apply_patch", Input: map[string]any{"input": "*** Begin Patch\n*** End Patch\n"}},
		}},
	}}})
	run := responsesStream(context.Background(), newResponses(s), responses.ResponseNewParams{}, ooption.WithRequestBody("application/json", []byte(body)))
	if run.err != nil {
		t.Fatal(run.err)
	}
	if slices.Contains(run.types, "response.output_text.delta") || !slices.Contains(run.types, "response.custom_tool_call_input.delta") {
		t.Errorf("event types = %v", run.types)
	}
	// The request asks for reasoning, so a reasoning item comes first.
	out := run.final.Output
	if len(out) != 3 || out[0].Type != "reasoning" || out[0].EncryptedContent == "" || len(out[0].Summary) != 1 {
		t.Fatalf("output = %s", run.final.RawJSON())
	}
	out = out[1:]
	spawn, patch := out[0].AsFunctionCall(), out[1].AsCustomToolCall()
	if spawn.Name != "spawn_agent" || spawn.Namespace != "multi_agent_v1" || spawn.CallID != "call_9" || spawn.Arguments != `{"message":"SUBTASK-ALPHA"}` {
		t.Errorf("spawn call = %s", out[0].RawJSON())
	}
	if out[1].Type != "custom_tool_call" || patch.Name != "apply_patch" || patch.Input != "*** Begin Patch\n*** End Patch\n" || patch.Namespace != "" {
		t.Errorf("patch call = %s", out[1].RawJSON())
	}
	if got := run.acc.Snapshot().Output[2].Input; got != patch.Input {
		t.Errorf("accumulated custom input = %q", got)
	}
	e := waitForLog(t, s, 1)[0]
	if e.Rule != "codex" || e.System != "You are Codex.\n<permissions>never</permissions>" {
		t.Errorf("rule %q system %q", e.Rule, e.System)
	}
	wantTools := []string{"exec_command", "apply_patch", "local_shell", "web_search", "multi_agent_v1", "spawn_agent", "wait_agent"}
	if !cmp.Equal(e.Tools, wantTools) {
		t.Errorf("tools = %v, want %v", e.Tools, wantTools)
	}
	// These calls are not this server's, so nothing says they came in one
	// answer: each output-then-call starts a new turn.
	var calls, results []string
	for _, m := range e.Messages {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.Name+" "+string(c.Input))
		}
		for _, r := range m.ToolResults {
			results = append(results, r.ToolCallID+"="+r.Content)
		}
	}
	wantCalls := []string{`spawn_agent {"message":"go"}`, `apply_patch "*** Begin Patch"`, `local_shell {"type":"exec","command":["ls"]}`}
	if !cmp.Equal(calls, wantCalls) {
		t.Errorf("calls = %v, want %v", calls, wantCalls)
	}
	if want := []string{`call_1_0={"agent_id":"a1"}`, "call_2=Done!", "call_3=go.mod"}; !cmp.Equal(results, want) {
		t.Errorf("tool results = %v, want %v", results, want)
	}
	if last := e.LastToolResults(); len(last) != 1 || last[0].ToolCallID != "call_3" {
		t.Errorf("last turn's results = %+v, want call_3's", last)
	}
}

func TestResponsesRateLimitAndOverloadErrorsCarryRetryAfter(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Name: "flaky", Sequence: []Response{
		{Error: &ErrorSpec{Status: 429, Message: "Rate limit reached", RetryAfter: 2}},
		{Error: &ErrorSpec{Status: 529, RetryAfter: 1}},
		{Text: "recovered"},
	}}}})
	c := newResponses(s)
	_, err := c.New(context.Background(), responsesParams("gpt-x", "hi"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *openai.Error", err)
	}
	if apiErr.StatusCode != 429 || apiErr.Code != "rate_limit_exceeded" || apiErr.Message != "Rate limit reached" || apiErr.Response.Header.Get("retry-after") != "2" {
		t.Errorf("error = status %d code %q message %q retry-after %q", apiErr.StatusCode, apiErr.Code, apiErr.Message, apiErr.Response.Header.Get("retry-after"))
	}
	run := responsesStream(context.Background(), c, responsesParams("gpt-x", "hi"))
	if !errors.As(run.err, &apiErr) || apiErr.StatusCode != 529 || apiErr.Type != "server_error" || apiErr.Message != "Overloaded" || apiErr.Response.Header.Get("retry-after") != "1" {
		t.Errorf("streaming error = %v", run.err)
	}
	if resp, err := c.New(context.Background(), responsesParams("gpt-x", "hi")); err != nil || resp.OutputText() != "recovered" {
		t.Fatalf("third request: %v", err)
	}
	// The SDK's own retry honours retry-after-ms.
	s2 := startServer(t, &Scenario{Rules: []Rule{{Sequence: []Response{{Error: &ErrorSpec{Status: 529, RetryAfterMS: 10}}, {Text: "ok"}}}}})
	run = responsesStream(context.Background(), newResponses(s2, ooption.WithMaxRetries(1)), responsesParams("gpt-x", "hi"))
	if run.err != nil || run.acc.Snapshot().OutputText() != "ok" || len(s2.Log()) != 2 {
		t.Fatalf("retried stream: %v, log %+v", run.err, s2.Log())
	}
}

func TestResponsesCutStreamIsAnErrorWithoutCompletion(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "this answer never finishes properly", CutAfterEvents: 4}}}})
	run := responsesStream(context.Background(), newResponses(s), responsesParams("gpt-x", "hi"))
	if !errors.Is(run.err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", run.err)
	}
	if len(run.types) != 4 || run.final != nil || run.acc.Snapshot().TerminalEvent != "" {
		t.Errorf("cut stream delivered %v", run.types)
	}
	if e := waitForLog(t, s, 1)[0]; e.Outcome != "cut after 4 events" {
		t.Errorf("outcome = %q", e.Outcome)
	}
	if _, err := newResponses(s).New(context.Background(), responsesParams("gpt-x", "hi")); err == nil {
		t.Error("body cut mid-way gave no error")
	}
}

func TestResponsesMalformedEventIsAnError(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "some text here", Malformed: true}}}})
	run := responsesStream(context.Background(), newResponses(s), responsesParams("gpt-x", "hi"))
	var syntax *json.SyntaxError
	if !errors.As(run.err, &syntax) {
		t.Fatalf("err = %v, want a JSON syntax error", run.err)
	}
}

func TestResponsesInStreamErrorIsResponseFailed(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "partial answer that stops", StreamError: &StreamError{Type: "server_error", Message: "boom mid-stream"}}}}})
	run := responsesStream(context.Background(), newResponses(s), responsesParams("gpt-x", "hi"))
	if run.err != nil {
		t.Fatal(run.err)
	}
	if run.failed == nil || run.failed.Error.Code != "server_error" || run.failed.Error.Message != "boom mid-stream" || run.failed.Status != "failed" {
		t.Fatalf("event types %v, failed = %+v", run.types, run.failed)
	}
	if run.textDeltas != 1 || run.final != nil || run.types[len(run.types)-1] != "response.failed" {
		t.Errorf("want one text delta, then response.failed last; got %v", run.types)
	}
	if e := waitForLog(t, s, 1)[0]; e.Outcome != "stream error server_error" {
		t.Errorf("outcome = %q", e.Outcome)
	}
	// Without streaming the same script is an HTTP error.
	_, err := newResponses(s).New(context.Background(), responsesParams("gpt-x", "hi"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusInternalServerError || apiErr.Message != "boom mid-stream" {
		t.Errorf("non-streaming err = %v", err)
	}
}

func TestResponsesMaxTokensIsAnIncompleteResponse(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "trunc", StopReason: "max_tokens"}}}})
	run := responsesStream(context.Background(), newResponses(s), responsesParams("gpt-x", "hi"))
	if run.err != nil || run.final == nil {
		t.Fatalf("stream: %v %v", run.err, run.types)
	}
	if run.types[len(run.types)-1] != "response.incomplete" || run.final.Status != "incomplete" || run.final.IncompleteDetails.Reason != "max_output_tokens" {
		t.Errorf("terminal %v: %s", run.types[len(run.types)-1], run.final.RawJSON())
	}
	resp, err := newResponses(s).New(context.Background(), responsesParams("gpt-x", "hi"))
	if err != nil || resp.Status != "incomplete" || resp.OutputText() != "trunc" {
		t.Errorf("non-streaming: %v %+v", err, resp)
	}
}

func TestResponsesRejectsAnOutputWithoutItsCall(t *testing.T) {
	s := startServer(t, &Scenario{Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	p := responsesParams("gpt-x", "")
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser),
		functionCallOutput("call_zzz", "ok"),
	}}
	_, err := newResponses(s).New(context.Background(), p)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Type != "invalid_request_error" || !strings.Contains(apiErr.Message, "call_zzz") {
		t.Fatalf("err = %v, want 400 naming call_zzz", err)
	}
	// With previous_response_id the earlier calls are the server's to
	// know; this server keeps none and takes the output as given.
	p.PreviousResponseID = openai.String("resp_earlier")
	if _, err := newResponses(s).New(context.Background(), p); err != nil {
		t.Fatalf("with previous_response_id: %v", err)
	}
}

func TestResponsesWrongKeyAndUnknownModel(t *testing.T) {
	s := startServer(t, &Scenario{APIKey: testKey, Models: []string{"gpt-x"}, Rules: []Rule{{Respond: &Response{Text: "hi"}}}})
	c := openAIClient(s, "sk-wrong-key")
	_, err := c.Responses.New(context.Background(), responsesParams("gpt-x", "hi"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || apiErr.Code != "invalid_api_key" || strings.Contains(apiErr.Message, "sk-wrong-key") {
		t.Fatalf("err = %v, want 401 invalid_api_key", err)
	}
	_, err = newResponses(s).New(context.Background(), responsesParams("gpt-nope", "hi"))
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "model_not_found" || !strings.Contains(apiErr.Message, "gpt-nope") {
		t.Fatalf("err = %v, want 404 model_not_found", err)
	}
}

// Codex's lead spawns agents, then waits on their ids over several turns:
// tool_results_contain_all sees answers from every turn, not only the
// last, and collect puts the ids spawn_agent returned into wait_agent.
func TestResponsesCollectFillsWaitAgentTargetsAndMatchSeesEveryTurnsResults(t *testing.T) {
	body := `{"model":"gpt-5","stream":true,
	  "tools":[{"type":"namespace","name":"multi_agent_v1","description":"agents","tools":[
	      {"type":"function","name":"spawn_agent","parameters":{"type":"object"}},
	      {"type":"function","name":"wait_agent","parameters":{"type":"object"}}]}],
	  "input":[
	    {"type":"message","role":"user","content":[{"type":"input_text","text":"CAP-FG3: fan out"}]},
	    {"type":"function_call","name":"spawn_agent","namespace":"multi_agent_v1","arguments":"{}","call_id":"c1"},
	    {"type":"function_call","name":"spawn_agent","namespace":"multi_agent_v1","arguments":"{}","call_id":"c2"},
	    {"type":"function_call_output","call_id":"c1","output":"{\"agent_id\":\"a1\",\"nickname\":\"Ada\"}"},
	    {"type":"function_call_output","call_id":"c2","output":"{\"agent_id\":\"a2\",\"nickname\":\"Bo\"}"},
	    {"type":"function_call","name":"wait_agent","namespace":"multi_agent_v1","arguments":"{}","call_id":"c3"},
	    {"type":"function_call_output","call_id":"c3","output":"{\"status\":{\"a1\":{\"completed\":\"done ALPHA\"}},\"agent_id\":\"a1\"}"},
	    {"type":"function_call","name":"wait_agent","namespace":"multi_agent_v1","arguments":"{}","call_id":"c4"},
	    {"type":"function_call_output","call_id":"c4","output":"not json: done BETA"}]}`
	s := startServer(t, &Scenario{Rules: []Rule{
		{Name: "final", Match: Match{ToolResultsContainAll: []string{"done ALPHA", "done GAMMA"}}, Respond: &Response{Text: "all done"}},
		{Name: "wait", Match: Match{ToolResultsContainAll: []string{"done ALPHA", "done BETA"}}, Respond: &Response{ToolCalls: []ToolCall{
			{Name: "wait_agent", Input: map[string]any{"timeout_ms": 60000}, Collect: &Collect{JSONField: "agent_id", Into: "targets"}},
		}}},
	}})
	run := responsesStream(context.Background(), newResponses(s), responses.ResponseNewParams{}, ooption.WithRequestBody("application/json", []byte(body)))
	if run.err != nil {
		t.Fatal(run.err)
	}
	out := run.final.Output
	if len(out) != 1 {
		t.Fatalf("output = %s", run.final.RawJSON())
	}
	wait := out[0].AsFunctionCall()
	if wait.Name != "wait_agent" || wait.Namespace != "multi_agent_v1" || wait.Arguments != `{"targets":["a1","a2"],"timeout_ms":60000}` {
		t.Errorf("wait call = %s, want the ids a1 and a2 once each as targets", out[0].RawJSON())
	}
	if e := waitForLog(t, s, 1)[0]; e.Rule != "wait" {
		t.Errorf("rule %q answered, want wait (GAMMA's answer is not in any result)", e.Rule)
	}
}

func TestResponsesCodexV2AgentMessagesAreUserTextRulesMatchOn(t *testing.T) {
	// The shapes Codex 0.169.0 sends with multi_agent_v2: a header part
	// and the payload as encrypted_content (plain to a custom provider).
	child := `{"model":"gpt-5","stream":true,"input":[
	    {"type":"agent_message","content":[{"type":"input_text","text":"Message Type: NEW_TASK\nTask name: /root/alpha\nSender: /root\nPayload:\n"},
	      {"type":"encrypted_content","encrypted_content":"SUBTASK-ALPHA: report that you are finished."}],"id":"amsg_1"}]}`
	lead := `{"model":"gpt-5","stream":true,"input":[
	    {"type":"message","role":"user","content":[{"type":"input_text","text":"CAP-FG3: fan out"}]},
	    {"type":"agent_message","content":[{"type":"input_text","text":"Message Type: FINAL_ANSWER\nTask name: /root\nSender: /root/beta\nPayload:\ndone BETA"}],"id":"amsg_2"},
	    {"type":"agent_message","content":[{"type":"input_text","text":"Message Type: FINAL_ANSWER\nTask name: /root\nSender: /root/alpha\nPayload:\ndone ALPHA"}],"id":"amsg_3"}]}`
	s := startServer(t, &Scenario{Rules: []Rule{
		{Name: "sub-ALPHA", Match: Match{LastUserContains: "SUBTASK-ALPHA"}, Respond: &Response{Text: "done ALPHA"}},
		{Name: "lead-final", Match: Match{UserTextsContainAll: []string{"done ALPHA", "done BETA"}}, Respond: &Response{Text: "all done"}},
	}})
	for i, c := range []struct{ body, rule, text string }{
		{child, "sub-ALPHA", "done ALPHA"},
		{lead, "lead-final", "all done"},
	} {
		run := responsesStream(context.Background(), newResponses(s), responses.ResponseNewParams{}, ooption.WithRequestBody("application/json", []byte(c.body)))
		if run.err != nil {
			t.Fatalf("%v; log %+v", run.err, s.Log())
		}
		if got := run.final.OutputText(); got != c.text {
			t.Errorf("request %d answered %q, want %q", i, got, c.text)
		}
		if e := waitForLog(t, s, i+1)[i]; e.Rule != c.rule {
			t.Errorf("request %d: rule %q answered, want %s", i, e.Rule, c.rule)
		}
	}
}
