package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/atomic-agent/atomic/internal/observe"
	"github.com/atomic-agent/atomic/internal/redact"
	"github.com/atomic-agent/atomic/internal/runtime"
)

// otelFlushTimeout bounds the flush of OpenTelemetry's spans and metrics
// when the run ends.
const otelFlushTimeout = 5 * time.Second

// observeRun starts the lifecycle log of rt's run in the state directory
// (unless noDisk: --no-session-persistence leaves nothing of the session on
// disk) and, with OTEL_EXPORTER_OTLP_ENDPOINT set, its OpenTelemetry
// export, both with red's secrets masked. A log that cannot be written is one warning at the end; the run
// goes on. The returned func closes rt, then the observers, so the
// agents' last events are in them, and flushes the export.
func observeRun(ios IOStreams, rt *runtime.Runtime, noDisk bool, red *redact.Redactor) (closeRun func()) {
	var sinks []observe.SpanSink
	var file *observe.LogFile
	if !noDisk {
		if path, err := observe.LogPath(ios.Getenv); err != nil {
			fmt.Fprintf(ios.Err, "atomic: warning: %v; agents are not logged\n", err)
		} else {
			file = observe.NewLogFile(path) // opened at its first line, off the start path
			sinks = append(sinks, observe.NewLogger(file))
		}
	}
	var otel *observe.OTel
	if observe.OTelEnabled(ios.Getenv) {
		otel = observe.NewOTel(ios.Getenv)
		sinks = append(sinks, otel)
	}
	obs := observe.Watch(rt.Bus(), time.Now, red, sinks...)
	return func() {
		rt.Close()
		if err := obs.Close(); err != nil {
			fmt.Fprintf(ios.Err, "atomic: warning: %v\n", err)
		}
		if otel != nil {
			ctx, cancel := context.WithTimeout(context.Background(), otelFlushTimeout)
			defer cancel()
			if err := otel.Shutdown(ctx); err != nil {
				fmt.Fprintf(ios.Err, "atomic: warning: %v\n", err)
			}
		}
		if file != nil {
			if err := file.Close(); err != nil {
				fmt.Fprintf(ios.Err, "atomic: warning: lifecycle log: %v\n", err)
			}
		}
	}
}
