package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func noEnv(string) string { return "" }

func TestBadArgumentsAreNamedAndExitNonZero(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--listen", "localhost", "--store", t.TempDir()}, 1, `--listen "localhost"`},
		{[]string{"--store", t.TempDir(), "extra"}, 2, `unexpected arguments ["extra"]`},
		{[]string{"--nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"--listen", "127.0.0.1:0"}, 2, "no state directory (give --store)"},
	} {
		var out, errOut syncBuffer
		code := run(context.Background(), c.args, &out, &errOut, noEnv)
		if code != c.code || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d naming %q", c.args, code, errOut.String(), c.code, c.want)
		}
	}
}

func TestHelpListsTheFlagsAndExitsZero(t *testing.T) {
	var out, errOut syncBuffer
	if code := run(context.Background(), []string{"--help"}, &out, &errOut, noEnv); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	for _, want := range []string{"Usage: atomic nats", "-listen", "-store"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help %q lacks %q", out.String(), want)
		}
	}
}

// It serves JetStream until its context ends (SIGINT or SIGTERM), then
// exits 0; its data goes under the state directory when no --store is
// given.
func TestItServesJetStreamUntilItsContextEnds(t *testing.T) {
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--listen", "127.0.0.1:0"}, &out, &errOut, getenv) }()
	listening := regexp.MustCompile(`nats listening on (nats://\S+) \(JetStream data in (\S+)\)`)
	var m []string
	for deadline := time.Now().Add(20 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		select {
		case code := <-done:
			t.Fatalf("exited %d before listening: %s", code, errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("not listening after 20s: %s", errOut.String())
		}
		m = listening.FindStringSubmatch(errOut.String())
	}
	if want := state + "/atomic/nats"; m[2] != want {
		t.Errorf("data in %s, want %s", m[2], want)
	}
	nc, err := nats.Connect(m[1])
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.AccountInfo(ctx); err != nil {
		t.Errorf("JetStream: %v", err)
	}
	nc.Close()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after its context ended, want 0: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still serving 20s after its context ended")
	}
}
