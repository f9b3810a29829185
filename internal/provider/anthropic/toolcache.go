package anthropic

import (
	"encoding/json"
	"sync"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/atomic-agent/atomic/internal/provider"
)

// toolCache keeps each tool definition as the JSON the SDK makes of it, so
// a request carries it as is: every request of every agent sends the same
// tools, and translating and encoding them per request (schema parsed into
// maps, maps sorted and encoded by reflection) was a quarter of what a
// sub-agent allocated. The bytes sent are the ones the SDK would make.
type toolCache struct {
	mu sync.RWMutex
	m  map[string]cachedTool // by tool name
}

type cachedTool struct {
	description, schema string
	param               sdk.ToolUnionParam
}

// maxCachedTools bounds the cache; tools past it are translated per
// request as before.
const maxCachedTools = 512

// param returns t's request parameter, translated and encoded once per
// distinct definition.
func (c *toolCache) param(t provider.ToolSpec) (sdk.ToolUnionParam, error) {
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
	ov := param.Override[sdk.ToolParam](json.RawMessage(raw))
	ov.Name, ov.Description, ov.InputSchema = tp.OfTool.Name, tp.OfTool.Description, tp.OfTool.InputSchema
	cached := sdk.ToolUnionParam{OfTool: &ov}
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
