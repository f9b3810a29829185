package embedded

import (
	"bytes"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

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

// `atomic nats` once ended "did not start within 10s" with its logging
// off, the reason lost. A server that cannot start says why, at once, in
// its error and on its log.
func TestANATSServerThatCannotStartSaysWhyAtOnce(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var log syncBuffer
	start := time.Now()
	srv, err := StartServer(ServerConfig{Listen: taken.Addr().String(), Store: t.TempDir(), Log: &log})
	took := time.Since(start)
	if err == nil {
		srv.Close()
		t.Fatalf("a server started on %s, a port already taken", taken.Addr())
	}
	if !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("error = %v, want the server's reason (address already in use)", err)
	}
	if !strings.Contains(log.String(), "address already in use") {
		t.Errorf("the server's log = %q, want its error", log.String())
	}
	if took > 5*time.Second {
		t.Errorf("StartServer took %s to give up, want it to stop at the server's fatal error", took)
	}
}
