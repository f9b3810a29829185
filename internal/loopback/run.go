package loopback

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
)

// RunUsage is `atomic loopback --help`.
const RunUsage = `Usage: atomic loopback --scenario FILE [--addr HOST:PORT] [--log FILE]

Serves a scripted model on loopback: the Anthropic Messages, OpenAI Chat
Completions and Responses APIs, answered by the rules of the scenario
(YAML or JSON; see "Writing a loopback scenario" in the README). Prints
"listening on URL" once it serves. Give the URL as --base-url to Atomic.

Flags:
  --scenario FILE
    	scenario file, YAML or JSON (required)
  --addr HOST:PORT
    	loopback address to listen on (default 127.0.0.1:0)
  --log FILE
    	write the request log to this file as JSON lines
`

// Run serves a scenario file as a separate program until ctx is cancelled.
// Flags: --scenario FILE (required), --addr (default 127.0.0.1:0, loopback
// only), --log FILE (the request log as JSON lines, each written when its
// request ends). Once listening it prints exactly one line,
// "listening on http://127.0.0.1:PORT", to stdout.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("atomic loopback", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the caller reports a bad flag in one line
	fs.Usage = func() {}     // called on every bad flag, not only -h
	scenarioPath := fs.String("scenario", "", "scenario file, YAML or JSON (required)")
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	logPath := fs.String("log", "", "write the request log to this file as JSON lines")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, RunUsage)
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if *scenarioPath == "" {
		return errors.New("--scenario FILE is required")
	}
	if err := checkLoopback(*addr); err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	sc, err := LoadScenario(*scenarioPath)
	if err != nil {
		return err
	}
	s := New(sc)
	s.errorLog = log.New(stderr, "loopback: ", log.LstdFlags)

	var logw *jsonLines
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			return fmt.Errorf("--log: %w", err)
		}
		defer f.Close()
		logw = &jsonLines{w: f}
		s.onEntry = logw.write
	}
	if err := s.listen(*addr); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "listening on %s\n", s.URL()); err != nil {
		return errors.Join(fmt.Errorf("announcing the address: %w", err), s.Close())
	}
	<-ctx.Done()
	err = s.Close()
	if logw != nil {
		err = errors.Join(err, logw.error())
	}
	return err
}

// jsonLines writes log entries, one JSON object a line, from concurrent
// handlers; it keeps the first write error.
type jsonLines struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (j *jsonLines) write(e LogEntry) {
	line, err := json.Marshal(e)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	if err != nil {
		j.err = fmt.Errorf("encoding request log entry %d: %w", e.Seq, err)
		return
	}
	if _, err := j.w.Write(append(line, '\n')); err != nil {
		j.err = fmt.Errorf("writing request log: %w", err)
	}
}

func (j *jsonLines) error() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}
