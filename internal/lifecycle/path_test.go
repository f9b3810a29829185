package lifecycle

import (
	"slices"
	"testing"
)

func TestAPathNamesEveryAgentFromTheLeadDownByTheParentLinks(t *testing.T) {
	recs := map[string]Record{
		"reviewer-1":        {ID: "reviewer-1", ParentID: "lead"},
		"explore-3":         {ID: "explore-3", ParentID: "reviewer-1"},
		"general-purpose-2": {ID: "general-purpose-2", ParentID: "team/alice"},
		"loop-a":            {ID: "loop-a", ParentID: "loop-b"},
		"loop-b":            {ID: "loop-b", ParentID: "loop-a"},
	}
	get := func(id string) (Record, bool) { r, ok := recs[id]; return r, ok }
	for id, want := range map[string][]string{
		"lead":              {"lead"},
		"reviewer-1":        {"lead", "reviewer-1"},
		"explore-3":         {"lead", "reviewer-1", "explore-3"},
		"general-purpose-2": {"lead", "team/alice", "general-purpose-2"}, // a teammate has no record here
		"unknown-9":         {"lead", "unknown-9"},
		"loop-a":            {"lead", "loop-b", "loop-a"},
	} {
		if got := Path(id, get); !slices.Equal(got, want) {
			t.Errorf("Path(%s) = %v, want %v", id, got, want)
		}
	}
}
