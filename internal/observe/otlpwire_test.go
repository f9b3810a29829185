package observe

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

func TestAttributeValuesDecodeAsOTLPAnyValuesZeroesIncluded(t *testing.T) {
	tests := []struct {
		name string
		in   attribute.Value
		want *commonpb.AnyValue
	}{
		{"string", attribute.StringValue("Explore"), &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "Explore"}}},
		{"empty string", attribute.StringValue(""), &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{}}},
		{"int", attribute.Int64Value(-42), &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: -42}}},
		{"zero int", attribute.Int64Value(0), &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{}}},
		{"true", attribute.BoolValue(true), &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: true}}},
		{"false", attribute.BoolValue(false), &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{}}},
		{"double", attribute.Float64Value(0.25), &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 0.25}}},
		{"zero double", attribute.Float64Value(0), &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{}}},
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
