package observe

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Messages of the lifecycle log's lines.
const (
	MsgStart = "agent.start"
	MsgEnd   = "agent.end"
)

// LogName is the lifecycle log's file name in the state directory.
const LogName = "atomic.log"

// StateDir is Atomic's state directory: $XDG_STATE_HOME/atomic, else
// ~/.local/state/atomic.
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		if !filepath.IsAbs(d) {
			return "", fmt.Errorf("XDG_STATE_HOME must be an absolute path, got %q", d)
		}
		return filepath.Join(d, "atomic"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is set: no state directory")
	}
	return filepath.Join(home, ".local", "state", "atomic"), nil
}

// LogPath is the lifecycle log's path.
func LogPath(getenv func(string) string) (string, error) {
	dir, err := StateDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, LogName), nil
}

// OpenLog opens (creating it and its directory) the lifecycle log for
// appending.
func OpenLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lifecycle log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lifecycle log: %w", err)
	}
	return f, nil
}

// LogFile is the lifecycle log. Lines are kept in memory until Flush,
// which opens the file (creating it and its directory) the first time: the
// Observer flushes a moment after the first lines, so a run's start never
// waits for the disk nor competes with it (making the state directory
// costs a millisecond or more on some file systems).
type LogFile struct {
	path string
	buf  []byte
	f    *os.File
	err  error
}

// NewLogFile returns the log at path, not yet opened.
func NewLogFile(path string) *LogFile { return &LogFile{path: path} }

// Write keeps p for the next Flush.
func (l *LogFile) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// Flush appends what was written since the last Flush to the file.
func (l *LogFile) Flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	if l.f == nil && l.err == nil {
		l.f, l.err = OpenLog(l.path)
	}
	if l.err != nil {
		l.buf = l.buf[:0]
		return l.err
	}
	_, err := l.f.Write(l.buf)
	l.buf = l.buf[:0]
	if err != nil {
		return fmt.Errorf("lifecycle log: %w", err)
	}
	return nil
}

// Close flushes and closes the file if it was opened.
func (l *LogFile) Close() error {
	err := l.Flush()
	if l.f != nil && l.err == nil {
		err = errors.Join(err, l.f.Close())
	}
	return err
}

// Logger writes spans as JSON lines through log/slog: agent.start when an
// agent starts, agent.end (level ERROR when it failed) when it ends, each
// stamped with the event's time, not the time of writing. A user's
// interrupt is status interrupted at INFO, not a failure.
type Logger struct {
	w io.Writer
	h slog.Handler
}

// NewLogger writes to w.
func NewLogger(w io.Writer) *Logger {
	return &Logger{w: w, h: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})}
}

// Flush flushes w when it can be (a LogFile).
func (l *Logger) Flush() error {
	if f, ok := l.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// Started logs s's start.
func (l *Logger) Started(s Span) error {
	r := slog.NewRecord(s.Start, slog.LevelInfo, MsgStart, 0)
	r.AddAttrs(identity(s)...)
	return l.h.Handle(context.Background(), r)
}

// Ended logs s's end.
func (l *Logger) Ended(s Span) error {
	lvl := slog.LevelInfo
	if s.Failed() {
		lvl = slog.LevelError
	}
	r := slog.NewRecord(s.End, lvl, MsgEnd, 0)
	r.AddAttrs(identity(s)...)
	r.AddAttrs(slog.String("status", s.Status),
		slog.Time("started", s.Start),
		slog.Int64("duration_ms", s.Duration().Milliseconds()),
		slog.Int("tool_uses", s.ToolUses),
		slog.Int64("input_tokens", s.Usage.InputTokens),
		slog.Int64("output_tokens", s.Usage.OutputTokens),
		slog.Int64("cache_read_tokens", s.Usage.CacheReadTokens),
		slog.Int64("cache_creation_tokens", s.Usage.CacheCreationTokens),
		slog.Float64("cost_usd", s.Usage.CostUSD))
	if s.Error != "" {
		r.AddAttrs(slog.String("error", s.Error))
	}
	return l.h.Handle(context.Background(), r)
}

func identity(s Span) []slog.Attr {
	a := []slog.Attr{slog.String("session_id", s.SessionID), slog.String("agent_id", s.AgentID),
		slog.String("kind", s.Kind), slog.String("type", s.Type), slog.String("backend", s.Backend)}
	if s.ParentID != "" {
		a = append(a, slog.String("parent_id", s.ParentID))
	}
	if s.Role != "" {
		a = append(a, slog.String("role", s.Role))
	}
	if s.Model != "" {
		a = append(a, slog.String("model", s.Model))
	}
	if s.Background {
		a = append(a, slog.Bool("background", true))
	}
	return a
}

// endLine is an agent.end line as written by Logger.Ended.
type endLine struct {
	Time       time.Time `json:"time"`
	Msg        string    `json:"msg"`
	SessionID  string    `json:"session_id"`
	AgentID    string    `json:"agent_id"`
	ParentID   string    `json:"parent_id"`
	Kind       string    `json:"kind"`
	Type       string    `json:"type"`
	Role       string    `json:"role"`
	Backend    string    `json:"backend"`
	Model      string    `json:"model"`
	Background bool      `json:"background"`
	Status     string    `json:"status"`
	Error      string    `json:"error"`
	Started    time.Time `json:"started"`
	ToolUses   int       `json:"tool_uses"`
	Input      int64     `json:"input_tokens"`
	Output     int64     `json:"output_tokens"`
	CacheRead  int64     `json:"cache_read_tokens"`
	CacheNew   int64     `json:"cache_creation_tokens"`
	Cost       float64   `json:"cost_usd"`
}

// ReadLog returns the spans of the agent.end lines of a lifecycle log
// whose agent started at or after since, and how many lines it skipped
// because they are not JSON (a line cut short by a crash).
func ReadLog(r io.Reader, since time.Time) (spans []Span, skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var l endLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			skipped++
			continue
		}
		if l.Msg != MsgEnd || l.Started.Before(since) {
			continue
		}
		spans = append(spans, Span{Kind: l.Kind, SessionID: l.SessionID, AgentID: l.AgentID, ParentID: l.ParentID,
			Type: l.Type, Role: l.Role, Backend: l.Backend, Model: l.Model, Background: l.Background, Start: l.Started, End: l.Time,
			Status: l.Status, Error: l.Error, ToolUses: l.ToolUses,
			Usage: event.Usage{InputTokens: l.Input, OutputTokens: l.Output, CacheReadTokens: l.CacheRead, CacheCreationTokens: l.CacheNew, CostUSD: l.Cost}})
	}
	if err := sc.Err(); err != nil {
		return spans, skipped, fmt.Errorf("reading the lifecycle log: %w", err)
	}
	return spans, skipped, nil
}
