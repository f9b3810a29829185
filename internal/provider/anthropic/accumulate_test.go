package anthropic

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// events decodes wire events as the SDK's stream does.
func events(t testing.TB, raws ...string) []sdk.MessageStreamEventUnion {
	t.Helper()
	evs := make([]sdk.MessageStreamEventUnion, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal([]byte(raw), &evs[i]); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	return evs
}

// mixedAnswer has every kind of block read keeps, input both whole in the
// start event and streamed in pieces, and usage the delta partly restates.
func mixedAnswer() []string {
	return []string{
		messageStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me "}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"see"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"I will "}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"look <&>"}}`,
		`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"\"a.go\"}"}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"content_block_stop","index":3}`,
		`{"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_2","name":"bash","input":{"command":"ls"}}}`,
		`{"type":"content_block_stop","index":4}`,
		`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"toolu_3","name":"task","input":{}}}`,
		`{"type":"content_block_stop","index":5}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42,"cache_read_input_tokens":4100}}`,
		`{"type":"message_stop"}`,
	}
}

func TestTheAnswerReadKeepsIsWhatTheSDKsAccumulateMakesOfTheSameEvents(t *testing.T) {
	var a answer
	var want sdk.Message
	for i, ev := range events(t, mixedAnswer()...) {
		if err := a.add(&ev); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if err := want.Accumulate(ev); err != nil {
			t.Fatalf("the SDK, event %d: %v", i, err)
		}
	}
	if a.model != string(want.Model) || a.stopReason != want.StopReason {
		t.Errorf("model %q, stop %q; the SDK: %q, %q", a.model, a.stopReason, want.Model, want.StopReason)
	}
	u, w := a.usage, want.Usage
	if u.InputTokens != w.InputTokens || u.OutputTokens != w.OutputTokens || u.CacheReadInputTokens != w.CacheReadInputTokens || u.CacheCreationInputTokens != w.CacheCreationInputTokens {
		t.Errorf("usage %+v; the SDK: %+v", u, w)
	}
	if u.OutputTokens != 42 || u.CacheReadInputTokens != 4100 || u.InputTokens != 10 {
		t.Errorf("usage %+v, want the delta's 42 out and 4100 read over the start's, the start's 10 in", u)
	}
	if len(a.blocks) != len(want.Content) {
		t.Fatalf("%d blocks; the SDK: %d", len(a.blocks), len(want.Content))
	}
	for i, b := range a.blocks {
		c := want.Content[i]
		if b.typ != c.Type || b.id != c.ID || b.name != c.Name || b.text != c.Text || b.thinking != c.Thinking || b.sig != c.Signature || b.data != c.Data {
			t.Errorf("block %d = %+v; the SDK: %+v", i, b, c)
		}
		if !bytes.Equal(b.input, c.Input) {
			t.Errorf("block %d input %s; the SDK: %s", i, b.input, c.Input)
		}
	}
}

func TestEventsForABlockOutOfPlaceAreRefusedAsTheSDKRefusesThem(t *testing.T) {
	for name, evs := range map[string][]string{
		"a start skipping an index": {messageStart, `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
		"a delta for no block":      {messageStart, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`},
		"a stop past the last":      {messageStart, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, `{"type":"content_block_stop","index":1}`},
		"a negative index":          {messageStart, `{"type":"content_block_stop","index":-1}`},
	} {
		t.Run(name, func(t *testing.T) {
			var a answer
			var want sdk.Message
			var got, sdkErr error
			for _, ev := range events(t, evs...) {
				if got == nil {
					got = a.add(&ev)
				}
				if sdkErr == nil {
					sdkErr = want.Accumulate(ev)
				}
			}
			if got == nil || sdkErr == nil || got.Error() != sdkErr.Error() {
				t.Fatalf("error %v; the SDK's: %v", got, sdkErr)
			}
			if !strings.Contains(got.Error(), "content block at index") {
				t.Fatalf("error %v does not name the index", got)
			}
		})
	}
}

// BenchmarkKeepAnAnswerWithAThousandToolCalls is what keeping a fan-out
// lead's answer costs once the SDK has decoded its events: read's own
// accumulation against the SDK's Accumulate, which it replaced.
func BenchmarkKeepAnAnswerWithAThousandToolCalls(b *testing.B) {
	raws := []string{messageStart}
	for i := range 1000 {
		raws = append(raws,
			`{"type":"content_block_start","index":`+strconv.Itoa(i)+`,"content_block":{"type":"tool_use","id":"toolu_`+strconv.Itoa(i)+`","name":"task","input":{}}}`,
			`{"type":"content_block_delta","index":`+strconv.Itoa(i)+`,"delta":{"type":"input_json_delta","partial_json":"{\"description\":\"task\",\"prompt\":\"TASK\"}"}}`,
			`{"type":"content_block_stop","index":`+strconv.Itoa(i)+`}`)
	}
	raws = append(raws, `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`, `{"type":"message_stop"}`)
	evs := events(b, raws...)
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var a answer
			for i := range evs {
				if err := a.add(&evs[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("sdk-accumulate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m sdk.Message
			for i := range evs {
				if err := m.Accumulate(evs[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
