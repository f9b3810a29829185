package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/provider"
	"github.com/atomic-agent/atomic/internal/provider/hosted"
	"github.com/atomic-agent/atomic/internal/provider/openai/chat"
	"github.com/atomic-agent/atomic/internal/provider/openai/openaitest"
	"github.com/atomic-agent/atomic/internal/provider/providertest"
)

// helperArg makes this test binary atomic-openai: the same code
// (hosted.Main serving package chat) as cmd/atomic-openai.
const helperArg = openaitest.Arg

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		os.Exit(serveAsHelper())
	}
	goleak.VerifyTestMain(m)
}

// serveAsHelper is atomic-openai, with what the tests ask of it through
// its environment: TEST_DUMP names a file for its pid, environment and
// arguments; TEST_DIE_ONCE names a file whose absence makes it end on its
// first call (and create the file).
func serveAsHelper() int {
	if f := os.Getenv("TEST_DUMP"); f != "" {
		b, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "env": os.Environ(), "args": os.Args})
		_ = os.WriteFile(f, b, 0o600)
	}
	return hosted.Main(func(raw json.RawMessage) (hosted.Backend, error) {
		if why := os.Getenv("TEST_REFUSE"); why != "" {
			return nil, errors.New(why)
		}
		p, err := chat.Open(raw)
		if err != nil {
			return nil, err
		}
		if f := os.Getenv("TEST_DIE_ONCE"); f != "" {
			if _, err := os.Stat(f); err != nil {
				_ = os.WriteFile(f, nil, 0o600)
				return dying{}, nil
			}
		}
		return p, nil
	})
}

// dying ends the program on its first call, as a crash would.
type dying struct{}

func (dying) Attempt(context.Context, provider.Request, func(provider.Chunk)) (*provider.Response, error) {
	os.Exit(3)
	return nil, nil
}
func (dying) ListModels(context.Context) ([]string, error) { os.Exit(3); return nil, nil }

// helperEnv is the helper's environment in these tests: none of the
// developer's OPENAI_* variables, plus extra.
func helperEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// newProvider is a Provider whose helper is this test binary.
func newProvider(t *testing.T, cfg Config, env ...string) *Provider {
	t.Helper()
	cfg.Helper = []string{os.Args[0], helperArg}
	if cfg.Env == nil {
		cfg.Env = helperEnv(env...)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func serve(t *testing.T, scenario string) *loopback.Server {
	t.Helper()
	sc, err := loopback.ParseScenario([]byte(scenario))
	if err != nil {
		t.Fatal(err)
	}
	srv := loopback.New(sc)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func hi(text string) provider.Request {
	return provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Text: text}}}}}
}

// The conformance suite, through atomic-openai: every answer, retry and
// error the in-process SDK gives comes back alike across the pipe.
func TestProviderThroughItsHelperAgainstLoopbackServer(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		API:   loopback.APIOpenAI,
		Model: "gpt-4o-mini",
		New: func(t *testing.T, cfg providertest.Config) provider.Provider {
			t.Helper()
			return newProvider(t, Config{APIKey: cfg.APIKey, BaseURL: cfg.BaseURL, Model: cfg.Model, Retry: cfg.Retry})
		},
		CutAfterFirstToolCall: 6,
		StreamErrorType:       "server_error",
		ToolErrorFlag:         false,
	})
}

func TestTheKeyReachesTheHelperOnItsInputNeverItsEnvironmentOrArguments(t *testing.T) {
	srv := serve(t, "api_key: sk-secret-4711\nrules:\n  - respond: {text: fine}\n")
	dump := filepath.Join(t.TempDir(), "dump.json")
	p := newProvider(t, Config{APIKey: "sk-secret-4711", BaseURL: srv.URL(), Model: "gpt-4o", Retry: providertest.Fast(1)}, "TEST_DUMP="+dump)
	resp, err := p.Stream(context.Background(), hi("hi"), nil)
	if err != nil || resp.Text != "fine" {
		t.Fatalf("got %v, %v; want the server's answer, which it gives only for the key", resp, err)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-secret-4711") {
		t.Errorf("the key is in the helper's environment or arguments: %s", b)
	}
}

func TestConcurrentStreamsShareOneHelperAndEachGetsItsOwnAnswer(t *testing.T) {
	var rules strings.Builder
	rules.WriteString("rules:\n")
	for i := range 8 {
		fmt.Fprintf(&rules, "  - match: {first_user_contains: \"Q%d\"}\n    respond: {text: \"A%d\", delay_ms: %d}\n", i, i, 50*(8-i))
	}
	srv := serve(t, rules.String())
	dump := filepath.Join(t.TempDir(), "dump.json")
	p := newProvider(t, Config{BaseURL: srv.URL(), Model: "m", Retry: providertest.Fast(1)}, "TEST_DUMP="+dump)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := p.Stream(context.Background(), hi(fmt.Sprintf("Q%d", i)), nil)
			if err == nil && resp.Text != fmt.Sprintf("A%d", i) {
				err = fmt.Errorf("question %d got %q", i, resp.Text)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := len(srv.Log()); n != 8 {
		t.Errorf("the server got %d requests, want 8", n)
	}
}

func TestACancelledStreamEndsInTheHelperWhichServesTheNextOne(t *testing.T) {
	srv := serve(t, `rules:
  - match: {first_user_contains: slow}
    respond: {text: "one two three four five six", chunk_delay_ms: 400}
  - respond: {text: quick}
`)
	p := newProvider(t, Config{BaseURL: srv.URL(), Model: "m", Retry: providertest.Fast(1)})
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan struct{}, 1)
	start := time.Now()
	go func() { <-first; cancel() }()
	_, err := p.Stream(ctx, hi("slow"), func(c provider.Chunk) {
		select {
		case first <- struct{}{}:
		default:
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the cancelled stream took %v to return", d)
	}
	resp, err := p.Stream(context.Background(), hi("next"), nil)
	if err != nil || resp.Text != "quick" {
		t.Fatalf("the next request got %v, %v", resp, err)
	}
}

func TestAHelperThatEndsMidRequestIsRetriedInANewOne(t *testing.T) {
	srv := serve(t, "rules:\n  - respond: {text: survived}\n")
	once := filepath.Join(t.TempDir(), "died")
	p := newProvider(t, Config{BaseURL: srv.URL(), Model: "m", Retry: providertest.Fast(2)}, "TEST_DIE_ONCE="+once)
	var retries []provider.Chunk
	resp, err := p.Stream(context.Background(), hi("hi"), func(c provider.Chunk) {
		if c.Kind == provider.ChunkRetry {
			retries = append(retries, c)
		}
	})
	if err != nil || resp.Text != "survived" {
		t.Fatalf("got %v, %v; want the answer from a new helper", resp, err)
	}
	if len(retries) != 1 || retries[0].Reason != "stream cut" || !strings.Contains(retries[0].Err.Error(), "ended") {
		t.Errorf("retry notices %+v, want one saying the stream was cut because the helper ended", retries)
	}
}

func TestAHelperThatCannotStartSaysWhyAndIsNotRetried(t *testing.T) {
	p, err := New(Config{BaseURL: "http://127.0.0.1:9", Model: "m", Retry: providertest.Fast(3), Helper: []string{"/nonexistent/atomic-openai"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	retried := false
	_, err = p.Stream(context.Background(), hi("hi"), func(c provider.Chunk) { retried = retried || c.Kind == provider.ChunkRetry })
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/atomic-openai") || retried {
		t.Errorf("err = %v, retried %v; want an error naming the program, not retried", err, retried)
	}
}

func TestAHelperThatRefusesItsSettingsSaysWhyAndIsNotRetried(t *testing.T) {
	p := newProvider(t, Config{BaseURL: "http://127.0.0.1:9", Model: "m", Retry: providertest.Fast(3)}, "TEST_REFUSE=openai: the settings are not for me")
	retried := false
	_, err := p.Stream(context.Background(), hi("hi"), func(c provider.Chunk) { retried = retried || c.Kind == provider.ChunkRetry })
	if err == nil || err.Error() != "openai: the settings are not for me" || retried {
		t.Errorf("err = %v, retried %v; want the helper's own reason, not retried", err, retried)
	}
}

func TestAMissingHelperIsNamedWhenTheProviderIsMade(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := New(Config{BaseURL: "http://127.0.0.1:9", Model: "m"})
	if err == nil || !strings.Contains(err.Error(), "atomic-openai") || !strings.Contains(err.Error(), "go install ./cmd/...") {
		t.Errorf("err = %v, want it to name atomic-openai and how to install it", err)
	}
}

func TestBadSettingsAreRefusedBeforeAnyHelperStarts(t *testing.T) {
	for _, cfg := range []Config{{APIKey: "k"}, {Model: "gpt-4o"}, {Model: "m", BaseURL: "ftp://x"}, {Model: "m", APIKey: "k", MaxTokens: -1}} {
		cfg.Helper = []string{"/nonexistent/atomic-openai"}
		if _, err := New(cfg); err == nil || strings.Contains(err.Error(), "nonexistent") {
			t.Errorf("New(%+v) = %v, want the settings' own error", cfg, err)
		}
	}
}

func TestListModelsThroughTheHelper(t *testing.T) {
	srv := serve(t, "models: [gpt-a, gpt-b]\nrules: []\n")
	p := newProvider(t, Config{BaseURL: srv.URL(), Model: "gpt-a"})
	ids, err := p.ListModels(context.Background())
	if err != nil || strings.Join(ids, ",") != "gpt-a,gpt-b" {
		t.Errorf("ListModels = %v, %v", ids, err)
	}
}

func TestTheHelperGetsOnlyTheEnvironmentItReads(t *testing.T) {
	got := HelperEnv([]string{
		"HTTPS_PROXY=http://proxy:3128", "no_proxy=localhost", "SSL_CERT_FILE=/etc/ca.pem", "OPENAI_ORG_ID=org-1",
		"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=aws", "ANTHROPIC_API_KEY=sk-ant", "OPENAI_API_KEY=sk-oa",
		"HOME=/home/u", "ATOMIC_REAPER_TREE=1", "Https_Proxy=odd-case",
	})
	want := "HTTPS_PROXY=http://proxy:3128 no_proxy=localhost SSL_CERT_FILE=/etc/ca.pem OPENAI_ORG_ID=org-1"
	if strings.Join(got, " ") != want {
		t.Errorf("HelperEnv = %q, want %q", got, want)
	}
}

func TestNoSecretOfTheUsersReachesTheHelper(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghp_must_not_leak")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
	srv := serve(t, "rules:\n  - respond: {text: fine}\n")
	dump := filepath.Join(t.TempDir(), "dump.json")
	for _, env := range [][]string{append(HelperEnv(os.Environ()), "TEST_DUMP="+dump), nil} {
		os.Remove(dump)
		cfg := Config{BaseURL: srv.URL(), Model: "m", Retry: providertest.Fast(1), Helper: []string{os.Args[0], helperArg}, Env: env}
		if env == nil {
			// No environment at all: the dump goes where the helper is told
			// on its command line instead.
			cfg.Helper = []string{"/bin/sh", "-c", `TEST_DUMP="$1" exec "$0" ` + helperArg, os.Args[0], dump}
		}
		p, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Stream(context.Background(), hi("hi"), nil)
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(dump)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "must-not-leak") || strings.Contains(string(b), "must_not_leak") {
			t.Errorf("env %v: a secret of the user's reached the helper: %s", env != nil, b)
		}
	}
}
