package chat

import (
	"encoding/json"
	"sync"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/atomic-agent/atomic/internal/provider"
)

// toolCache keeps each tool definition as the JSON the SDK makes of it, so
// a request carries it as is: every request of every agent sends the same
// tools, and parsing each schema into maps and encoding them by reflection
// per request was the largest part of encoding a sub-agent's request. The
// bytes sent are the ones the SDK makes of the definition.
type toolCache struct {
	mu sync.RWMutex
	m  map[string]cachedTool // by tool name
}

type cachedTool struct {
	description, schema string
	param               sdk.ChatCompletionToolUnionParam
}

// maxCachedTools bounds the cache; tools past it are translated per
// request.
const maxCachedTools = 512

// param returns t's request parameter, translated and encoded once per
// distinct definition (a changed description or schema is encoded again).
func (c *toolCache) param(t provider.ToolSpec) (sdk.ChatCompletionToolUnionParam, error) {
	c.mu.RLock()
	e, ok := c.m[t.Name]
	c.mu.RUnlock()
	if ok && e.description == t.Description && e.schema == string(t.InputSchema) {
		return e.param, nil
	}
	tp, err := toolParam(t)
	if err != nil {
		return tp, err
	}
	raw, err := json.Marshal(tp)
	if err != nil {
		return tp, nil // the SDK will say what is wrong when it encodes it
	}
	// Encoded from raw; the fields stay for whoever reads the parameter.
	ov := param.Override[sdk.ChatCompletionFunctionToolParam](json.RawMessage(raw))
	ov.Function = tp.OfFunction.Function
	cached := sdk.ChatCompletionToolUnionParam{OfFunction: &ov}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]cachedTool{}
	}
	if _, there := c.m[t.Name]; there || len(c.m) < maxCachedTools {
		c.m[t.Name] = cachedTool{t.Description, string(t.InputSchema), cached}
	}
	c.mu.Unlock()
	return cached, nil
}
