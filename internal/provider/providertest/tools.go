package providertest

import (
	"encoding/json"

	"github.com/atomic-agent/atomic/internal/provider"
)

// AwkwardTools are tool definitions with what could encode differently:
// HTML characters, non-ASCII, keywords beside properties and required,
// keys out of order, no description, no schema. A provider's tool cache
// must send them byte for byte as an uncached request would.
func AwkwardTools() []provider.ToolSpec {
	return []provider.ToolSpec{
		{Name: "bash", Description: "Run a command <in a shell> & wait; 日本語 \"quoted\"", InputSchema: json.RawMessage(
			`{"type":"object","properties":{"timeout":{"type":"integer","minimum":1},"command":{"type":"string","description":"a <b> & c"}},"required":["command"],"additionalProperties":false,"$defs":{"x":{"type":"string"}}}`)},
		{Name: "empty", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "none", Description: "no schema"},
		{Name: "nested", Description: "nested", InputSchema: json.RawMessage(
			`{"properties":{"items":{"type":"array","items":{"type":"object","properties":{"z":{"type":"string"},"a":{"enum":["<",">","&"]}}}}},"type":"object"}`)},
	}
}
