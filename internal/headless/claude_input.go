package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// FormatInputStreamJSON is --input-format stream-json: Claude Code's user
// messages, one JSON object a line, each a turn.
const FormatInputStreamJSON = "stream-json"

// claudeInputLine is a line of Claude Code's stream-json input.
type claudeInputLine struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// ClaudeInput reads Claude Code's stream-json input from r and sends the
// text of each user message on the channel it returns, which it closes at
// the end of r or when ctx ends. A control_request is answered by ctl (as
// it comes, also while a turn runs); a line that is neither (an image, a
// control request with ctl nil) is named to warn and skipped.
func ClaudeInput(ctx context.Context, r io.Reader, warn func(string), ctl *Controls) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 16<<20)
		for n := 1; sc.Scan(); n++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			if ctl != nil && lineType(sc.Bytes()) == "control_request" {
				if err := ctl.answer(sc.Bytes()); err != nil {
					warn(fmt.Sprintf("--input-format stream-json line %d: %v", n, err))
				}
				continue
			}
			text, err := userText(sc.Bytes())
			if err != nil {
				warn(fmt.Sprintf("--input-format stream-json line %d: %v (skipped)", n, err))
				continue
			}
			select {
			case out <- text:
			case <-ctx.Done():
				return
			}
		}
		if err := sc.Err(); err != nil {
			warn(fmt.Sprintf("--input-format stream-json: reading stdin: %v", err))
		}
	}()
	return out
}

// lineType is a line's "type" ("" when it is not a JSON object).
func lineType(line []byte) string {
	var l struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(line, &l) // not JSON: userText names it
	return l.Type
}

// userText is the text of a user message line.
func userText(line []byte) (string, error) {
	var l claudeInputLine
	if err := json.Unmarshal(line, &l); err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	if l.Type != "user" {
		return "", fmt.Errorf("a %q line, not a user message: Atomic takes only user messages", l.Type)
	}
	var s string
	if err := json.Unmarshal(l.Message.Content, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("an empty user message")
		}
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
		return "", fmt.Errorf("message.content is neither text nor a list of blocks: %w", err)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type != "text" {
			return "", fmt.Errorf("a %q block: Atomic takes text blocks only", b.Type)
		}
		parts = append(parts, b.Text)
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("an empty user message")
	}
	return text, nil
}
