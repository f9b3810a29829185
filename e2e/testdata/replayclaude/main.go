// Command replayclaude stands in for the Claude Code CLI where only
// Atomic's own time is measured: it answers the initialize request and the
// first user message with a captured stream-json session (REPLAY_STREAM:
// the initialize response first, then the first turn up to its result),
// and exits when stdin closes. It appends "spawn", "answered" and "eof" with
// the Unix time in nanoseconds to REPLAY_STAMPS. REPLAY_THINK_MS delays the
// answer, as the real CLI's start and its model's first reply do.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	stamps, err := os.OpenFile(os.Getenv("REPLAY_STAMPS"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "replayclaude:", err)
		os.Exit(2)
	}
	stamp := func(what string) { fmt.Fprintf(stamps, "%s %d\n", what, time.Now().UnixNano()) }
	stamp("spawn")
	capture, err := os.ReadFile(os.Getenv("REPLAY_STREAM"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "replayclaude:", err)
		os.Exit(2)
	}
	initResp, rest, _ := bytes.Cut(capture, []byte("\n"))
	turn := rest
	if i := bytes.Index(rest, []byte(`"type":"result"`)); i >= 0 {
		if end := bytes.IndexByte(rest[i:], '\n'); end >= 0 {
			turn = rest[:i+end+1]
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	answered := false
	for in.Scan() {
		line := in.Bytes()
		switch {
		case bytes.Contains(line, []byte(`"initialize"`)):
			os.Stdout.Write(append(initResp, '\n'))
		case bytes.Contains(line, []byte(`"type":"user"`)) && !answered:
			answered = true
			if ms, err := strconv.Atoi(os.Getenv("REPLAY_THINK_MS")); err == nil {
				time.Sleep(time.Duration(ms) * time.Millisecond)
			}
			os.Stdout.Write(turn)
			stamp("answered")
		}
	}
	stamp("eof")
}
