package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

func TestScratch(t *testing.T) {
	ws := grepWorkspace(t)
	c := Core(ws)
	for _, x := range []struct{ tool, in string }{
		{"read", `{"file_path":"main.go","limit":2}`},
		{"read", `{"file_path":"main.go","limit":"x"}`},
		{"read", `{"file_path":"main.go","bogus":1,"other":2}`},
		{"read", `[]`},
		{"grep", `{"pattern":"x","head_limit":0}`},
		{"grep", `{"pattern":"Start","output_mode":"content"}`},
		{"ls", `{"path":"server"}`},
		{"glob", `{"pattern":"**/*.go"}`},
		{"bash", `{"command":"ls; exit 2"}`},
		{"edit", `{"file_path":"main.go","old_string":"Start()","new_string":"Begin()\n\tmore()"}`},
		{"write", `{"file_path":"new.txt","content":"abc"}`},
	} {
		tool, _ := c.Get(x.tool)
		res := Execute(context.Background(), tool, Call{Input: json.RawMessage(x.in)})
		fmt.Printf("=== %s %s (error=%v)\n%s\n", x.tool, x.in, res.IsError, res.Content)
	}
}
