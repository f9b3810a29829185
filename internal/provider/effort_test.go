package provider

import (
	"strings"
	"testing"
)

func TestParseEffortTakesTheFourLevelsAndNamesABadOne(t *testing.T) {
	for in, want := range map[string]Effort{"": EffortNone, "low": EffortLow, " Medium ": EffortMedium, "HIGH": EffortHigh, "max": EffortMax} {
		if got, err := ParseEffort(in); err != nil || got != want {
			t.Errorf("ParseEffort(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"xhigh", "none", "2"} {
		_, err := ParseEffort(bad)
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) || !strings.Contains(err.Error(), "low, medium, high or max") {
			t.Errorf("ParseEffort(%q) = %v, want an error naming it and the levels", bad, err)
		}
	}
}

func TestAResponsesThinkingComesFirstInItsMessage(t *testing.T) {
	r := Response{Text: "ok", Thinking: []Thinking{{Text: "a", Signature: "s"}, {Redacted: "r"}}, ToolCalls: []ToolCall{{ID: "1", Name: "bash"}}}
	m := r.Message()
	if len(m.Parts) != 4 || m.Parts[0].Thinking.Text != "a" || m.Parts[1].Thinking.Redacted != "r" || m.Parts[2].Text != "ok" || m.Parts[3].ToolCall == nil {
		t.Errorf("parts = %+v", m.Parts)
	}
}
