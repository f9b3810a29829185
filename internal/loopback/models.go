package loopback

import (
	"fmt"
	"net/http"
	"time"
)

// modelsCreated is the creation time every listed model reports: the
// lists need one, and a fixed one keeps answers stable.
const modelsCreated = "2025-01-01T00:00:00Z"

// serveModels answers GET /v1/models with the scenario's models in the
// shape of the API the client speaks: Anthropic's (a page with
// has_more, first_id, last_id) when the request carries the
// anthropic-version header every Anthropic SDK sends, else OpenAI's (an
// object "list"). A scenario that lists no models answers 404: any model
// name is served, so there is no list to give.
func (x *exchange) serveModels(r *http.Request) {
	x.entry.API = APIOpenAI
	if r.Header.Get("anthropic-version") != "" {
		x.entry.API = APIAnthropic
	}
	if r.Method != http.MethodGet {
		x.w.Header().Set("Allow", http.MethodGet)
		x.fail(&apiError{status: http.StatusMethodNotAllowed, typ: "invalid_request_error", message: fmt.Sprintf("method %s not allowed; use GET", r.Method)}, 0, 0, "wrong method")
		return
	}
	if e := x.checkKey(r); e != nil {
		x.fail(e, 0, 0, "wrong api key")
		return
	}
	models := x.s.sc.Models
	if len(models) == 0 {
		x.fail(&apiError{status: http.StatusNotFound, message: "loopback: the scenario lists no models (set models: to list them)"}, 0, 0, "no model list")
		return
	}
	var body any
	if x.entry.API == APIAnthropic {
		data := make([]map[string]any, len(models))
		for i, id := range models {
			data[i] = map[string]any{"type": "model", "id": id, "display_name": id, "created_at": modelsCreated}
		}
		body = map[string]any{"data": data, "has_more": false, "first_id": models[0], "last_id": models[len(models)-1]}
	} else {
		created, _ := time.Parse(time.RFC3339, modelsCreated)
		data := make([]map[string]any, len(models))
		for i, id := range models {
			data[i] = map[string]any{"id": id, "object": "model", "created": created.Unix(), "owned_by": "loopback"}
		}
		body = map[string]any{"object": "list", "data": data}
	}
	x.w.Header().Set("Content-Type", "application/json")
	x.finish(http.StatusOK, "models listed")
	_, _ = x.w.Write(mustJSON(body))
}
