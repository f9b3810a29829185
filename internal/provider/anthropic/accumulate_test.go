package anthropic

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
)

// events decodes wire events as read does, and as the SDK's own stream
// does.
func events(t testing.TB, raws ...string) ([]wireEvent, []sdk.MessageStreamEventUnion) {
	t.Helper()
	evs, sdkEvs := make([]wireEvent, len(raws)), make([]sdk.MessageStreamEventUnion, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal([]byte(raw), &evs[i]); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if err := json.Unmarshal([]byte(raw), &sdkEvs[i]); err != nil {
			t.Fatalf("the SDK, event %d: %v", i, err)
		}
	}
	return evs, sdkEvs
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
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42,"cache_read_input_tokens":4100,"cache_creation_input_tokens":null}}`,
		`{"type":"message_stop"}`,
	}
}

func TestTheAnswerReadKeepsIsWhatTheSDKsAccumulateMakesOfTheSameEvents(t *testing.T) {
	var a answer
	var want sdk.Message
	evs, sdkEvs := events(t, mixedAnswer()...)
	for i := range evs {
		if err := a.add(&evs[i]); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if err := want.Accumulate(sdkEvs[i]); err != nil {
			t.Fatalf("the SDK, event %d: %v", i, err)
		}
	}
	if a.model != string(want.Model) || a.stopReason != string(want.StopReason) {
		t.Errorf("model %q, stop %q; the SDK: %q, %q", a.model, a.stopReason, want.Model, want.StopReason)
	}
	u, w := a.usage, want.Usage
	if u.input != w.InputTokens || u.output != w.OutputTokens || u.cacheRead != w.CacheReadInputTokens || u.cacheCreation != w.CacheCreationInputTokens {
		t.Errorf("usage %+v; the SDK: %+v", u, w)
	}
	if u.output != 42 || u.cacheRead != 4100 || u.input != 10 || u.cacheCreation != 200 {
		t.Errorf("usage %+v, want the delta's 42 out and 4100 read over the start's, the start's 10 in and 200 written (the delta's null)", u)
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
			ours, theirs := events(t, evs...)
			for i := range ours {
				if got == nil {
					got = a.add(&ours[i])
				}
				if sdkErr == nil {
					sdkErr = want.Accumulate(theirs[i])
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

// BenchmarkReadAnAnswer is what reading an answer's events costs once
// they are framed: decoding and keeping them as read does, against the
// SDK's event union and Accumulate, which read used before. A
// sub-agent's one-line answer, and a fan-out lead's thousand task calls.
func BenchmarkReadAnAnswer(b *testing.B) {
	sub := []string{
		messageStart,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`,
		`{"type":"message_stop"}`,
	}
	lead := []string{messageStart}
	for i := range 1000 {
		n := strconv.Itoa(i)
		lead = append(lead,
			`{"type":"content_block_start","index":`+n+`,"content_block":{"type":"tool_use","id":"toolu_`+n+`","name":"task","input":{}}}`,
			`{"type":"content_block_delta","index":`+n+`,"delta":{"type":"input_json_delta","partial_json":"{\"description\":\"task `+n+`\",\"prompt\":\"TASK-`+n+`\"}"}}`,
			`{"type":"content_block_stop","index":`+n+`}`)
	}
	lead = append(lead, `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`, `{"type":"message_stop"}`)
	for _, c := range []struct {
		name string
		raws []string
	}{{"sub-agent", sub}, {"lead-1000-calls", lead}} {
		datas := make([][]byte, len(c.raws))
		for i, r := range c.raws {
			datas[i] = []byte(r)
		}
		b.Run(c.name+"/read", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var a answer
				for _, d := range datas {
					var ev wireEvent
					if err := json.Unmarshal(d, &ev); err != nil {
						b.Fatal(err)
					}
					if err := a.add(&ev); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(c.name+"/sdk", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var m sdk.Message
				for _, d := range datas {
					var ev sdk.MessageStreamEventUnion
					if err := json.Unmarshal(d, &ev); err != nil {
						b.Fatal(err)
					}
					if err := m.Accumulate(ev); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
