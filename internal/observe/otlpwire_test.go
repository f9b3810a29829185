package observe

import (
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

func TestAttributeValuesDecodeAsOTLPAnyValuesZeroesIncluded(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want *commonpb.AnyValue
	}{
		{"string", string("Explore"), &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "Explore"}}},
		{"empty string", string(""), &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{}}},
		{"int", int64(-42), &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: -42}}},
		{"zero int", int64(0), &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{}}},
		{"true", bool(true), &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}},
		{"false", bool(false), &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{}}},
		{"double", float64(0.25), &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 0.25}}},
		{"zero double", float64(0), &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := &commonpb.AnyValue{}
			if err := proto.Unmarshal(valuePB(tt.in), got); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, tt.want) {
				t.Errorf("decoded %v, want %v", got, tt.want)
			}
		})
	}
}
