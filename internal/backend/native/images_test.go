package native

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/atomic-agent/atomic/internal/permission"
	"github.com/atomic-agent/atomic/internal/testkit"
	"github.com/atomic-agent/atomic/internal/tools"
)

func TestAToolResultsImagesReachTheModelAndTheHistory(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	}))
	defer web.Close()
	p, srv := testkit.Model(t, fmt.Sprintf(`
rules:
  - name: saw
    match: {tool_result_has_image: true}
    respond: {text: "a one-pixel PNG"}
  - name: blind
    match: {has_tool_results: true}
    respond: {text: "no picture arrived"}
  - name: fetch
    respond:
      tool_calls:
        - {name: web_fetch, input: {url: %q}}
`, web.URL+"/dot.png"))
	gate, err := permission.NewGate(permission.Options{Allowed: []string{"web_fetch(domain:127.0.0.1)"}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{ID: "lead", Provider: p, Gate: gate, Tools: tools.NewSet(tools.NewWebFetch(tools.WebFetchOptions{}))})
	res, err := s.Run(context.Background(), "what is at the URL?")
	if err != nil || res.Text != "a one-pixel PNG" {
		t.Fatalf("res %+v err %v; want the model to have seen the image", res, err)
	}
	got := srv.Log()[1].LastToolResults()
	if len(got) != 1 || len(got[0].Images) != 1 || !bytes.Equal(got[0].Images[0].Data, png) {
		t.Fatalf("tool results the model got: %+v", got)
	}
	h := s.History()
	r := h[2].Parts[0].ToolResult
	if r == nil || len(r.Images) != 1 || r.Images[0].MediaType != "image/png" || !bytes.Equal(r.Images[0].Data, png) {
		t.Fatalf("history's tool result %+v; want the image kept for later turns", r)
	}
}
