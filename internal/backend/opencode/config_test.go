package opencode

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/atomic-agent/atomic/internal/permission"
)

func TestGeneratedConfigSelectsAtomicsProviderAndKeepsTheKeyOutOfTheFile(t *testing.T) {
	dir, file, err := writeConfig(newGate(t, nil), "http://127.0.0.1:1234/v1", "sk-secret", "gpt-test")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-secret") {
		t.Fatalf("the key is written to %s", file)
	}
	var cfg struct {
		Model      string            `json:"model"`
		Permission map[string]string `json:"permission"`
		Provider   map[string]struct {
			NPM     string            `json:"npm"`
			Options map[string]string `json:"options"`
			Models  map[string]any    `json:"models"`
		} `json:"provider"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	p := cfg.Provider[providerID]
	if cfg.Model != "atomic/gpt-test" || p.Options["baseURL"] != "http://127.0.0.1:1234/v1" || p.Options["apiKey"] != "{env:"+keyEnv+"}" || p.Models["gpt-test"] == nil {
		t.Fatalf("config %s: want the atomic provider at the base URL, its key from %s, selected", b, keyEnv)
	}
	if cfg.Permission["bash"] != "ask" || cfg.Permission["edit"] != "ask" {
		t.Fatalf("permission %v: want bash and edit asked, so the gate decides", cfg.Permission)
	}
}

func TestConfigWithoutProviderSettingsOnlySetsThePolicy(t *testing.T) {
	g, err := permission.NewGate(permission.Options{Mode: permission.BypassPermissions})
	if err != nil {
		t.Fatal(err)
	}
	dir, file, err := writeConfig(g, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), `"provider"`) || strings.Contains(string(b), `"model"`) || !strings.Contains(string(b), `"bash": "allow"`) {
		t.Fatalf("config %s: want no provider or model, bash allowed (bypass)", b)
	}
}

func TestBaseURLWithoutModelIsRejectedNamingTheFlag(t *testing.T) {
	_, _, err := writeConfig(nil, "http://127.0.0.1:1/v1", "", "")
	if err == nil || !strings.Contains(err.Error(), "--model") {
		t.Fatalf("err %v, want one naming --model", err)
	}
}

func TestModelRefSplitsProviderAndModel(t *testing.T) {
	for _, c := range []struct {
		model     string
		generated bool
		want      string
	}{
		{"anthropic/claude-x", false, "anthropic claude-x"},
		{"gpt-test", true, "atomic gpt-test"},
		{"gpt-test", false, ""},
		{"", true, ""},
	} {
		ref, ok := modelRef(c.model, c.generated)
		got := ""
		if ok {
			got = ref["providerID"] + " " + ref["modelID"]
		}
		if got != c.want {
			t.Errorf("modelRef(%q, %v) = %q, want %q", c.model, c.generated, got, c.want)
		}
	}
}
