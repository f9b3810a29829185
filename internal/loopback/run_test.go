package loopback

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
)

func TestRunServesScenarioUntilCancelled(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "requests.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdoutR, stdoutW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := Run(ctx, []string{"--scenario", "testdata/agent.yaml", "--log", logPath}, stdoutW, &stderr)
		stdoutW.CloseWithError(io.EOF)
		done <- err
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the listening line: %v (stderr %s)", err, stderr.String())
	}
	m := regexp.MustCompile(`^listening on (http://127\.0\.0\.1:\d+)\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line = %q", line)
	}
	go io.Copy(io.Discard, stdoutR) // anything more would be a bug; do not block Run on it

	c := openai.NewClient(ooption.WithBaseURL(m[1]+"/v1"), ooption.WithAPIKey(testKey), ooption.WithMaxRetries(0))
	resp, err := c.Chat.Completions.New(context.Background(), openAIParams("gpt-x", openai.UserMessage("hello there")))
	if err != nil || resp.Choices[0].Message.Content != "Hello!" {
		t.Fatalf("request: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := ReadLog(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Rule != "greet" || entries[0].LastUserText() != "hello there" {
		t.Errorf("log file entries = %+v", entries)
	}
}

func TestRunRefusesBadInvocations(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no scenario", nil, "--scenario"},
		{"non-loopback addr", []string{"--scenario", "testdata/agent.yaml", "--addr", "0.0.0.0:0"}, "not a loopback address"},
		{"all interfaces", []string{"--scenario", "testdata/agent.yaml", "--addr", ":8080"}, "not a loopback address"},
		{"missing scenario file", []string{"--scenario", "testdata/nope.yaml"}, "nope.yaml"},
		{"unknown flag", []string{"--bogus"}, "bogus"},
		{"stray argument", []string{"--scenario", "testdata/agent.yaml", "extra"}, "extra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), tt.args, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
		})
	}
}
