package chat

import (
	"encoding/json"
	"fmt"

	"github.com/atomic-agent/atomic/internal/provider/hosted"
	"github.com/atomic-agent/atomic/internal/provider/openai/settings"
)

// Open is what atomic-openai serves (hosted.Main): a Provider with the
// settings atomic sent as JSON.
func Open(raw json.RawMessage) (hosted.Backend, error) {
	var s settings.Settings
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("reading the settings: %w", err)
	}
	return New(Config{APIKey: s.APIKey, BaseURL: s.BaseURL, Model: s.Model, MaxTokens: s.MaxTokens, NoPromptCache: s.NoPromptCache})
}
