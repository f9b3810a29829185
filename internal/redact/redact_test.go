package redact

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// Fake keys of each shape (none is a real credential).
const (
	anthropicKey = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEf"
	openAIKey    = "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"
	legacyOpenAI = "sk-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12"
	githubToken  = "ghp_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78"
	githubPAT    = "github_pat_11ABCDEFG0_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"
	awsKeyID     = "AKIAIOSFODNN7EXAMPLE"
	awsTempID    = "ASIAIOSFODNN7EXAMPLE"
	slackToken   = "xoxb-1234567890-0987654321-AbCdEfGhIj"
	googleKey    = "AIzaSyAb12Cd34Ef56Gh78Ij90Kl12Mn34Op56Q"
	groqKey      = "gsk_Ab12Cd34Ef56Gh78Ij90Kl12Mn34"
	xaiKey       = "xai-Ab12Cd34Ef56Gh78Ij90Kl12Mn34"
)

// shapeExamples is one key of each shape of keyShapes, by name; it fails
// t when a shape has none or its own shape does not match it whole.
func shapeExamples(t *testing.T) map[string]string {
	t.Helper()
	examples := map[string]string{
		"Anthropic keys": anthropicKey, "OpenAI project keys": openAIKey, "other sk- keys (OpenAI, DeepSeek, OpenRouter…)": legacyOpenAI,
		"GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_)": githubToken, "GitHub fine-grained tokens": githubPAT,
		"AWS access key ids": awsKeyID, "AWS temporary access key ids": awsTempID,
		"Slack tokens (xoxb-, xoxa-, xoxp-, xoxr-, xoxs-)": slackToken, "Google API keys": googleKey,
		"Groq keys": groqKey, "xAI keys": xaiKey,
	}
	if len(examples) != len(keyShapes) {
		t.Fatalf("%d examples for %d key shapes: give each shape one", len(examples), len(keyShapes))
	}
	for i := range keyShapes {
		k := &keyShapes[i]
		ex, ok := examples[k.name]
		if !ok {
			t.Fatalf("key shape %q has no example", k.name)
		}
		if end, ok := matchAt(k, ex, 0, false); !ok || end != len(ex) {
			t.Fatalf("key shape %q does not match its example %q whole (ok %v, end %d)", k.name, ex, ok, end)
		}
	}
	return examples
}

func TestEveryKeyShapeIsMaskedWhereverItStandsInText(t *testing.T) {
	keys := shapeExamples(t)
	if len(googleKey) != 39 || len(awsKeyID) != 20 {
		t.Fatalf("the fake Google key is %d long, the AWS id %d; want 39 and 20", len(googleKey), len(awsKeyID))
	}
	contexts := map[string]func(k string) string{
		"alone":           func(k string) string { return k },
		"in a sentence":   func(k string) string { return "my key is " + k + ", keep it safe" },
		"after a newline": func(k string) string { return "key:\n" + k },
		"quoted":          func(k string) string { return `export KEY="` + k + `"` },
		"as JSON": func(k string) string {
			b, _ := json.Marshal(map[string]string{"text": "line one\n" + k + "\tend", "q": "\"" + k + "\""})
			return string(b)
		},
		"JSON unicode escape": func(k string) string { return `{"t":"\u003c` + k + `\u003e"}` },
		"URL-encoded":         func(k string) string { return "q=" + url.QueryEscape(`"`+k+`"`) },
		"after an equals":     func(k string) string { return "--api-key=" + k },
		"after a space":       func(k string) string { return "Bearer " + k },
	}
	r := New(nil)
	for name, key := range keys {
		for where, wrap := range contexts {
			in := wrap(key)
			out := r.String(in)
			if strings.Contains(out, key) || !strings.Contains(out, Mask) {
				t.Errorf("%s key %s: %q → %q; want it masked", name, where, in, out)
			}
			if b := r.Bytes([]byte(in)); strings.Contains(string(b), key) {
				t.Errorf("%s key %s: Bytes kept it: %q", name, where, b)
			}
		}
	}
}

func TestAnthropicOpenAIProjectAndGitHubFineGrainedKeysAreMaskedInsideAWord(t *testing.T) {
	for _, key := range []string{anthropicKey, openAIKey, githubPAT} {
		in := "Explore-" + key
		if got := New(nil).String(in); got != "Explore-"+Mask {
			t.Errorf("%q → %q; want the key masked", in, got)
		}
	}
}

func TestTextThatOnlyResemblesAKeyIsLeftAlone(t *testing.T) {
	for _, s := range []string{
		"the task-runner-configuration-loader-v2 module",  // sk- inside a word
		"sk-some-long-hyphenated-name-without-any-digits", // no digit: a word, not a key
		"sk-short123", // too short
		"ghp_short",   // too short
		"ghx_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78", // not a GitHub prefix
		"AKIA1234",              // too short
		"xAKIAIOSFODNN7EXAMPLE", // inside a word
		"AIzaShort",             // too short
		"xoxz-1234567890-abc",   // not a Slack kind
		"risk-assessment-2024-report-final-version-3",         // sk- inside a word
		"plain text with sk- and ghp_ and AKIA and AIza",      // anchors alone
		`{"path":"internal/desk-lamp-controller-0123456789"}`, // sk- inside a word
	} {
		if got := New(nil).String(s); got != s {
			t.Errorf("%q → %q; want it unchanged", s, got)
		}
	}
}

func TestKnownValuesAreMaskedAsWrittenAndAsJSONWritesThemLongestFirst(t *testing.T) {
	const plain = "correct-horse-battery"
	const odd = `pa"ss\word<>&`
	r := New([]string{plain, "correct-horse", odd, "short", ""})
	for _, tc := range []struct{ in, want string }{
		{"key " + plain + " end", "key " + Mask + " end"},
		{"correct-horse alone", Mask + " alone"},
		{"raw " + odd, "raw " + Mask},
		{"json " + mustJSON(odd), "json \"" + Mask + "\""},
		{"event json " + eventJSON(odd), "event json \"" + Mask + "\""},
		{"a short word stays", "a short word stays"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("%q → %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestANilRedactorStillMasksKeyShapes(t *testing.T) {
	var r *Redactor
	if got := r.String("k=" + githubToken); got != "k="+Mask {
		t.Fatalf("nil Redactor: %q", got)
	}
	if got := (&Redactor{}).String(awsKeyID); got != Mask {
		t.Fatalf("zero Redactor: %q", got)
	}
}

func TestOverlappingMatchesAreMaskedOnce(t *testing.T) {
	// A known value that holds a key-shaped part, next to a key.
	known := "prefix-" + anthropicKey
	got := New([]string{known}).String(known + " " + googleKey + googleKey)
	if strings.Contains(got, "sk-") || strings.Contains(got, "AIza") || strings.Count(got, Mask) != 3 {
		t.Fatalf("got %q; want three masks and nothing of the keys", got)
	}
}

func TestTextWithoutSecretsIsReturnedAsIs(t *testing.T) {
	b := []byte(`{"type":"message.delta","data":{"text":"hello"}}`)
	if got := New([]string{"some-secret-value"}).Bytes(b); &got[0] != &b[0] {
		t.Fatal("Bytes copied text that holds no secret")
	}
}

// eventJSON is s as the event encoder writes it (no HTML escaping).
func eventJSON(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSpace(b.String())
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkRedactEvent: the cost of masking one stored event line (the
// store redacts every event it writes), with two known keys.
func BenchmarkRedactEvent(b *testing.B) {
	r := New([]string{"sk-ant-api03-0123456789abcdef0123456789abcdef", "sk-proj-0123456789abcdef0123456789"})
	line := []byte(`{"type":"tool.complete","time":"2026-11-22T10:00:00.002Z","session_id":"bench","agent_id":"lead","tool_call_id":"call_1","data":{"name":"grep","success":true,"result":"internal/cli/run.go:21:func runHeadless(ctx context.Context, args []string, ios IOStreams) int\ninternal/cli/tui.go:23:func runTUI(ctx context.Context, args []string, ios IOStreams) int"}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		r.Bytes(line)
	}
}
