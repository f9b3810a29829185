package tools

import (
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// resolvedSchemas keeps every schema resolved by Validate for a tool
// without its own SchemaCache, keyed by the schema's text: a tool value
// made per agent (the task tool, MCP tools) must not parse and resolve its
// schema again on every call — with 1,000 sub-agents that was an eighth of
// the run's CPU. A resolved schema is read-only, so sharing it is safe.
// Its map is made on the first insert: a package-level map literal is
// built at init in every process.
var resolvedSchemas schemaCache

// maxCachedSchemas bounds the cache: past it, schemas are resolved per
// call as before (a run has a few dozen distinct tool schemas).
const maxCachedSchemas = 1024

type resolvedSchema struct {
	rs  *jsonschema.Resolved
	err error
}

type schemaCache struct {
	mu sync.RWMutex
	m  map[string]resolvedSchema
}

// resolve returns raw resolved, from the cache when it has been seen.
func (c *schemaCache) resolve(raw json.RawMessage) (*jsonschema.Resolved, error) {
	c.mu.RLock()
	r, ok := c.m[string(raw)]
	c.mu.RUnlock()
	if ok {
		return r.rs, r.err
	}
	rs, err := resolveSchema(raw)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]resolvedSchema{}
	}
	if len(c.m) < maxCachedSchemas {
		c.m[string(raw)] = resolvedSchema{rs, err}
	}
	c.mu.Unlock()
	return rs, err
}
