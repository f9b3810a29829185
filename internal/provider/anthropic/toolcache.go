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
	marked              sdk.ToolUnionParam // with a cache breakpoint
}

// maxCachedTools bounds the cache; tools past it are translated per
// request as before.
const maxCachedTools = 512

// param returns t's request parameter, translated and encoded once per
// distinct definition; marked, with a cache breakpoint (the last tool's).
func (c *toolCache) param(t provider.ToolSpec, marked bool) (sdk.ToolUnionParam, error) {
	c.mu.RLock()
	e, ok := c.m[t.Name]
	c.mu.RUnlock()
	if ok && e.description == t.Description && e.schema == string(t.InputSchema) {
		if marked {
			return e.marked, nil
		}
		return e.param, nil
	}
	tp, err := toolParam(t)
	if err != nil {
		return tp, err
	}
	plain, ok := encodedTool(tp)
	if !ok {
		if marked {
			tp.OfTool.CacheControl = ephemeral
		}
		return tp, nil // the SDK will say what is wrong when it encodes it
	}
	tp.OfTool.CacheControl = ephemeral
	mark, _ := encodedTool(tp)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]cachedTool{}
	}
	if _, there := c.m[t.Name]; there || len(c.m) < maxCachedTools {
		c.m[t.Name] = cachedTool{t.Description, string(t.InputSchema), plain, mark}
	}
	c.mu.Unlock()
	if marked {
		return mark, nil
	}
	return plain, nil
}

// encodedTool is tp carrying its own JSON; ok is false when it cannot be
// encoded.
func encodedTool(tp sdk.ToolUnionParam) (sdk.ToolUnionParam, bool) {
	raw, err := json.Marshal(tp)
	if err != nil {
		return tp, false
	}
	// Encoded from raw; the fields stay for whoever reads the parameter.
	ov := param.Override[sdk.ToolParam](json.RawMessage(raw))
	ov.Name, ov.Description, ov.InputSchema, ov.CacheControl = tp.OfTool.Name, tp.OfTool.Description, tp.OfTool.InputSchema, tp.OfTool.CacheControl
	return sdk.ToolUnionParam{OfTool: &ov}, true
}
