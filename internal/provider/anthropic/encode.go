package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
)

// request is what each attempt of a turn sends: the body, encoded once,
// and the parameters it was made from, for whoever reads them (read
// reports the model).
type request struct {
	params sdk.MessageNewParams
	body   []byte // nil: the SDK encodes params itself (and reports why they do not encode)
}

// placeholder is what the SDK encodes of params whose body a request
// sends itself: it would otherwise encode them again on every attempt
// (deep reflection, then a compaction of the whole, every tool's cached
// JSON included) and copy the result once more to add "stream".
var placeholder = json.RawMessage(`{}`)

// streamField is what the SDK adds to a body it streams, where it adds it.
const streamField = `,"stream":true}`

// send is the SDK middleware that puts r's body on an attempt's HTTP
// request in place of the SDK's encoding of the placeholder, so the body
// is held once while the answer is awaited, not also as the SDK's copy.
func (r *request) send(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	req.ContentLength = int64(len(r.body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(r.body)), nil }
	req.Body, _ = req.GetBody()
	return next(req)
}

// options are the SDK options that send r, streamed: without a body of
// its own the SDK adds the stream flag, as Messages.NewStreaming does.
func (r *request) options() []option.RequestOption {
	if r.body == nil {
		return []option.RequestOption{option.WithJSONSet("stream", true)}
	}
	return []option.RequestOption{option.WithMiddleware(r.send)}
}

// encode makes the request for params. The body is the bytes the SDK
// sends of params, built from the SDK's encoding of params without their
// tools, each tool's cached JSON, spliced in where the SDK puts tools
// (last), and the stream flag, added where the SDK adds it. A tool not
// from the cache is encoded by the SDK here.
//
// The SDK's encoding runs on a goroutine of its own: it recurses deeply
// through reflection, which grows the stack of the goroutine doing it to
// tens of KB, and the agent's goroutine then waits in the SDK for the
// answer with that stack (a wait allocates nothing, so no GC comes to
// shrink it). With 1,000 sub-agents that was 70 MB of stacks; a goroutine
// that ends gives its stack back.
func encode(params sdk.MessageNewParams) *request {
	type encoded struct {
		raw []byte
		err error
	}
	done := make(chan encoded, 1)
	go func() {
		raw, err := encodeBody(params)
		done <- encoded{raw, err}
	}()
	e := <-done
	if e.err != nil {
		return &request{params: params}
	}
	ov := param.Override[sdk.MessageNewParams](placeholder)
	from, to := reflect.ValueOf(&params).Elem(), reflect.ValueOf(&ov).Elem()
	for i := range from.NumField() {
		if from.Type().Field(i).IsExported() {
			to.Field(i).Set(from.Field(i))
		}
	}
	return &request{params: ov, body: e.raw}
}

// encodeBody is params as the SDK streams them, with each cached tool's
// JSON copied in rather than encoded and compacted again.
func encodeBody(params sdk.MessageNewParams) ([]byte, error) {
	tools := params.Tools
	params.Tools = nil
	head, err := params.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if len(head) < 2 || head[0] != '{' || head[len(head)-1] != '}' {
		return nil, errors.New("the SDK did not encode the request as an object")
	}
	raws := make([]json.RawMessage, len(tools))
	size := len(head) + len(`,"tools":[]`) + len(streamField)
	for i, t := range tools {
		if raws[i] = cachedJSON(t); raws[i] == nil {
			// json.Marshal compacts, as the SDK does a tool inside params.
			if raws[i], err = json.Marshal(t); err != nil {
				return nil, err
			}
		}
		size += len(raws[i]) + 1
	}
	body := make([]byte, 0, size)
	body = append(body, head[:len(head)-1]...) // without its closing brace
	// As the SDK: [] for an empty list of tools, nothing for none.
	if tools != nil {
		if len(head) > 2 {
			body = append(body, ',')
		}
		body = append(body, `"tools":[`...)
		for i, raw := range raws {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, raw...)
		}
		body = append(body, ']')
	}
	if len(body) == 1 {
		return append(body, streamField[1:]...), nil
	}
	return append(body, streamField...), nil
}

// cachedJSON is t's JSON from the tool cache, or nil for a tool not from
// it.
func cachedJSON(t sdk.ToolUnionParam) json.RawMessage {
	if t.OfTool == nil {
		return nil
	}
	ov, ok := t.OfTool.Overrides()
	if !ok {
		return nil
	}
	raw, _ := ov.(json.RawMessage)
	return raw
}
