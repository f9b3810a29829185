package spawn

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/atomic-agent/atomic/internal/backend"
	"github.com/atomic-agent/atomic/internal/event"
	"github.com/atomic-agent/atomic/internal/loopback"
	"github.com/atomic-agent/atomic/internal/remote"
	"github.com/atomic-agent/atomic/internal/remote/embedded"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

const leadModel = "lead-model"

// opened is what the CLIs factory was asked to open: the test reads its
// Config, the one thing a CLI adapter is given (the adapters' own tests
// start the real CLIs from it).
type opened struct {
	backend.Session
	name string
	cfg  backend.Config
}

// world is an Opener over a loopback model (the lead's provider) whose
// CLIs inherit, per API, the endpoint that inherit names, and whose
// remote types go to a dispatcher on an embedded NATS server.
type world struct {
	o   *Opener
	srv *loopback.Server
	d   *remote.Dispatcher
}

// inherited is what a CLI speaking api inherits in these tests.
func inherited(api string) Endpoint {
	return Endpoint{BaseURL: "http://" + api + ".example", APIKey: api + "-key", Model: api + "-model"}
}

func newWorld(t *testing.T, types ...Type) *world {
	t.Helper()
	prov, srv := testkit.Model(t, `
rules:
  - {name: answer, respond: {text: "done"}}
`)
	nats, err := embedded.StartServer(embedded.ServerConfig{Listen: "127.0.0.1:0", Store: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nats.Close)
	d, err := remote.Dial(context.Background(), remote.Options{URL: nats.URL(), Heartbeat: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	open := func(name string, cfg backend.Config) (backend.Session, error) {
		return &opened{name: name, cfg: cfg}, nil
	}
	o := New(Config{Provider: prov, Model: leadModel, Types: NewRegistry(types...),
		Tools: tools.Core(tools.Workspace{Root: t.TempDir()}), Workspace: "/work/tree", Remote: d,
		CLIs: Inheriting(func(api string) (Endpoint, error) { return inherited(api), nil }, open)})
	return &world{o: o, srv: srv, d: d}
}

// run opens plan as sub-agent id and runs a native session to its answer,
// returning the request the model got.
func (w *world) run(t *testing.T, p Plan, id string) loopback.LogEntry {
	t.Helper()
	s, err := w.o.Open(p, Spec{SessionID: "s/" + id, AgentID: id, ParentID: event.LeadID, Name: p.Type.Name, System: "sys"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(backend.ImageRunner); !ok {
		t.Fatalf("%s: opened %T, want the native loop", id, s)
	}
	if _, err := s.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	log := w.srv.Log()
	return log[len(log)-1]
}

func TestOpenGivesEachAgentTypeOnEachBackendItsToolsModelAndBackend(t *testing.T) {
	all := tools.Core(tools.Workspace{Root: t.TempDir()}).Names()
	cases := []struct {
		typ     Type
		backend string
		tools   []string // nil: a CLI's own
		model   string
		baseURL string // a CLI's inherited endpoint
	}{
		{typ: Type{Name: "all-tools"}, backend: backend.Native, tools: all, model: leadModel},
		{typ: Type{Name: "reader", Tools: []string{"read", "grep"}}, backend: backend.Native, tools: []string{"read", "grep"}, model: leadModel},
		{typ: Type{Name: "pinned", Model: "pinned-model"}, backend: backend.Native, tools: all, model: "pinned-model"},
		{typ: Type{Name: "inherit", Model: "inherit"}, backend: backend.Native, tools: all, model: leadModel},
		{typ: Type{Name: "claude-file", Model: "sonnet", Tools: []string{"read"}}, backend: backend.Native, tools: []string{"read"}, model: leadModel},
		{typ: Type{Name: "cc", Backend: backend.ClaudeCode, Tools: []string{"Read"}}, backend: backend.ClaudeCode,
			model: "anthropic-model", baseURL: "http://anthropic.example"},
		{typ: Type{Name: "cc-sonnet", Backend: backend.ClaudeCode, Model: "sonnet"}, backend: backend.ClaudeCode,
			model: "sonnet", baseURL: "http://anthropic.example"},
		{typ: Type{Name: "cx", Backend: backend.Codex, Model: "gpt-own"}, backend: backend.Codex,
			model: "gpt-own", baseURL: "http://openai.example"},
		{typ: Type{Name: "oc", Backend: backend.OpenCode}, backend: backend.OpenCode,
			model: "openai-model", baseURL: "http://openai.example"},
		{typ: Type{Name: "gh", Backend: backend.Copilot}, backend: backend.Copilot,
			model: "openai-model", baseURL: "http://openai.example"},
		{typ: Type{Name: "far", RunsOn: Workers, Tools: []string{"read"}}, backend: Remote,
			tools: []string{"read"}, model: leadModel},
	}
	var types []Type
	for _, c := range cases {
		types = append(types, c.typ)
	}
	w := newWorld(t, types...)
	for _, c := range cases {
		t.Run(c.typ.Name, func(t *testing.T) {
			p, err := w.o.Lookup(c.typ.Name)
			if err != nil {
				t.Fatal(err)
			}
			if p.Backend != c.backend || p.Tools.Names() == nil != (c.tools == nil) {
				t.Fatalf("plan: backend %q tools %v, want %q %v", p.Backend, p.Tools.Names(), c.backend, c.tools)
			}
			if c.tools != nil && !slices.Equal(p.Tools.Names(), c.tools) {
				t.Fatalf("plan tools %v, want %v", p.Tools.Names(), c.tools)
			}
			switch c.backend {
			case backend.Native:
				req := w.run(t, p, c.typ.Name+"-1")
				if req.Model != c.model || !slices.Equal(req.Tools, c.tools) || req.System != "sys" {
					t.Fatalf("the model got model %q tools %v system %q, want %q %v %q", req.Model, req.Tools, req.System, c.model, c.tools, "sys")
				}
			case Remote:
				s, err := w.o.Open(p, Spec{AgentID: "far-1"})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := s.(*RemoteSession); !ok || s.Model() != c.model {
					t.Fatalf("opened %T on model %q, want a RemoteSession on %q", s, s.Model(), c.model)
				}
			default:
				s, err := w.o.Open(p, Spec{AgentID: c.typ.Name + "-1", ParentID: event.LeadID, System: "not for a CLI"})
				if err != nil {
					t.Fatal(err)
				}
				got := s.(*opened)
				cfg := got.cfg
				if got.name != c.backend || cfg.Model != c.model || cfg.BaseURL != c.baseURL || cfg.Workspace != "/work/tree" {
					t.Fatalf("opened %s with model %q endpoint %q workspace %q, want %s %q %q /work/tree",
						got.name, cfg.Model, cfg.BaseURL, cfg.Workspace, c.backend, c.model, c.baseURL)
				}
				if cfg.Provider != nil || cfg.Tools != nil || cfg.System != "" {
					t.Fatalf("a CLI was handed the native loop's provider, tools or system prompt: %+v", cfg)
				}
			}
		})
	}
}

func TestASubagentOnEveryBackendInheritsTheLeadsModelAndEndpointTheSameWay(t *testing.T) {
	var types []Type
	for _, k := range backend.Known() {
		types = append(types, Type{Name: "plain-" + k.Name, Backend: k.Name},
			Type{Name: "own-" + k.Name, Backend: k.Name, Model: "own-model"})
	}
	w := newWorld(t, types...)
	check := func(t *testing.T, lead string) {
		for _, k := range backend.Known() {
			for _, own := range []bool{false, true} {
				name := "plain-" + k.Name
				if own {
					name = "own-" + k.Name
				}
				p, err := w.o.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				want := "own-model"
				if k.Name == backend.Native {
					if !own {
						want = lead // the lead's model, on the lead's provider (endpoint)
					}
					if req := w.run(t, p, name); req.Model != want {
						t.Errorf("%s asked the lead's endpoint for %q, want %q", name, req.Model, want)
					}
					continue
				}
				if !own {
					want = inherited(k.API).Model // the lead's settings for the CLI's API
				}
				s, err := w.o.Open(p, Spec{AgentID: name})
				if err != nil {
					t.Fatal(err)
				}
				cfg, ep := s.(*opened).cfg, inherited(k.API)
				if cfg.Model != want || cfg.BaseURL != ep.BaseURL || cfg.APIKey != ep.APIKey {
					t.Errorf("%s opened on %q at %q (%q), want %q at the %s settings %q (%q)",
						name, cfg.Model, cfg.BaseURL, cfg.APIKey, want, k.API, ep.BaseURL, ep.APIKey)
				}
			}
		}
	}
	t.Run("as started", func(t *testing.T) { check(t, leadModel) })
	w.o.SetModel("switched-model")
	t.Run("after the lead switched model", func(t *testing.T) { check(t, "switched-model") })
}

func TestTheLeadOpensNativelyWithItsToolsOrOnItsCLIWithNoneOfThem(t *testing.T) {
	w := newWorld(t)
	lead, _ := tools.Core(tools.Workspace{Root: t.TempDir()}).Only("read", "bash")
	s, err := w.o.OpenLead(nil, lead, Spec{AgentID: event.LeadID, Name: event.LeadID, System: "lead sys"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	log := w.srv.Log()
	if req := log[len(log)-1]; req.Model != leadModel || !slices.Equal(req.Tools, []string{"read", "bash"}) || req.System != "lead sys" {
		t.Fatalf("native lead asked for %q with %v and %q", req.Model, req.Tools, req.System)
	}
	var got backend.Config
	_, err = w.o.OpenLead(func(cfg backend.Config) (backend.Session, error) {
		got = cfg
		return &opened{cfg: cfg}, nil
	}, lead, Spec{AgentID: event.LeadID, SessionID: "s", System: "lead sys"})
	if err != nil {
		t.Fatal(err)
	}
	if got.AgentID != event.LeadID || got.SessionID != "s" || got.Workspace != "/work/tree" ||
		got.Model != "" || got.Tools != nil || got.System != "" || got.Provider != nil {
		t.Fatalf("the lead's CLI was opened with %+v; want its ids and workspace, and its model left to --backend", got)
	}
}
