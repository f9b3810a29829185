package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// fakeTool is a minimal Tool for registry and Execute tests.
type fakeTool struct {
	SchemaCache
	name   string
	schema string
	run    func(ctx context.Context, call Call) (Result, error)
}

func (f *fakeTool) Name() string        { return f.name }
func (f *fakeTool) Description() string { return "the " + f.name + " tool" }
func (f *fakeTool) Schema() json.RawMessage {
	if f.schema == "" {
		return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	}
	return json.RawMessage(f.schema)
}
func (f *fakeTool) Kind() Kind { return ReadOnly }
func (f *fakeTool) Run(ctx context.Context, call Call) (Result, error) {
	if f.run == nil {
		return Result{Content: f.name + " ran"}, nil
	}
	return f.run(ctx, call)
}

func TestSetKeepsOrderAndReplacesToolsOfTheSameName(t *testing.T) {
	a, b, c := &fakeTool{name: "a"}, &fakeTool{name: "b"}, &fakeTool{name: "c"}
	s := NewSet(a, b)
	s.Add(c)
	b2 := &fakeTool{name: "b"}
	s.Add(b2)
	if got, want := s.Names(), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	if got, ok := s.Get("b"); !ok || got != Tool(b2) {
		t.Fatalf("Get(b) = %v, %v; want the replacement", got, ok)
	}
	if _, ok := s.Get("zz"); ok {
		t.Fatal("Get of an unknown name succeeded")
	}
	specs := s.Specs()
	if len(specs) != 3 || specs[0].Name != "a" || specs[0].Description != "the a tool" || !json.Valid(specs[0].InputSchema) {
		t.Fatalf("Specs = %+v", specs)
	}
}

func TestSetWithoutAndOnlyReturnNewSets(t *testing.T) {
	s := NewSet(&fakeTool{name: "a"}, &fakeTool{name: "b"}, &fakeTool{name: "c"})
	if got := s.Without("b", "unknown").Names(); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Without = %v", got)
	}
	only, err := s.Only("c", "a")
	if err != nil {
		t.Fatal(err)
	}
	if got := only.Names(); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Only keeps the set's order: got %v", got)
	}
	if s.Len() != 3 {
		t.Errorf("the original set changed: %v", s.Names())
	}
}

func TestSetOnlyRejectsUnknownNamesListingKnownOnes(t *testing.T) {
	s := NewSet(&fakeTool{name: "read"}, &fakeTool{name: "grep"})
	_, err := s.Only("read", "raed", "bash")
	if err == nil {
		t.Fatal("Only with unknown names succeeded")
	}
	for _, w := range []string{`"raed"`, `"bash"`, "known tools: read, grep"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestCoreHasTheNineToolsInOrder(t *testing.T) {
	s := Core(Workspace{Root: t.TempDir()})
	want := []string{"read", "write", "edit", "multi_edit", "bash", "glob", "grep", "ls", "web_fetch"}
	if got := s.Names(); !slices.Equal(got, want) {
		t.Fatalf("Core names = %v, want %v", got, want)
	}
	kinds := map[string]Kind{"read": ReadOnly, "write": Edit, "edit": Edit, "multi_edit": Edit, "bash": Exec, "glob": ReadOnly, "grep": ReadOnly, "ls": ReadOnly, "web_fetch": Exec}
	for _, spec := range s.Specs() {
		tool, _ := s.Get(spec.Name)
		if tool.Kind() != kinds[spec.Name] {
			t.Errorf("%s: kind %v, want %v", spec.Name, tool.Kind(), kinds[spec.Name])
		}
		if len(spec.Description) < 100 {
			t.Errorf("%s: description too short to guide a model: %q", spec.Name, spec.Description)
		}
		if _, err := resolveSchema(spec.InputSchema); err != nil {
			t.Errorf("%s: schema does not resolve: %v", spec.Name, err)
		}
	}
	for _, name := range []string{"write", "edit", "multi_edit"} {
		tool, _ := s.Get(name)
		if _, ok := tool.(Locker); !ok {
			t.Errorf("%s is not a Locker", name)
		}
	}
	for _, name := range want {
		tool, _ := s.Get(name)
		if _, ok := tool.(Subjecter); !ok {
			t.Errorf("%s is not a Subjecter", name)
		}
	}
}

func TestAHeldToolIsCallableByNameButOfferedOnlyOnceAdded(t *testing.T) {
	a, held := &fakeTool{name: "a"}, &fakeTool{name: "later"}
	s := NewSet(a)
	s.Hold(held)
	if got, ok := s.Get("later"); !ok || got != held {
		t.Fatal("a held tool is not callable by name")
	}
	if s.Offered("later") || slices.Contains(s.Names(), "later") || s.Len() != 1 || len(s.Specs()) != 1 {
		t.Fatalf("a held tool is offered: names %v", s.Names())
	}
	s.Hold(&fakeTool{name: "a"}) // an offered tool stays offered, and itself
	if got, _ := s.Get("a"); got != a || !s.Offered("a") {
		t.Fatal("holding an offered tool's name changed it")
	}
	s.Add(held)
	if !s.Offered("later") || !slices.Equal(s.Names(), []string{"a", "later"}) || len(s.Specs()) != 2 {
		t.Fatalf("after Add: names %v, want a and later offered", s.Names())
	}
	s.Hold(&fakeTool{name: "later"}) // no way back to held
	if !s.Offered("later") {
		t.Fatal("an offered tool was held again")
	}
}

func TestOfferPromotesHeldToolsInOrderAndLeavesOthersAlone(t *testing.T) {
	a, h1, h2 := &fakeTool{name: "a"}, &fakeTool{name: "h1"}, &fakeTool{name: "h2"}
	s := NewSet(a)
	s.Hold(h1)
	s.Hold(h2)
	s.Offer("h2", "a", "unknown", "h1")
	if !slices.Equal(s.Names(), []string{"a", "h2", "h1"}) {
		t.Fatalf("names %v, want a then the held tools in the order offered", s.Names())
	}
	s.Offer("h2") // offered already: no second copy
	if s.Len() != 3 {
		t.Fatalf("offering an offered tool again changed the set: %v", s.Names())
	}
	if got, _ := s.Get("h1"); got != h1 {
		t.Fatal("the offered tool is not the held one")
	}
}

func TestHoldBackStopsOfferingAToolThatStaysCallable(t *testing.T) {
	s := NewSet(&fakeTool{name: "a"}, &fakeTool{name: "b"}, &fakeTool{name: "c"})
	s.HoldBack("b", "missing")
	if got := s.Names(); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("offered %v, want [a c]", got)
	}
	if _, ok := s.Get("b"); !ok {
		t.Fatal("b held back is no longer callable")
	}
	s.Offer("b")
	if got := s.Names(); !slices.Equal(got, []string{"a", "c", "b"}) {
		t.Fatalf("offered after Offer %v, want [a c b]", got)
	}
}
