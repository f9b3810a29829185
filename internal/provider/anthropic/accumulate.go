package anthropic

import (
	"encoding/json"
	"fmt"
)

// answer accumulates what read uses of a streamed message from its
// events. It replaces sdk.Message.Accumulate, which also keeps the
// whole message's wire JSON up to date after every event (each block
// decoded a second time, then patched with sjson): a third of what reading
// a sub-agent's answer cost, and for the lead's thousand task calls more
// than its own decoding. The checks and the block semantics are
// Accumulate's.
type answer struct {
	model      string
	stopReason string
	usage      usage
	blocks     []block
}

// usage is the answer's token counts.
type usage struct{ input, output, cacheCreation, cacheRead int64 }

// block is one content block as far as read uses it.
type block struct {
	typ, id, name             string
	text, thinking, sig, data string
	input                     json.RawMessage
}

func (a *answer) add(ev *wireEvent) error {
	switch ev.Type {
	case "message_start":
		*a = answer{}
		if m := ev.Message; m != nil {
			a.model, a.stopReason = m.Model, m.StopReason
			a.usage = usage{output: m.Usage.OutputTokens}
			a.usage.update(&m.Usage)
			for i := range m.Content {
				a.blocks = append(a.blocks, newBlock(&m.Content[i]))
			}
		}
	case "message_delta":
		// Cumulative totals: they overwrite; those not sent keep
		// message_start's word.
		a.stopReason = ev.Delta.StopReason
		a.usage.output = ev.Usage.OutputTokens
		a.usage.update(&ev.Usage)
	case "content_block_start":
		if ev.Index != int64(len(a.blocks)) {
			return fmt.Errorf("received event of type %s for content block at index %d, expected index %d", ev.Type, ev.Index, len(a.blocks))
		}
		a.blocks = append(a.blocks, newBlock(&ev.ContentBlock))
	case "content_block_delta":
		if err := a.check(ev); err != nil {
			return err
		}
		b := &a.blocks[ev.Index]
		switch d := &ev.Delta; d.Type {
		case "text_delta":
			b.text += d.Text
		case "input_json_delta":
			if d.PartialJSON != "" {
				if string(b.input) == "{}" {
					b.input = json.RawMessage(d.PartialJSON)
				} else {
					b.input = append(b.input, d.PartialJSON...)
				}
			}
		case "thinking_delta":
			b.thinking += d.Thinking
		case "signature_delta":
			b.sig += d.Signature
		}
	case "content_block_stop":
		if err := a.check(ev); err != nil {
			return err
		}
		// As Accumulate: input that is not JSON is sent back as {} (read
		// refuses it before it gets here).
		if b := &a.blocks[ev.Index]; len(b.input) > 0 && !json.Valid(b.input) {
			b.input = json.RawMessage(`{}`)
		}
	}
	return nil
}

func (a *answer) check(ev *wireEvent) error {
	if ev.Index < 0 || ev.Index >= int64(len(a.blocks)) {
		return fmt.Errorf("received event of type %s for content block at index %d but there are only %d content blocks", ev.Type, ev.Index, len(a.blocks))
	}
	return nil
}

func newBlock(c *wireBlock) block {
	return block{typ: c.Type, id: c.ID, name: c.Name, text: c.Text, thinking: c.Thinking, sig: c.Signature, data: c.Data, input: c.input()}
}

// update takes the counts u carries.
func (u *usage) update(w *wireUsage) {
	if w.InputTokens != nil {
		u.input = *w.InputTokens
	}
	if w.CacheCreationInputTokens != nil {
		u.cacheCreation = *w.CacheCreationInputTokens
	}
	if w.CacheReadInputTokens != nil {
		u.cacheRead = *w.CacheReadInputTokens
	}
}
