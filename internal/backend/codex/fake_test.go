package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
)

// The test binary doubles as a fake `codex app-server`: with fakeScript set
// in its environment, TestMain runs runFake instead of the tests. The fake
// replays a capture's .txt over stdio: it writes the server's lines ("<<")
// with the ids of the client's actual requests, and reads each client line
// (">>") the capture shows, checking its method (and a reply's result), so
// framing, request ids and server requests are exercised for real.
const (
	fakeScript = "ATOMIC_FAKE_CODEX_SCRIPT"
	// fakeHang: after thread/start the fake ignores EOF on stdin and
	// SIGTERM, with a descendant (sleep) whose pid goes to fakePIDFile.
	fakeHang    = "ATOMIC_FAKE_CODEX_HANG"
	fakePIDFile = "ATOMIC_FAKE_CODEX_PIDFILE"
	// fakeDump names a file the fake writes its CODEX_HOME's config.toml
	// and the provider key variable to.
	fakeDump = "ATOMIC_FAKE_CODEX_DUMP"
)

func runFake() int {
	if err := fake(); err != nil {
		fmt.Fprintln(os.Stderr, "fake app-server:", err)
		return 3
	}
	return 0
}

func fake() error {
	if len(os.Args) < 2 || os.Args[len(os.Args)-1] != "app-server" {
		return fmt.Errorf("want the app-server subcommand, got %q", os.Args[1:])
	}
	if path := os.Getenv(fakeDump); path != "" {
		cfg, err := os.ReadFile(filepath.Join(os.Getenv("CODEX_HOME"), "config.toml"))
		if err != nil {
			return err
		}
		dump := fmt.Sprintf("%s=%s\n%s", keyEnv, os.Getenv(keyEnv), cfg)
		if err := os.WriteFile(path, []byte(dump), 0o600); err != nil {
			return err
		}
	}
	hang := os.Getenv(fakeHang) != ""
	if hang {
		signal.Ignore(syscall.SIGTERM)
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			return err
		}
		if err := os.WriteFile(os.Getenv(fakePIDFile), []byte(strconv.Itoa(child.Process.Pid)), 0o600); err != nil {
			return err
		}
	}
	script, err := os.ReadFile(os.Getenv(fakeScript))
	if err != nil {
		return err
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	ids := map[string]string{} // the capture's request id → the client's
	for line := range strings.Lines(string(script)) {
		dir, body, ok := strings.Cut(strings.TrimRight(line, "\n"), " ")
		if !ok {
			continue
		}
		var want message
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			return fmt.Errorf("script: %w", err)
		}
		switch dir {
		case "<<":
			if want.isResponse() {
				want.ID = json.RawMessage(ids[string(want.ID)])
				b, err := json.Marshal(want)
				if err != nil {
					return err
				}
				body = string(b)
			}
			out.WriteString(body + "\n")
		case ">>":
			if err := out.Flush(); err != nil {
				return err
			}
			if hang && want.Method == "turn/start" {
				select {} // hung: only SIGKILL ends it
			}
			got, err := readScripted(in, out)
			if err != nil {
				return fmt.Errorf("waiting for %s: %w", firstNonEmpty(want.Method, "a reply"), err)
			}
			if err := match(want, got); err != nil {
				return err
			}
			if want.isRequest() {
				ids[string(want.ID)] = string(got.ID)
			}
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if hang {
		select {}
	}
	for { // until the client closes stdin
		if _, err := readScripted(in, out); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readScripted reads the client's next message that the capture scripts.
// The clean-up of an interrupted thread's terminals, which the captures
// predate, is answered here whenever it comes.
func readScripted(in *bufio.Reader, out *bufio.Writer) (message, error) {
	for {
		m, err := readMessage(in)
		if err != nil || m.Method != "thread/backgroundTerminals/clean" {
			return m, err
		}
		b, _ := json.Marshal(message{JSONRPC: "2.0", ID: m.ID, Result: json.RawMessage(`{}`)})
		out.Write(append(b, '\n'))
		if err := out.Flush(); err != nil {
			return message{}, err
		}
	}
}

func readMessage(r *bufio.Reader) (message, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("client sent a line that is not JSON: %q", line)
	}
	if m.JSONRPC != "2.0" {
		return message{}, fmt.Errorf("client line without jsonrpc 2.0: %q", line)
	}
	return m, nil
}

// match checks the client's message against the capture's: the same
// method, and a reply to a server request with its id and result.
func match(want, got message) error {
	if want.Method != got.Method {
		return fmt.Errorf("client sent %q, the capture %q", got.Method, want.Method)
	}
	if want.isRequest() != got.isRequest() {
		return fmt.Errorf("%s: request/notification mismatch", want.Method)
	}
	if want.Method == "" {
		if !bytes.Equal(want.ID, got.ID) {
			return fmt.Errorf("reply to request %s, want %s", got.ID, want.ID)
		}
		var w, g any
		_ = json.Unmarshal(want.Result, &w)
		_ = json.Unmarshal(got.Result, &g)
		if !reflect.DeepEqual(w, g) {
			return fmt.Errorf("reply %s, want %s", got.Result, want.Result)
		}
	}
	return nil
}
