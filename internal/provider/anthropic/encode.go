package anthropic

import (
	"encoding/json"
	"reflect"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
)

// preEncoded returns params carrying their own JSON, encoded once on a
// goroutine of its own, so the SDK sends those bytes (its own encoding of
// params) without encoding them again on every attempt.
//
// Why a goroutine of its own: the SDK encodes by deep reflection, which
// grows the stack of the goroutine doing it to tens of KB, and the agent's
// goroutine then waits in the SDK for the answer with that stack (a wait
// allocates nothing, so no GC comes to shrink it). With 1,000 sub-agents
// that was 70 MB of stacks; a goroutine that ends gives its stack back.
// The fields are kept for whoever reads params (the SDK's telemetry). If
// params cannot be encoded they are returned as they are, for the SDK to
// report.
func preEncoded(params sdk.MessageNewParams) sdk.MessageNewParams {
	type encoded struct {
		raw []byte
		err error
	}
	done := make(chan encoded, 1)
	go func() {
		raw, err := params.MarshalJSON()
		done <- encoded{raw, err}
	}()
	e := <-done
	if e.err != nil {
		return params
	}
	ov := param.Override[sdk.MessageNewParams](json.RawMessage(e.raw))
	from, to := reflect.ValueOf(&params).Elem(), reflect.ValueOf(&ov).Elem()
	for i := range from.NumField() {
		if from.Type().Field(i).IsExported() {
			to.Field(i).Set(from.Field(i))
		}
	}
	return ov
}
