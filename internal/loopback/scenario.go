package loopback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"
)

// API names used in scenarios and in the request log.
const (
	APIAnthropic = "anthropic"
	APIOpenAI    = "openai" // Chat Completions
	// APIResponses is the OpenAI Responses API, the only wire Codex speaks.
	APIResponses = "openai-responses"
)

// Scenario scripts the server: who may call it and how each request is
// answered. The first rule that matches a request and is not used up
// answers it.
type Scenario struct {
	// APIKey, when set, is the only key accepted (Anthropic x-api-key or
	// bearer token, OpenAI bearer token); other keys get a 401.
	APIKey string `json:"api_key,omitempty" yaml:"api_key,omitempty"`
	// Models, when set, lists the only models that exist; others get a 404.
	// GET /v1/models lists them in the shape of the API asking (unset: 404,
	// no list).
	Models []string `json:"models,omitempty" yaml:"models,omitempty"`
	// ContextWindow, when set, is every model's window in tokens: a
	// request whose estimated input (EstimateTokens) exceeds it is refused
	// with the API's own "too long" error. ContextWindows overrides it per
	// model name.
	ContextWindow  int            `json:"context_window,omitempty" yaml:"context_window,omitempty"`
	ContextWindows map[string]int `json:"context_windows,omitempty" yaml:"context_windows,omitempty"`
	// CacheMinTokens is the shortest prefix, in tokens, that prompt caching
	// stores (Anthropic cache_control breakpoints, OpenAI automatic
	// caching); 0 means 1024, the real APIs' minimum for Sonnet and GPT
	// models (some Claude models have 2048 or 4096).
	CacheMinTokens int    `json:"cache_min_tokens,omitempty" yaml:"cache_min_tokens,omitempty"`
	Rules          []Rule `json:"rules" yaml:"rules"`
}

// Rule answers the requests that satisfy Match.
type Rule struct {
	// Name identifies the rule in the request log. An unnamed rule is
	// logged as "rule[i]" (its zero-based index).
	Name  string `json:"name,omitempty" yaml:"name,omitempty"`
	Match Match  `json:"match,omitzero" yaml:"match,omitempty"`
	// Times is how many requests the rule may answer; 0 means unlimited.
	Times int `json:"times,omitempty" yaml:"times,omitempty"`
	// Respond answers every request; Sequence instead answers the n-th
	// request with its n-th entry, repeating the last. Exactly one is set.
	Respond  *Response  `json:"respond,omitempty" yaml:"respond,omitempty"`
	Sequence []Response `json:"sequence,omitempty" yaml:"sequence,omitempty"`
}

// Match is a conjunction of conditions on a request; the zero Match
// matches every request. Text conditions are case-sensitive substrings.
type Match struct {
	// API is "anthropic", "openai" (Chat Completions) or "openai-responses".
	API   string `json:"api,omitempty" yaml:"api,omitempty"`
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// LastUserContains looks at the text of the last user message that
	// has text: user messages made only of tool results are skipped, so
	// the condition means the same for every API (OpenAI sends tool results
	// as role=tool messages, the Responses API as output items).
	LastUserContains  string `json:"last_user_contains,omitempty" yaml:"last_user_contains,omitempty"`
	FirstUserContains string `json:"first_user_contains,omitempty" yaml:"first_user_contains,omitempty"`
	AnyUserContains   string `json:"any_user_contains,omitempty" yaml:"any_user_contains,omitempty"`
	// UserTextsContainAll requires each string in some user message of
	// the conversation: answers that arrive as messages over several
	// turns, such as Codex multi_agent_v2 sub-agents' final answers.
	UserTextsContainAll []string `json:"user_texts_contain_all,omitempty" yaml:"user_texts_contain_all,omitempty"`
	// SystemContains looks at the system prompt: Anthropic's system field,
	// OpenAI's system and developer messages, the Responses API's
	// instructions and system and developer messages.
	SystemContains string   `json:"system_contains,omitempty" yaml:"system_contains,omitempty"`
	ToolsInclude   []string `json:"tools_include,omitempty" yaml:"tools_include,omitempty"`
	ToolsExclude   []string `json:"tools_exclude,omitempty" yaml:"tools_exclude,omitempty"`
	// HasToolResults, when set, requires that the last turn does (true) or
	// does not (false) carry tool results.
	HasToolResults     *bool  `json:"has_tool_results,omitempty" yaml:"has_tool_results,omitempty"`
	ToolResultContains string `json:"tool_result_contains,omitempty" yaml:"tool_result_contains,omitempty"`
	// ToolResultsContainAll requires each string in some tool result of
	// the whole conversation, not only the last turn: answers that came
	// back over several turns, such as Codex sub-agents' answers through
	// repeated wait_agent calls.
	ToolResultsContainAll []string `json:"tool_results_contain_all,omitempty" yaml:"tool_results_contain_all,omitempty"`
	// ToolResultHasImage, when set, requires that the last turn does
	// (true) or does not (false) carry an image: in a tool result
	// (Anthropic) or a user message after the tool messages (Chat
	// Completions, whose tool messages take text only).
	ToolResultHasImage *bool `json:"tool_result_has_image,omitempty" yaml:"tool_result_has_image,omitempty"`
}

// Response is one scripted answer. Error, StreamError, CutAfterEvents and
// Malformed are mutually exclusive failure modes.
type Response struct {
	// DelayMS waits before the response headers are sent.
	DelayMS int `json:"delay_ms,omitempty" yaml:"delay_ms,omitempty"`
	// ChunkDelayMS waits between stream events.
	ChunkDelayMS int        `json:"chunk_delay_ms,omitempty" yaml:"chunk_delay_ms,omitempty"`
	Text         string     `json:"text,omitempty" yaml:"text,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty" yaml:"tool_calls,omitempty"`
	// Thinking is the model's thinking text, sent only when the request
	// asks for thinking: an Anthropic thinking block (request thinking
	// enabled), a Responses reasoning item's summary (request reasoning
	// effort), the reasoning_tokens of a Chat Completion (request
	// reasoning_effort). A request that asks without a scripted text gets a
	// default one.
	Thinking string `json:"thinking,omitempty" yaml:"thinking,omitempty"`
	// StopReason is in either API's vocabulary (end_turn, tool_use,
	// max_tokens, stop_sequence, pause_turn, refusal / stop, tool_calls,
	// length, content_filter) and is translated for the other API. The
	// default is tool_use/tool_calls when there are tool calls, else
	// end_turn/stop. The Responses API answers max_tokens and refusal with
	// an incomplete response (max_output_tokens, content_filter).
	StopReason string `json:"stop_reason,omitempty" yaml:"stop_reason,omitempty"`
	// Usage overrides the token counts, which by default are derived from
	// the request and response sizes.
	Usage *Usage `json:"usage,omitempty" yaml:"usage,omitempty"`
	// Error answers with an HTTP error instead.
	Error *ErrorSpec `json:"error,omitempty" yaml:"error,omitempty"`
	// StreamError sends headers and some events, then an in-stream error.
	// A non-streaming request gets it as an HTTP error.
	StreamError *StreamError `json:"stream_error,omitempty" yaml:"stream_error,omitempty"`
	// CutAfterEvents closes the connection abruptly after this many SSE
	// events (every event counts; an Anthropic stream starts with
	// message_start and ping), never sending the terminal event. A
	// non-streaming request gets half its body before the cut.
	CutAfterEvents int `json:"cut_after_events,omitempty" yaml:"cut_after_events,omitempty"`
	// Malformed sends a syntactically broken JSON data line mid-stream (a
	// non-streaming request gets a broken JSON body).
	Malformed bool `json:"malformed,omitempty" yaml:"malformed,omitempty"`
}

// ToolCall is a tool call the scripted model makes. On the Responses API
// a call of a tool the request declares as custom (freeform) is a
// custom_tool_call whose input is Input["input"] when that is a string
// (else Input as JSON), and a call of a tool declared inside a namespace
// carries that namespace.
type ToolCall struct {
	Name  string         `json:"name" yaml:"name"`
	Input map[string]any `json:"input,omitempty" yaml:"input,omitempty"`
	// ID is generated (unique per server) when empty; on the Responses
	// API it is the call_id.
	ID string `json:"id,omitempty" yaml:"id,omitempty"`
	// Collect fills one input field from earlier tool results, for ids a
	// script cannot know in advance (the agent ids Codex's spawn_agent
	// returns, which its wait_agent takes).
	Collect *Collect `json:"collect,omitempty" yaml:"collect,omitempty"`
}

// Collect sets Input[Into] to the list of the string values of JSONField
// in every tool result of the conversation that is a JSON object with it,
// in order, without repeats.
type Collect struct {
	JSONField string `json:"json_field" yaml:"json_field"`
	Into      string `json:"into" yaml:"into"`
}

// Usage is the token accounting reported with an answer.
type Usage struct {
	InputTokens  int `json:"input_tokens" yaml:"input_tokens"`
	OutputTokens int `json:"output_tokens" yaml:"output_tokens"`
}

// ErrorSpec is an HTTP error answer. Type defaults to what the API sends
// for Status; Message defaults to the status text.
type ErrorSpec struct {
	Status  int    `json:"status" yaml:"status"`
	Type    string `json:"type,omitempty" yaml:"type,omitempty"`
	Message string `json:"message,omitempty" yaml:"message,omitempty"`
	// Code is OpenAI's error code (e.g. rate_limit_exceeded); Anthropic has none.
	Code string `json:"code,omitempty" yaml:"code,omitempty"`
	// RetryAfter sets the retry-after header, in seconds.
	RetryAfter int `json:"retry_after,omitempty" yaml:"retry_after,omitempty"`
	// RetryAfterMS sets the retry-after-ms header that both SDKs prefer,
	// letting tests retry quickly.
	RetryAfterMS int `json:"retry_after_ms,omitempty" yaml:"retry_after_ms,omitempty"`
}

// StreamError is an error event sent inside an otherwise normal stream.
// On the Responses API it is a response.failed event whose error.code is
// Type (Codex retries server_error, and rate_limit_exceeded after the
// "try again in Ns" its message gives).
type StreamError struct {
	Type    string `json:"type" yaml:"type"`
	Message string `json:"message,omitempty" yaml:"message,omitempty"`
	// AfterEvents is how many events precede the error; by default the
	// error follows the first content delta.
	AfterEvents int `json:"after_events,omitempty" yaml:"after_events,omitempty"`
}

// ParseScenario reads a scenario in YAML or JSON. Unknown fields and bad
// values are errors that name the field and the rule.
func ParseScenario(data []byte) (*Scenario, error) {
	var generic any
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("scenario is empty")
	}
	if trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&generic); err != nil {
			return nil, fmt.Errorf("scenario is not valid JSON: %w", err)
		}
	} else {
		if err := yaml.Unmarshal(trimmed, &generic); err != nil {
			return nil, fmt.Errorf("scenario is not valid YAML: %w", err)
		}
		var err error
		if generic, err = jsonCompatible(generic, ""); err != nil {
			return nil, err
		}
	}
	if _, ok := generic.(map[string]any); !ok {
		return nil, fmt.Errorf("scenario must be a mapping with a rules list, got %s", kindOf(generic))
	}
	if err := checkShape(generic, reflect.TypeFor[Scenario](), ""); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(generic)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &sc, nil
}

// LoadScenario reads and parses a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	sc, err := ParseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// Validate reports the first bad value in the scenario, naming the rule
// and field.
func (sc *Scenario) Validate() error {
	if sc == nil {
		return errors.New("scenario is nil")
	}
	for i, m := range sc.Models {
		if m == "" {
			return fmt.Errorf("models[%d]: empty model name", i)
		}
	}
	if sc.ContextWindow < 0 {
		return fmt.Errorf("context_window: %d is negative", sc.ContextWindow)
	}
	for model, n := range sc.ContextWindows {
		if n <= 0 {
			return fmt.Errorf("context_windows[%q]: %d is not a positive window", model, n)
		}
	}
	if sc.CacheMinTokens < 0 {
		return fmt.Errorf("cache_min_tokens: %d is negative", sc.CacheMinTokens)
	}
	for i := range sc.Rules {
		r := &sc.Rules[i]
		if err := r.validate(); err != nil {
			return fmt.Errorf("%s: %w", ruleLabel(i, r.Name), err)
		}
	}
	return nil
}

func ruleLabel(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("rules[%d]", i)
	}
	return fmt.Sprintf("rules[%d] %q", i, name)
}

func (r *Rule) validate() error {
	switch r.Match.API {
	case "", APIAnthropic, APIOpenAI, APIResponses:
	default:
		return fmt.Errorf("match.api: %q is not %q, %q or %q", r.Match.API, APIAnthropic, APIOpenAI, APIResponses)
	}
	for i, name := range r.Match.ToolsInclude {
		if name == "" {
			return fmt.Errorf("match.tools_include[%d]: empty tool name", i)
		}
	}
	for i, text := range r.Match.ToolResultsContainAll {
		if text == "" {
			return fmt.Errorf("match.tool_results_contain_all[%d]: empty text", i)
		}
	}
	for i, text := range r.Match.UserTextsContainAll {
		if text == "" {
			return fmt.Errorf("match.user_texts_contain_all[%d]: empty text", i)
		}
	}
	for i, name := range r.Match.ToolsExclude {
		if name == "" {
			return fmt.Errorf("match.tools_exclude[%d]: empty tool name", i)
		}
	}
	if r.Times < 0 {
		return fmt.Errorf("times: %d is negative", r.Times)
	}
	switch {
	case r.Respond == nil && len(r.Sequence) == 0:
		return errors.New("needs respond or sequence")
	case r.Respond != nil && len(r.Sequence) > 0:
		return errors.New("has both respond and sequence; give one")
	case r.Respond != nil:
		if err := r.Respond.validate(); err != nil {
			return fmt.Errorf("respond.%w", err)
		}
	}
	for i := range r.Sequence {
		if err := r.Sequence[i].validate(); err != nil {
			return fmt.Errorf("sequence[%d].%w", i, err)
		}
	}
	return nil
}

// validate returns errors that start with a field name so callers can
// prefix the path with "respond." or "sequence[i].".
func (resp *Response) validate() error {
	if resp.DelayMS < 0 {
		return fmt.Errorf("delay_ms: %d is negative", resp.DelayMS)
	}
	if resp.ChunkDelayMS < 0 {
		return fmt.Errorf("chunk_delay_ms: %d is negative", resp.ChunkDelayMS)
	}
	if resp.CutAfterEvents < 0 {
		return fmt.Errorf("cut_after_events: %d is negative", resp.CutAfterEvents)
	}
	if resp.StopReason != "" {
		if _, ok := stopReasons(resp.StopReason); !ok {
			return fmt.Errorf("stop_reason: %q is not a known stop reason (%s)", resp.StopReason, knownStopReasons())
		}
	}
	if u := resp.Usage; u != nil && (u.InputTokens < 0 || u.OutputTokens < 0) {
		return errors.New("usage: token counts must not be negative")
	}
	for i, tc := range resp.ToolCalls {
		if tc.Name == "" {
			return fmt.Errorf("tool_calls[%d].name: missing", i)
		}
		if c := tc.Collect; c != nil && (c.JSONField == "" || c.Into == "") {
			return fmt.Errorf("tool_calls[%d].collect: needs json_field and into", i)
		}
	}
	modes := 0
	if resp.Error != nil {
		modes++
		e := resp.Error
		if e.Status < 400 || e.Status > 599 {
			return fmt.Errorf("error.status: %d is not an HTTP error status (400-599)", e.Status)
		}
		if e.RetryAfter < 0 || e.RetryAfterMS < 0 {
			return errors.New("error.retry_after: must not be negative")
		}
		if resp.Text != "" || len(resp.ToolCalls) > 0 {
			return errors.New("error: an error answer cannot also have text or tool_calls")
		}
	}
	if resp.StreamError != nil {
		modes++
		if resp.StreamError.Type == "" {
			return errors.New("stream_error.type: missing")
		}
		if resp.StreamError.AfterEvents < 0 {
			return fmt.Errorf("stream_error.after_events: %d is negative", resp.StreamError.AfterEvents)
		}
	}
	if resp.CutAfterEvents > 0 {
		modes++
	}
	if resp.Malformed {
		modes++
	}
	if modes > 1 {
		return errors.New("error: give at most one of error, stream_error, cut_after_events, malformed")
	}
	return nil
}

// stopReasons gives an accepted stop reason's Anthropic, OpenAI Chat
// Completions and Responses spelling; ok is false for an unknown one. The
// Responses API has no stop reason: a response either completes ("") or
// is incomplete for the reason given. (A switch, not a map: a
// package-level map is built at init in every atomic process, loopback
// server or not.)
func stopReasons(reason string) (spellings [3]string, ok bool) {
	switch reason {
	case "end_turn", "stop":
		return [3]string{"end_turn", "stop", ""}, true
	case "tool_use", "tool_calls":
		return [3]string{"tool_use", "tool_calls", ""}, true
	case "max_tokens", "length":
		return [3]string{"max_tokens", "length", "max_output_tokens"}, true
	case "stop_sequence":
		return [3]string{"stop_sequence", "stop", ""}, true
	case "pause_turn":
		return [3]string{"pause_turn", "stop", ""}, true
	case "refusal", "content_filter":
		return [3]string{"refusal", "content_filter", "content_filter"}, true
	}
	return [3]string{}, false
}

func knownStopReasons() string {
	return "end_turn, tool_use, max_tokens, stop_sequence, pause_turn, refusal, stop, tool_calls, length, content_filter"
}

// stopReasonFor is resp's stop reason in api's vocabulary.
func (resp *Response) stopReasonFor(api string) string {
	reason := resp.StopReason
	if reason == "" {
		reason = "end_turn"
		if len(resp.ToolCalls) > 0 {
			reason = "tool_use"
		}
	}
	spellings, _ := stopReasons(reason)
	switch api {
	case APIOpenAI:
		return spellings[1]
	case APIResponses:
		return spellings[2]
	}
	return spellings[0]
}

// jsonCompatible turns a decoded YAML value into one encoding/json can
// marshal: YAML allows non-string mapping keys, JSON does not.
func jsonCompatible(v any, path string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			c, err := jsonCompatible(e, joinPath(path, k))
			if err != nil {
				return nil, err
			}
			v[k] = c
		}
		return v, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%s: mapping key %v is not a string", orRoot(path), k)
			}
			c, err := jsonCompatible(e, joinPath(path, ks))
			if err != nil {
				return nil, err
			}
			out[ks] = c
		}
		return out, nil
	case []any:
		for i, e := range v {
			c, err := jsonCompatible(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			v[i] = c
		}
		return v, nil
	default:
		return v, nil
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "scenario"
	}
	return strings.TrimPrefix(path, ".")
}
