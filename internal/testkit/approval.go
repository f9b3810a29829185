package testkit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/permission"
)

// PermTurn is a backend session started on a CAP-PERM scenario (its
// sub-agent asks to run `touch perm.txt` in Workspace) whose gate asks
// the given asker.
type PermTurn struct {
	Run         func(ctx context.Context) error // runs the CAP-PERM prompt to its end
	CancelAgent func(id string) error           // the session's CancelAgent
	Workspace   string
}

// CheckStoppingWithdrawsApproval checks, on sessions that start makes, that
// a sub-agent's (agent's) approval waiting in the prompt queue is withdrawn
// when the sub-agent is stopped, by an interrupt of the turn or by
// CancelAgent alone, and that its command never runs. After CancelAgent,
// Run returns afterCancel (nil: the lead finishes; ErrLeadGoesOn: the
// lead waits on for the stopped sub-agent's answer).
func CheckStoppingWithdrawsApproval(t *testing.T, start func(t *testing.T, gate *permission.Gate) PermTurn, agent string, afterCancel error) {
	t.Run("interrupt", func(t *testing.T) {
		CheckStopWithdrawsApproval(t, func(gate *permission.Gate) PermTurn { return start(t, gate) }, agent,
			func(_ PermTurn, cancel context.CancelFunc) error { cancel(); return nil }, context.Canceled)
	})
	t.Run("cancel the sub-agent", func(t *testing.T) {
		CheckStopWithdrawsApproval(t, func(gate *permission.Gate) PermTurn { return start(t, gate) }, agent,
			func(turn PermTurn, _ context.CancelFunc) error { return turn.CancelAgent(agent) }, afterCancel)
	})
}

// ErrLeadGoesOn, as CheckStopWithdrawsApproval's wantErr, says the lead
// keeps working after the stop (its scenario waits for the stopped
// sub-agent's answer): the check then interrupts the turn itself.
var ErrLeadGoesOn = errors.New("the lead goes on after the stop")

// CheckStopWithdrawsApproval starts a CAP-PERM turn whose human never
// answers; once the sub-agent (agent) asks, stop stops it (an interrupt
// via cancel, or the backend's CancelAgent). The approval must then be
// withdrawn (the asker's context ends, which takes the prompt down), Run
// must return wantErr, and the command must never run.
func CheckStopWithdrawsApproval(t *testing.T, start func(gate *permission.Gate) PermTurn, agent string,
	stop func(turn PermTurn, cancel context.CancelFunc) error, wantErr error) {
	t.Helper()
	asked, withdrawn := make(chan permission.Request, 1), make(chan struct{})
	turn := start(Gate(t, AskerFunc(func(ctx context.Context, r permission.Request) (permission.Answer, error) {
		asked <- r
		<-ctx.Done() // nobody answers: only a withdrawal ends the wait
		close(withdrawn)
		return permission.Deny, ctx.Err()
	})))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- turn.Run(ctx) }()
	select {
	case r := <-asked:
		if r.AgentID != agent || r.Subject != "touch perm.txt" {
			t.Fatalf("asked %+v, want %s's touch perm.txt", r, agent)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the sub-agent's approval was never asked")
	}
	if err := stop(turn, cancel); err != nil {
		t.Fatal(err)
	}
	select {
	case <-withdrawn:
	case <-time.After(10 * time.Second):
		t.Fatal("the approval is still asked after the sub-agent was stopped: the prompt would stay up")
	}
	if wantErr == ErrLeadGoesOn {
		cancel()
		wantErr = context.Canceled
	}
	select {
	case err := <-done:
		if !errors.Is(err, wantErr) {
			t.Errorf("Run: %v, want %v", err, wantErr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return after the sub-agent was stopped")
	}
	if _, err := os.Stat(filepath.Join(turn.Workspace, "perm.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("perm.txt: %v, want the withdrawn command never run", err)
	}
}
