package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestALineMuxKeepsALineSplitOverTwoWritesWholeWhenAnotherSourceWritesBetween(t *testing.T) {
	var out bytes.Buffer
	m := &lineMux{w: &out}
	stream, ctl := m.source(), m.source()
	stream.Write([]byte(`{"type":"assistant","te`))
	ctl.Write([]byte("{\"type\":\"control_response\"}\n"))
	stream.Write([]byte("xt\":\"hi\"}\n{\"type\":\"res"))
	stream.Write([]byte("ult\"}\n"))
	want := "{\"type\":\"control_response\"}\n{\"type\":\"assistant\",\"text\":\"hi\"}\n{\"type\":\"result\"}\n"
	if out.String() != want {
		t.Fatalf("out %q, want %q", out.String(), want)
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Fatalf("%d lines", n)
	}
}
