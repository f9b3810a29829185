package loopback

import (
	"encoding/json"
	"maps"
	"time"
)

// OpenAI Responses API answers
// (https://platform.openai.com/docs/api-reference/responses/object and
// .../responses-streaming). Errors have the Chat Completions shape.

// responsesOut builds the response object and its stream for one answer.
type responsesOut struct {
	a       *answer
	rr      *responsesRequest
	created time.Time
}

// object is the response object with the given status, output and usage:
// the non-streaming body and the snapshot that response.created,
// .in_progress, .completed, .incomplete and .failed carry.
func (o responsesOut) object(status string, output []any, withUsage bool, failure map[string]any) map[string]any {
	a, rr := o.a, o.rr
	var instructions any
	if rr.instructions != nil {
		instructions = *rr.instructions
	}
	var tools any = []any{}
	if len(rr.tools) > 0 {
		tools = json.RawMessage(rr.tools)
	}
	var toolChoice any = "auto"
	if len(rr.toolChoice) > 0 {
		toolChoice = json.RawMessage(rr.toolChoice)
	}
	var previous any
	if rr.previousID != "" {
		previous = rr.previousID
	}
	var incomplete any
	if status == "incomplete" {
		incomplete = map[string]any{"reason": a.stop}
	}
	var usage any
	if withUsage {
		usage = map[string]any{
			"input_tokens":          a.usage.InputTokens,
			"input_tokens_details":  map[string]any{"cached_tokens": a.cache.read},
			"output_tokens":         a.usage.OutputTokens,
			"output_tokens_details": map[string]any{"reasoning_tokens": a.thinkingTokens},
			"total_tokens":          a.usage.InputTokens + a.usage.OutputTokens,
		}
	}
	var errField any
	if failure != nil {
		errField = failure
	}
	if output == nil {
		output = []any{}
	}
	reasoning := map[string]any{"effort": nil, "summary": nil}
	if a.reasoningID != "" {
		reasoning["effort"] = rr.effort
		if rr.summary != "" {
			reasoning["summary"] = rr.summary
		}
	}
	return map[string]any{
		"id": a.id, "object": "response", "created_at": o.created.Unix(), "status": status,
		"background": false, "error": errField, "incomplete_details": incomplete,
		"instructions": instructions, "max_output_tokens": nil, "model": a.model,
		"output": output, "parallel_tool_calls": rr.parallelToolCalls,
		"previous_response_id": previous, "reasoning": reasoning,
		"store": rr.store, "temperature": 1.0, "text": map[string]any{"format": map[string]any{"type": "text"}},
		"tool_choice": toolChoice, "tools": tools, "top_p": 1.0, "truncation": "disabled",
		"usage": usage, "user": nil, "metadata": map[string]any{},
	}
}

// status is the response's and its message's status: "completed", or
// "incomplete" when the scripted stop reason is one the Responses API
// reports as an incomplete response.
func (o responsesOut) status() string {
	if o.a.stop != "" {
		return "incomplete"
	}
	return "completed"
}

func (o responsesOut) textPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

// messageItem is the output message; content is nil while it streams.
func (o responsesOut) messageItem(status string, content []any) map[string]any {
	if content == nil {
		content = []any{}
	}
	return map[string]any{"id": o.a.msgID, "type": "message", "status": status, "role": "assistant", "content": content}
}

// callItem is a function_call or custom_tool_call item; input is its
// arguments (or custom input) so far.
func (o responsesOut) callItem(c answerCall, status, input string) map[string]any {
	item := map[string]any{"id": c.itemID, "type": "function_call", "status": status, "call_id": c.id, "name": c.name, "arguments": input}
	if c.custom {
		item = map[string]any{"id": c.itemID, "type": "custom_tool_call", "status": status, "call_id": c.id, "name": c.name, "input": input}
	}
	if c.namespace != "" {
		item["namespace"] = c.namespace
	}
	return item
}

// reasoningItem is the reasoning item, with its summary and sealed
// thinking when the request asked for them; done says whether it is
// finished (the summary text is streamed in between).
func (o responsesOut) reasoningItem(done bool) map[string]any {
	summary := []any{}
	if done && o.rr.summary != "" {
		summary = append(summary, map[string]any{"type": "summary_text", "text": o.a.thinking})
	}
	item := map[string]any{"id": o.a.reasoningID, "type": "reasoning", "summary": summary}
	if o.a.sealed != "" {
		item["encrypted_content"] = o.a.sealed
	}
	return item
}

// output is the finished output items: the reasoning, the message, then
// the calls.
func (o responsesOut) output() []any {
	var out []any
	if o.a.reasoningID != "" {
		out = append(out, o.reasoningItem(true))
	}
	if o.a.msgID != "" {
		out = append(out, o.messageItem(o.status(), []any{o.textPart(o.a.text)}))
	}
	for _, c := range o.a.calls {
		out = append(out, o.callItem(c, "completed", string(c.input)))
	}
	return out
}

// body is the non-streaming answer.
func (o responsesOut) body() []byte {
	return mustJSON(o.object(o.status(), o.output(), true, nil))
}

// responsesEvent is event typ, the seq-th of its stream (counting from 0).
func responsesEvent(typ string, seq int, fields map[string]any) sseEvent {
	fields["type"] = typ
	fields["sequence_number"] = seq
	return sseEvent{name: typ, data: mustJSON(fields)}
}

// responsesEvents numbers events as the real stream does.
type responsesEvents struct{ events []sseEvent }

func (s *responsesEvents) add(typ string, fields map[string]any, delta bool) {
	e := responsesEvent(typ, len(s.events), fields)
	e.delta = delta
	s.events = append(s.events, e)
}

// events is the streamed answer: response.created and .in_progress; the
// message item (added, its output_text part added, text deltas, text
// done, part done, item done); each call item (added, argument or input
// deltas and done, item done); and response.completed (or .incomplete)
// with the whole output and usage.
func (o responsesOut) events() []sseEvent {
	var s responsesEvents
	s.add("response.created", map[string]any{"response": o.object("in_progress", nil, false, nil)}, false)
	s.add("response.in_progress", map[string]any{"response": o.object("in_progress", nil, false, nil)}, false)
	index := 0
	if id := o.a.reasoningID; id != "" {
		s.add("response.output_item.added", map[string]any{"output_index": index, "item": o.reasoningItem(false)}, false)
		if o.rr.summary != "" {
			part := func(text string) map[string]any { return map[string]any{"type": "summary_text", "text": text} }
			at := map[string]any{"item_id": id, "output_index": index, "summary_index": 0}
			with := func(k string, v any) map[string]any {
				m := maps.Clone(at)
				m[k] = v
				return m
			}
			s.add("response.reasoning_summary_part.added", with("part", part("")), false)
			for _, piece := range splitText(o.a.thinking, 16, 2) {
				s.add("response.reasoning_summary_text.delta", with("delta", piece), true)
			}
			s.add("response.reasoning_summary_text.done", with("text", o.a.thinking), false)
			s.add("response.reasoning_summary_part.done", with("part", part(o.a.thinking)), false)
		}
		s.add("response.output_item.done", map[string]any{"output_index": index, "item": o.reasoningItem(true)}, false)
		index++
	}
	if o.a.msgID != "" {
		id := o.a.msgID
		s.add("response.output_item.added", map[string]any{"output_index": index, "item": o.messageItem("in_progress", nil)}, false)
		s.add("response.content_part.added", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": o.textPart("")}, false)
		for _, piece := range splitText(o.a.text, 16, 2) {
			s.add("response.output_text.delta", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "delta": piece, "logprobs": []any{}}, true)
		}
		s.add("response.output_text.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "text": o.a.text, "logprobs": []any{}}, false)
		s.add("response.content_part.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "part": o.textPart(o.a.text)}, false)
		s.add("response.output_item.done", map[string]any{"output_index": index, "item": o.messageItem(o.status(), []any{o.textPart(o.a.text)})}, false)
		index++
	}
	for _, c := range o.a.calls {
		kind, field := "response.function_call_arguments", "arguments"
		if c.custom {
			kind, field = "response.custom_tool_call_input", "input"
		}
		s.add("response.output_item.added", map[string]any{"output_index": index, "item": o.callItem(c, "in_progress", "")}, false)
		for _, piece := range splitText(string(c.input), 24, 3) {
			s.add(kind+".delta", map[string]any{"item_id": c.itemID, "output_index": index, "delta": piece}, true)
		}
		s.add(kind+".done", map[string]any{"item_id": c.itemID, "output_index": index, field: string(c.input)}, false)
		s.add("response.output_item.done", map[string]any{"output_index": index, "item": o.callItem(c, "completed", string(c.input))}, false)
		index++
	}
	status := o.status()
	s.add("response."+status, map[string]any{"response": o.object(status, o.output(), true, nil)}, false)
	return s.events
}

// failed is the response.failed event that ends a stream scripted with a
// stream_error; code is the scripted error type, seq its place in the
// stream.
func (o responsesOut) failed(code, message string, seq int) sseEvent {
	if message == "" {
		message = statusText(statusForErrorType(code))
	}
	return responsesEvent("response.failed", seq, map[string]any{"response": o.object("failed", nil, false, map[string]any{"code": code, "message": message})})
}

// responsesMalformed is a text delta event whose JSON is cut off.
func responsesMalformed(a *answer) sseEvent {
	return sseEvent{name: "response.output_text.delta", data: []byte(`{"type":"response.output_text.delta","item_id":"` + a.msgID + `","output_index":0,"content_index":0,"delta":"broken`)}
}
