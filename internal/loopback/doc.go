// Package loopback is a scripted model server for tests. It speaks the real
// Anthropic Messages API (POST /v1/messages), OpenAI Chat Completions API
// (POST /v1/chat/completions) and OpenAI Responses API (POST /v1/responses)
// wire formats, streaming and not, so the official SDK clients, and agent
// CLIs such as Codex (which speaks only the Responses API), talk to it as
// to the real services, and it answers each request from a Scenario of
// rules. The same rules serve all three APIs: each request is read into
// one API-neutral form (system prompt, tool names, messages, the last
// turn's tool results) that the rules match on.
//
// The Responses endpoint reads instructions and the input items message
// (user, assistant, system, developer), function_call,
// function_call_output, custom_tool_call(_output) and
// local_shell_call(_output) and reasoning (whose encrypted_content is
// checked, see Thinking); other items (web_search_call, ...) and settings
// (store, text, ...) are accepted and ignored. Tools of every type count by name for
// tools_include (namespace members too; unnamed ones such as local_shell
// and web_search by type). Streams carry the real event sequence with
// sequence numbers, from response.created to response.completed with
// usage; scripted tool calls become function_call items (custom_tool_call
// for freeform tools, with the namespace for namespaced ones), and a
// stream_error becomes response.failed. It stores nothing, so
// previous_response_id is accepted but earlier turns are not recalled.
//
// Token counts. A request's input is EstimateTokens of its body: one
// token per 4 bytes, at least 1 (system prompt, tools, images and JSON
// included). Output is the same estimate of the answer's text, tool
// inputs and thinking. Both are the default usage and every figure below
// derives from them, so tests can predict each one. A rule's own usage
// is reported as written: its input is not split into cache reads and
// writes (the request log still records what the cache did).
//
// Context window. A scenario's context_window (and context_windows, per
// model) makes the server refuse a request whose input exceeds the
// window, before any rule is used, with the real errors: Anthropic 400
// invalid_request_error "prompt is too long: N tokens > W maximum"; Chat
// Completions 400 context_length_exceeded ("This model's maximum context
// length is W tokens. However, your messages resulted in N tokens. ...",
// param messages); Responses 400 context_length_exceeded ("Your input
// exceeds the context window of this model. ...", param input). Every
// logged request carries input_tokens and context_window (MaxInputTokens).
//
// Prompt caching (cache.go). Anthropic: blocks with cache_control (tools,
// system blocks, message content blocks; more than 4 is the real 400 "A
// maximum of 4 blocks with cache_control may be provided. Found N.") mark
// breakpoints. The prompt is cut into blocks in the order tools, system,
// messages, each compared by its canonical JSON (keys sorted,
// cache_control removed). The longest prefix an earlier request wrote, at
// a block boundary up to 20 blocks before a breakpoint, is read
// (cache_read_input_tokens); the prefix up to each breakpoint is written,
// the tokens from the end of the read to the last breakpoint counted as
// cache_creation_input_tokens; input_tokens is the rest of the estimate.
// Prefixes shorter than cache_min_tokens (default 1024) are not cached.
// The counts are in the body, message_start and message_delta; a request
// without cache_control reports zeros as before. OpenAI (both APIs):
// requests that carry a prompt_cache_key (unlike the real service, which
// caches every prompt: unkeyed requests keep their old figures) read the
// longest earlier prefix at an item boundary (tools, then messages or
// instructions, tools, input items), at least cache_min_tokens, in
// 128-token steps, reported as prompt_tokens_details.cached_tokens /
// input_tokens_details.cached_tokens. The log records the tokens read and
// written, the read prefix's hash, each breakpoint with its prefix's
// tokens and hash (equal exactly when the prefixes are byte-identical)
// and the prompt_cache_key. The cache never expires.
//
// Thinking (thinking.go). Anthropic: a request with thinking {type:
// enabled, budget_tokens} (1024 or more and less than max_tokens, else the
// real 400s) or {type: adaptive} gets a thinking block first (streamed as
// thinking_delta and signature_delta), its text the rule's thinking or a
// default; its signature is an HMAC under a key drawn per server. Every
// thinking block a request sends back must carry its signature unchanged
// ("messages.i.content.j: Invalid `signature` in `thinking` block"), come
// first in its message, and, with thinking enabled, the assistant turn
// before a tool result must start with one (the real "Expected `thinking`
// or `redacted_thinking`, but found ..." 400). Chat Completions: a
// reasoning_effort other than none is logged and reported as
// completion_tokens_details.reasoning_tokens (the estimate of the
// thinking text). Responses: a request with reasoning gets a reasoning
// item first, with the thinking as its summary when reasoning.summary is
// set (streamed as reasoning_summary_text deltas) and an encrypted_content
// when include has reasoning.encrypted_content; an encrypted_content sent
// back that this server did not make, or changed, is the real 400
// invalid_encrypted_content. The log records thinking_budget (-1:
// adaptive), reasoning_effort and thinking_returned, the number of
// thinking blocks or reasoning items sent back and verified.
//
// Model lists (models.go). GET /v1/models answers with the scenario's
// models: Anthropic's page shape ({data: [{type: model, id, display_name,
// created_at}], has_more, first_id, last_id}) when the request carries
// anthropic-version, else OpenAI's ({object: list, data: [{id, object:
// model, created, owned_by}]}), so both SDKs' Models.List read it. The
// key is checked as for the other endpoints; a scenario without models
// answers 404 (every name is served, there is no list).
//
// Every request is recorded in a log (GET /_log, Server.Log) with its
// timing and the conversation the client sent, so tests can prove what a
// client did: that requests overlapped, that tool results went back, that
// a retry happened.
//
// It runs in-process (New, Start, Close) or as a separate program (Run), and
// only ever listens on loopback addresses.
package loopback
