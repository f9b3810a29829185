package testkit

import "go.uber.org/goleak"

// KnownLeaks are goroutines a dependency leaves behind by its own race,
// which goleak should not blame on the package under test.
//
// nats.go v1.55.0's ObjectStore.Put publishes through a JetStream context
// it cleans up at once (jetstream/object.go: defer cleanupReplySub); the
// status watcher that publish started (resetPendingAcksOnReconnect) reads
// the channel the cleanup may already have set to nil, and then waits on
// a nil channel for ever. One goroutine per losing race; nothing of ours
// can end it.
func KnownLeaks() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreTopFunction("github.com/nats-io/nats.go/jetstream.(*jetStream).resetPendingAcksOnReconnect"),
	}
}
