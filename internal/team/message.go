package team

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
)

// Message is one message between members of the team.
type Message struct {
	From    string
	To      string
	Content string
	Time    time.Time
}

// Text is the message as its recipient's model reads it: sender,
// recipient and time, then the content.
func (msg Message) Text() string {
	return fmt.Sprintf("<team-message from=%q to=%q time=%q>\n%s\n</team-message>",
		msg.From, msg.To, msg.Time.UTC().Format(time.RFC3339), msg.Content)
}

// Send delivers content from the user (the UI) to teammate to, or to the
// lead when to is "lead". A busy recipient gets it at its next model
// request; an idle one is woken.
func (m *Manager) Send(to, content string) error {
	err := m.send(User, to, content)
	if errors.Is(err, ErrNoTeam) {
		// ErrNoTeam tells the model its tool; the user has none.
		return fmt.Errorf("no teammate %q: there is no team yet (ask the lead to start one)", strings.TrimSpace(to))
	}
	return err
}

// sender maps a calling agent's id to its name in the team: "lead" or a
// teammate's name.
func (m *Manager) sender(agentID string) (string, error) {
	if agentID == event.LeadID || agentID == "" {
		return event.LeadID, nil
	}
	if t := m.mateWithID(agentID); t != nil {
		return t.name, nil
	}
	return "", fmt.Errorf("agent %q is not on the team: only the lead and teammates can message the team", agentID)
}

// send delivers one message and emits its team.message.
func (m *Manager) send(from, to, content string) error {
	to = strings.TrimSpace(to)
	if strings.TrimSpace(content) == "" {
		return errors.New("message content is empty")
	}
	if to == from {
		return fmt.Errorf("%s cannot send a message to itself", from)
	}
	msg := Message{From: from, To: to, Content: content, Time: m.cfg.Now()}
	side := from // the teammate's side of the conversation, for the event
	if from == event.LeadID || from == User {
		side = to
	}
	if strings.EqualFold(to, event.LeadID) {
		msg.To = event.LeadID
		m.emitMessage(msg, side)
		m.cfg.DeliverToLead(msg.Text())
		return nil
	}
	t, err := m.lookup(to)
	if err != nil {
		return err
	}
	m.emitMessage(msg, side)
	t.deliver(msg.Text())
	return nil
}

// broadcast sends content to every live teammate but the sender, and to
// the lead when a teammate broadcasts. It returns the recipients.
func (m *Manager) broadcast(from, content string) ([]string, error) {
	if strings.TrimSpace(content) == "" {
		return nil, errors.New("message content is empty")
	}
	if m.Team() == "" {
		return nil, ErrNoTeam
	}
	var to []string
	for _, t := range m.reachable() {
		if t.name != from {
			to = append(to, t.name)
		}
	}
	if from != event.LeadID && from != User {
		to = append(to, event.LeadID)
	}
	if len(to) == 0 {
		return nil, errors.New("there is no one to broadcast to: every teammate has ended")
	}
	var sent []string
	var errs []error
	for _, name := range to {
		if err := m.send(from, name, content); err != nil {
			errs = append(errs, err) // ended between the listing and the send
			continue
		}
		sent = append(sent, name)
	}
	if len(sent) == 0 {
		return nil, errors.Join(errs...)
	}
	return sent, nil
}

// emitMessage emits team.message before the message is delivered, so the
// transcript shows it before its answer. Its agent id is the teammate's
// side of the conversation (the sender when a teammate sends, else the
// recipient); a user's message to the lead is the lead's.
func (m *Manager) emitMessage(msg Message, teammate string) {
	id, session := event.LeadID, m.cfg.SessionID
	if teammate != event.LeadID && teammate != User {
		id = AgentID(teammate)
		session = m.cfg.SessionID + "/" + id // the teammate's own session
	}
	e := event.Event{Type: event.TeamMessage, Time: msg.Time, SessionID: session, AgentID: id,
		ParentAgentID: event.LeadID, Data: event.TeamMessageData{From: msg.From, To: msg.To, Content: msg.Content}}
	if id == event.LeadID {
		e.ParentAgentID = ""
	}
	m.emitMu.Lock()
	m.cfg.Sink.Emit(e)
	m.emitMu.Unlock()
}
