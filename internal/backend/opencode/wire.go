package opencode

import (
	"encoding/json"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// Event is one server event: the JSON of an SSE `data:` line of GET /event.
type Event struct {
	Type       string          `json:"type"`
	Properties json.RawMessage `json:"properties"`
}

// props is the union of the properties the translator reads.
type props struct {
	SessionID string `json:"sessionID"`
	// session.created/updated: the session; message.updated: the message.
	Info info  `json:"info"`
	Part *part `json:"part"`
	// message.part.delta
	PartID string `json:"partID"`
	Field  string `json:"field"`
	Delta  string `json:"delta"`
	// session.status
	Status struct {
		Type string `json:"type"`
	} `json:"status"`
	// session.error
	Error *struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
	// permission.asked
	ID         string          `json:"id"`
	Permission string          `json:"permission"`
	Patterns   []string        `json:"patterns"`
	Metadata   json.RawMessage `json:"metadata"`
	Tool       *struct {
		MessageID string `json:"messageID"`
		CallID    string `json:"callID"`
	} `json:"tool"`
}

type info struct {
	ID       string `json:"id"`
	ParentID string `json:"parentID"`
	Role     string `json:"role"`
	Agent    string `json:"agent"`
	ModelID  string `json:"modelID"`
}

type part struct {
	ID        string     `json:"id"`
	MessageID string     `json:"messageID"`
	SessionID string     `json:"sessionID"`
	Type      string     `json:"type"`
	Text      string     `json:"text"`
	Synthetic bool       `json:"synthetic"`
	Time      *partTime  `json:"time"`
	Tool      string     `json:"tool"`
	CallID    string     `json:"callID"`
	State     *toolState `json:"state"`
	Tokens    *tokens    `json:"tokens"`
}

type partTime struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

type toolState struct {
	Status   string          `json:"status"`
	Input    json.RawMessage `json:"input"`
	Output   string          `json:"output"`
	Error    string          `json:"error"`
	Metadata struct {
		SessionID   string `json:"sessionId"`
		Background  bool   `json:"background"`
		Interrupted bool   `json:"interrupted"`
		Model       *struct {
			ModelID    string `json:"modelID"`
			ProviderID string `json:"providerID"`
		} `json:"model"`
	} `json:"metadata"`
}

type tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Cache  struct {
		Read  int64 `json:"read"`
		Write int64 `json:"write"`
	} `json:"cache"`
}

// taskTag is the head of a task tool's output and of a background task's
// synthetic completion message: <task id="ses_…" state="completed">.
var taskTag = lazy.Regexp{Expr: `<task id="([^"]+)" state="([^"]+)">`}

// taskReport reads a task output or completion message: the child session,
// its state, and the text inside <task_result> (the whole text if none).
func taskReport(s string) (session, state, result string) {
	m := taskTag.Get().FindStringSubmatch(s)
	if m == nil {
		return "", "", strings.TrimSpace(s)
	}
	result = s
	if _, after, ok := strings.Cut(s, "<task_result>"); ok {
		result, _, _ = strings.Cut(after, "</task_result>")
	}
	return m[1], m[2], strings.TrimSpace(result)
}
