package observe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/atomic-agent/atomic/internal/bus"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/redact"
	"github.com/atomic-agent/atomic/internal/testkit"
)

func TestNeitherTheLifecycleLogNorTheOTelExportHoldsASecret(t *testing.T) {
	const known = "env-secret-7c6b5a4f3e2d"                   // a credential of the environment
	const typed = "sk-ant-api03-Lm90Nb81Vc72Xz63As54Df45Gh36" // key-shaped, known to no one
	path := filepath.Join(t.TempDir(), "atomic.log")
	file := NewLogFile(path)
	col := testkit.NewCollector(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": col.URL()}
	otel := NewOTel(func(k string) string { return env[k] })
	b := bus.New()
	obs := Watch(b, func() time.Time { return at(9) }, redact.New([]string{known}), NewLogger(file), otel)
	failed := finish(3, "lead", "explore-1", "c1", false, 1, event.Usage{})
	end := len(failed) - 2 // its subagent.complete
	d := failed[end].Data.(event.SubagentCompleteData)
	d.Error = "401 Unauthorized: x-api-key " + known + " / " + typed
	failed[end].Data = d
	tc := failed[end+1].Data.(event.ToolCompleteData) // the task call's span carries its error
	tc.Error = "sub-agent failed: " + known
	failed[end+1].Data = tc
	lead := leadComplete(4, true)
	ld := lead.Data.(event.CompleteData)
	ld.Error = "provider said: invalid key " + typed
	lead.Data = ld
	for _, e := range flat(leadStart(0), spawn(1, "lead", "explore-1", "c1", "Explore-"+typed, "native", false), failed, lead) {
		b.Emit(e)
	}
	if err := obs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
	if err := otel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `"error":"401 Unauthorized: x-api-key [redacted] / [redacted]"`) {
		t.Fatalf("the log's error line is not the message with both keys masked:\n%s", log)
	}
	var exported []byte
	for _, s := range col.Spans() {
		b, _ := proto.Marshal(s)
		exported = append(exported, b...)
	}
	for _, m := range col.Metrics() {
		b, _ := proto.Marshal(m)
		exported = append(exported, b...)
	}
	if len(col.Spans()) != 3 {
		t.Fatalf("%d spans exported; want the lead's, explore-1's and its task call's", len(col.Spans()))
	}
	for _, k := range []string{known, typed} {
		if strings.Contains(string(log), k) {
			t.Errorf("the lifecycle log holds %q:\n%s", k, log)
		}
		if strings.Contains(string(exported), k) {
			t.Errorf("the OpenTelemetry export holds %q", k)
		}
	}
}
