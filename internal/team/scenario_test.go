package team_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/runtime"
	"github.com/atomic-agent/atomic/internal/team"
)

func TestLeadCompletesOnlyAfterItsTeamHasShutDown(t *testing.T) {
	names := []string{"ann", "bob", "cy"}
	var rules []loopback.Rule
	for _, n := range names {
		rules = append(rules, reportingMate(n, 150)...) // busy while the lead's turn ends
	}
	first := calls(call("team_create", map[string]any{"name": "builders"}), spawnCall("ann"), spawnCall("bob"), spawnCall("cy"))
	rules = append(rules, leadRules(first, names, "All three reported; the team is done.")...)
	h := start(t, rules, 0)

	h.rt.Submit("Build it with a team of three.")
	out := h.complete(10 * time.Second)
	if out.Err != nil || out.Result != "All three reported; the team is done." {
		t.Fatalf("outcome = %+v, want the lead's final answer", out)
	}
	evs := h.Events()

	completes := index(evs, isType(event.Complete))
	if len(completes) != 1 {
		t.Fatalf("%d complete events, want 1:\n%s", len(completes), h.dump())
	}
	// The lead's first turn ended while the team worked, and it reported
	// usage instead of completing.
	turnEnds := index(evs, isType(event.TurnEnd))
	gated := index(evs, func(e event.Event) bool {
		d, ok := e.Data.(event.UsageUpdateData)
		return ok && e.AgentID == event.LeadID && d.Active > 0
	})
	if len(turnEnds) < 2 || len(gated) == 0 || gated[0] < turnEnds[0] {
		t.Fatalf("want a lead turn.end followed by usage.update with active teammates; turn.end at %v, gated usage at %v\n%s", turnEnds, gated, h.dump())
	}
	// complete comes after every teammate's shutdown and after the
	// shutdown requests.
	ends := index(evs, func(e event.Event) bool {
		d, ok := e.Data.(event.TeammateStatusData)
		return ok && d.Status == string(team.Shutdown)
	})
	if len(ends) != 3 || ends[2] > completes[0] {
		t.Fatalf("shutdown events at %v, complete at %d:\n%s", ends, completes[0], h.dump())
	}
	// Each teammate reported to the lead with a team.message.
	for _, n := range names {
		found := slices.ContainsFunc(evs, func(e event.Event) bool {
			d, ok := e.Data.(event.TeamMessageData)
			return ok && d.From == n && d.To == "lead" && d.Content == "report from "+n && e.AgentID == team.AgentID(n)
		})
		if !found {
			t.Errorf("no team.message from %s to the lead", n)
		}
		if got := statusesOf(evs, n); !slices.Equal(got, []string{"spawning", "working", "idle", "shutdown"}) {
			t.Errorf("%s went %v, want spawning, working, idle, shutdown", n, got)
		}
	}
	if n := h.rt.Team().Active(); n != 0 {
		t.Errorf("Active = %d after completion, want 0", n)
	}
}

func statusesOf(evs []event.Event, name string) []string {
	var out []string
	for _, s := range statuses(evs) {
		if n, st, _ := strings.Cut(s, ":"); n == name {
			out = append(out, st)
		}
	}
	return out
}

func TestFailingTeammateCountsDownAndTheLeadIsTold(t *testing.T) {
	rules := reportingMate("ann", 0)
	rules = append(rules, loopback.Rule{Name: "bob-fails", Match: loopback.Match{SystemContains: mateSystem("bob")},
		Respond: &loopback.Response{Error: &loopback.ErrorSpec{Status: 500, Message: "model exploded"}}})
	first := calls(call("team_create", map[string]any{"name": "t"}), spawnCall("ann"), spawnCall("bob"))
	rules = append(rules, leadRules(first, []string{"ann"}, "Done; bob failed.",
		loopback.Rule{Name: "lead-told", Match: loopback.Match{SystemContains: leadSystem, LastUserContains: "Teammate bob (worker) failed"},
			Respond: text("bob is gone; carrying on.")})...)
	h := start(t, rules, 0)

	h.rt.Submit("Build it with two.")
	out := h.complete(10 * time.Second)
	if out.Err != nil || out.Result != "Done; bob failed." {
		t.Fatalf("outcome = %+v\n%s", out, h.dump())
	}
	if got := statusesOf(h.Events(), "bob"); !slices.Equal(got, []string{"spawning", "working", "error"}) {
		t.Fatalf("bob went %v, want spawning, working, error", got)
	}
	var bob team.Info
	for _, i := range h.rt.Team().Teammates() {
		if i.Name == "bob" {
			bob = i
		}
	}
	if !strings.Contains(bob.Error, "model exploded") || bob.Ended.IsZero() {
		t.Errorf("bob = %+v, want the provider's error and an end time", bob)
	}
	told := slices.ContainsFunc(h.srv.Log(), func(e loopback.LogEntry) bool {
		return strings.Contains(e.System, leadSystem) && strings.Contains(e.LastUserText(), "Teammate bob (worker) failed and has ended") &&
			strings.Contains(e.LastUserText(), "model exploded")
	})
	if !told {
		t.Errorf("the lead was not told of bob's failure:\n%s", h.dumpLog())
	}
	if got := finalStatus(h); got["ann"] != team.Shutdown || h.rt.Team().Active() != 0 {
		t.Errorf("final statuses %v, active %d", got, h.rt.Team().Active())
	}
}

func TestFailedSpawnsReportAClearErrorAndLeaveTheCountAlone(t *testing.T) {
	rules := reportingMate("ann", 0)
	first := calls(call("team_create", map[string]any{"name": "t"}), spawnCall("ann"),
		call("team_spawn", map[string]any{"name": "zed", "role": "x", "prompt": "Assignment", "subagent_type": "wizard"}),
		spawnCall("bob"), spawnCall("ann"))
	rules = append(rules, leadRules(first, []string{"ann"}, "Done with one.")...)
	h := start(t, rules, 1)

	h.rt.Submit("Build it.")
	if out := h.complete(10 * time.Second); out.Err != nil {
		t.Fatalf("outcome = %+v", out)
	}
	var errs []string
	for _, e := range h.Events() {
		if d, ok := e.Data.(event.ToolCompleteData); ok && d.Name == "team_spawn" && !d.Success {
			errs = append(errs, d.Error)
		}
	}
	want := []string{`unknown subagent_type "wizard"; known types: explore, general-purpose`,
		"the team is full: 1 of 1 teammates are active (--max-teammates 1)",
		`teammate "ann" already exists`}
	if len(errs) != len(want) {
		t.Fatalf("spawn errors %q, want %d", errs, len(want))
	}
	// The waits of one message's calls finish in any order.
	for _, w := range want {
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, w) }) {
			t.Errorf("spawn errors %q: none says %q", errs, w)
		}
	}
	if got := statuses(h.Events()); !slices.Equal(got, []string{"ann:spawning", "ann:working", "ann:idle", "ann:shutdown"}) {
		t.Errorf("status events %v: failed spawns must not appear", got)
	}
}

func TestMessagesToABusyTeammateArriveInOrderAndBroadcastReachesEachOnce(t *testing.T) {
	rules := append(reportingMate("ann", 400), reportingMate("bob", 0)...)
	first := calls(call("team_create", map[string]any{"name": "t"}), spawnCall("ann"), spawnCall("bob"))
	msgs := calls(
		call("send_message", map[string]any{"to": "ann", "content": "msg-one"}),
		call("send_message", map[string]any{"to": "ann", "content": "msg-two"}),
		call("send_message", map[string]any{"to": "ann", "content": "msg-three"}),
		call("broadcast", map[string]any{"content": "all-hands"}),
	)
	rules = append(rules, leadRules(first, []string{"ann", "bob"}, "Done.",
		loopback.Rule{Name: "lead-messages", Times: 1, Match: loopback.Match{SystemContains: leadSystem, ToolResultContains: "Spawned teammate"}, Respond: msgs})...)
	h := start(t, rules, 0)

	h.rt.Submit("Build it.")
	if out := h.complete(10 * time.Second); out.Err != nil {
		t.Fatalf("outcome = %+v", out)
	}
	log := h.srv.Log()
	// ann was busy with its first answer: its next request carries the
	// four messages, in the order the lead wrote them.
	var next string
	for _, e := range log {
		if strings.Contains(e.System, mateSystem("ann")) && strings.Contains(e.LastUserText(), "msg-one") {
			next = e.LastUserText()
			break
		}
	}
	pos := func(s string) int { return strings.Index(next, s) }
	if next == "" || !(pos("msg-one") < pos("msg-two") && pos("msg-two") < pos("msg-three") && pos("msg-three") < pos("all-hands")) {
		t.Fatalf("ann's next turn got %q, want msg-one, msg-two, msg-three, all-hands in order\n%s", next, h.dumpLog())
	}
	if !strings.Contains(next, `<team-message from="lead" to="ann"`) {
		t.Errorf("message lacks sender and recipient: %q", next)
	}
	// Each teammate's whole conversation holds the broadcast once.
	for _, n := range []string{"ann", "bob"} {
		var last loopback.LogEntry
		for _, e := range log {
			if strings.Contains(e.System, mateSystem(n)) {
				last = e
			}
		}
		count := 0
		for _, m := range last.Messages {
			if m.Role == "user" {
				count += strings.Count(m.Text, "all-hands")
			}
		}
		if count != 1 {
			t.Errorf("%s saw the broadcast %d times, want once", n, count)
		}
	}
	var bc []string
	for _, e := range h.Events() {
		if d, ok := e.Data.(event.TeamMessageData); ok && d.Content == "all-hands" {
			bc = append(bc, d.From+">"+d.To)
		}
	}
	if !slices.Equal(bc, []string{"lead>ann", "lead>bob"}) {
		t.Errorf("broadcast team.message events %v, want one per teammate", bc)
	}
}

func TestInterruptStopsEveryTeammateAndTheLeadCompletes(t *testing.T) {
	slow := func(name string) loopback.Rule {
		return loopback.Rule{Name: name + "-slow", Match: loopback.Match{SystemContains: mateSystem(name)},
			Respond: &loopback.Response{DelayMS: 30000, Text: "never"}}
	}
	rules := []loopback.Rule{slow("ann"), slow("bob")}
	first := calls(call("team_create", map[string]any{"name": "t"}), spawnCall("ann"), spawnCall("bob"))
	rules = append(rules, leadRules(first, nil, "unused")...)
	h := start(t, rules, 0)

	h.rt.Submit("Build it.")
	h.waitFor("the lead's turn to end with both teammates working", func() bool {
		st := finalStatus(h)
		return len(index(h.Events(), isType(event.TurnEnd))) > 0 && st["ann"] == team.Working && st["bob"] == team.Working
	})
	began := time.Now()
	h.rt.Interrupt("user pressed Esc")
	out := h.complete(5 * time.Second)
	if !errors.Is(out.Err, runtime.ErrInterrupted) {
		t.Errorf("outcome error %v, want ErrInterrupted", out.Err)
	}
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("interrupt took %s to complete", d)
	}
	for name, st := range finalStatus(h) {
		if st != team.Interrupted {
			t.Errorf("%s is %s after the interrupt, want interrupted", name, st)
		}
	}
	if n := h.rt.Team().Active(); n != 0 {
		t.Errorf("Active = %d after the interrupt", n)
	}
	h.close() // every teammate goroutine has ended: goleak checks at exit
}
