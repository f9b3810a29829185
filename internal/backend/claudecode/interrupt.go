package claudecode

import (
	"strconv"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
)

// answerGrace bounds how long InterruptAgents waits for the CLI to answer
// its interrupt before it stops the sub-agents anyway.
const answerGrace = 5 * time.Second

var _ backend.AgentsInterrupter = (*Session)(nil)

// interrupt sends the CLI its interrupt request and marks the lead
// interrupted (quiet); with answer set, the reader closes it on the CLI's
// answer.
func (s *Session) interrupt(p *process, answer chan struct{}) error {
	s.mu.Lock()
	s.quiet = true
	s.seq++
	id := "atomic-interrupt-" + strconv.Itoa(s.seq)
	if answer != nil {
		s.answers[id] = answer
	}
	s.mu.Unlock()
	err := p.writeJSON(map[string]any{"type": "control_request", "request_id": id,
		"request": map[string]string{"subtype": "interrupt"}})
	if err != nil && answer != nil {
		s.mu.Lock()
		delete(s.answers, id)
		s.mu.Unlock()
	}
	return err
}

// InterruptAgents stops the sub-agents ids on an interrupt, the lead's
// turn running or not. The CLI is interrupted first and its answer awaited:
// its interrupt ends its background agents without waking the lead,
// whereas a background agent stopped alone (stop_task) while the lead is
// not interrupted delivers its end as a notification that starts a turn of
// the lead's: a model request after the interrupt. Then each of ids still
// running is stopped (stop_task), which after the interrupt wakes nothing.
func (s *Session) InterruptAgents(ids []string) {
	s.mu.Lock()
	closed, p := s.closed, s.proc
	s.mu.Unlock()
	if closed {
		return
	}
	answer := make(chan struct{})
	if s.interrupt(p, answer) == nil {
		t := time.NewTimer(answerGrace)
		select {
		case <-answer:
		case <-p.readDone:
		case <-t.C:
		}
		t.Stop()
		s.mu.Lock()
		for id, c := range s.answers {
			if c == answer { // not answered
				delete(s.answers, id)
			}
		}
		s.mu.Unlock()
	}
	for _, id := range ids {
		_ = s.CancelAgent(id)
	}
}
