package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-agent/atomic/internal/permission"
)

// Names in the generated config.
const (
	providerID = "atomic"
	keyEnv     = "ATOMIC_OPENCODE_API_KEY" // the provider's key, read by OpenCode as {env:…}
)

// defaultBaseURL is OpenAI's, for a key given without a base URL.
const defaultBaseURL = "https://api.openai.com/v1"

// writeConfig creates a throwaway directory holding the opencode.json the
// server loads on top of the user's (OPENCODE_CONFIG): the permission
// policy, so OpenCode asks Atomic what the gate would ask a human, and,
// when Atomic's provider settings are given, a provider entry for them
// (OpenAI-compatible, options.baseURL) selected as the model. It returns
// the directory and the file.
func writeConfig(gate *permission.Gate, baseURL, apiKey, model string) (dir, file string, err error) {
	cfg := map[string]any{"$schema": "https://opencode.ai/config.json", "autoupdate": false, "share": "disabled",
		"permission": policy(gate)}
	if baseURL != "" || apiKey != "" {
		if model == "" {
			return "", "", errors.New("opencode: --base-url or an API key needs --model (the model the endpoint serves)")
		}
		if baseURL == "" {
			baseURL = defaultBaseURL
		}
		id := strings.TrimPrefix(model, providerID+"/")
		cfg["provider"] = map[string]any{providerID: map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Atomic",
			"options": map[string]any{"baseURL": baseURL, "apiKey": "{env:" + keyEnv + "}"},
			"models": map[string]any{id: map[string]any{"name": id, "tool_call": true,
				"limit": map[string]int{"context": 200000, "output": 8192}}},
		}}
		cfg["model"] = providerID + "/" + id
		cfg["small_model"] = providerID + "/" + id
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", "", fmt.Errorf("opencode: config: %w", err)
	}
	dir, err = os.MkdirTemp("", "atomic-opencode-")
	if err != nil {
		return "", "", fmt.Errorf("opencode: config dir: %w", err)
	}
	file = filepath.Join(dir, "opencode.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("opencode: config: %w", err)
	}
	return dir, file, nil
}

// policy maps the gate's mode onto OpenCode's permissions: what changes
// anything is asked (the gate then decides, without a human where its
// rules do); bypass allows all, as the gate would.
func policy(g *permission.Gate) map[string]string {
	action := "ask"
	if g == nil || g.Mode() == permission.BypassPermissions {
		action = "allow"
	}
	return map[string]string{"edit": action, "bash": action, "webfetch": action, "external_directory": action}
}

// modelRef splits "provider/model" for a prompt's model; a bare model is
// the generated provider's when there is one.
func modelRef(model string, generated bool) (map[string]string, bool) {
	if p, m, ok := strings.Cut(model, "/"); ok && p != "" && m != "" {
		return map[string]string{"providerID": p, "modelID": m}, true
	}
	if model != "" && generated {
		return map[string]string{"providerID": providerID, "modelID": model}, true
	}
	return nil, false
}
