package cli

import (
	"strings"
	"testing"
)

func TestBadNATSFlagsAreNamedAndExitTwo(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"worker without a server", []string{"worker", "--demo"}, "no NATS server: give --nats URL"},
		{"worker with no slot", []string{"worker", "--demo", "--nats", "nats://127.0.0.1:1", "--concurrency", "0"}, "--concurrency: must be at least 1, got 0"},
		{"unknown task selection", []string{"worker", "--demo", "--nats", "nats://127.0.0.1:1", "--nats-tasks", "some"}, `--nats-tasks "some": use all or runs_on`},
		{"replicas out of range", []string{"worker", "--demo", "--nats", "nats://127.0.0.1:1", "--nats-replicas", "7"}, "--nats-replicas: must be 1 to 5, got 7"},
		{"half a TLS client pair", []string{"run", "--demo", "-p", "hi", "--nats", "nats://127.0.0.1:1", "--nats-tls-cert", "c.pem"}, "--nats-tls-cert and --nats-tls-key go together"},
		{"a lead whose server is not there", []string{"run", "--demo", "-p", "hi", "--nats", "nats://127.0.0.1:1"}, "connecting to NATS at nats://127.0.0.1:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := run(t, c.args...)
			if code == 0 || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stderr %q; want non-zero naming %q", code, errOut, c.want)
			}
		})
	}
}
