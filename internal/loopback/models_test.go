package loopback

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

func TestTheAnthropicSDKListsTheScenariosModels(t *testing.T) {
	s := startServer(t, &Scenario{APIKey: testKey, Models: []string{"claude-x", "claude-y"}})
	c := anthropicClient(s, testKey)
	page, err := c.Models.List(context.Background(), anthropic.ModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
		if m.Type != "model" || m.CreatedAt.IsZero() {
			t.Errorf("model %+v lacks its type or creation time", m)
		}
	}
	if len(ids) != 2 || ids[0] != "claude-x" || ids[1] != "claude-y" || page.HasMore || page.LastID != "claude-y" {
		t.Errorf("listed %q (has_more %v, last %q), want claude-x, claude-y", ids, page.HasMore, page.LastID)
	}
	if e := waitForLog(t, s, 1)[0]; e.API != APIAnthropic || e.Path != "/v1/models" || e.Status != http.StatusOK {
		t.Errorf("log entry %+v", e)
	}
}

func TestTheOpenAISDKListsTheScenariosModels(t *testing.T) {
	s := startServer(t, &Scenario{APIKey: testKey, Models: []string{"gpt-x", "gpt-y"}})
	var ids []string
	c := openAIClient(s, testKey)
	iter := c.Models.ListAutoPaging(context.Background())
	for iter.Next() {
		m := iter.Current()
		if m.Object != "model" || m.Created == 0 {
			t.Errorf("model %+v lacks its object or creation time", m)
		}
		ids = append(ids, m.ID)
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != "gpt-x" || ids[1] != "gpt-y" {
		t.Errorf("listed %q, want gpt-x, gpt-y", ids)
	}
	if e := waitForLog(t, s, 1)[0]; e.API != APIOpenAI || e.Status != http.StatusOK {
		t.Errorf("log entry %+v", e)
	}
}

func TestAModelListNeedsTheKeyAndAScenarioThatListsModels(t *testing.T) {
	s := startServer(t, &Scenario{APIKey: testKey, Models: []string{"claude-x"}})
	wrong := anthropicClient(s, "wrong")
	_, err := wrong.Models.List(context.Background(), anthropic.ModelListParams{})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong key listed models: %v", err)
	}
	bare := startServer(t, &Scenario{APIKey: testKey})
	oc := openAIClient(bare, testKey)
	_, err = oc.Models.List(context.Background())
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != http.StatusNotFound {
		t.Errorf("a scenario without models gave a list: %v", err)
	}
}
