package mcp

import (
	"strconv"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atomic-agent/atomic/internal/event"
)

// progressSeq numbers progress tokens; it is only an id source.
var progressSeq atomic.Uint64

// progressRoutes sends a server's notifications/progress to the call
// whose progressToken they carry.
type progressRoutes struct {
	mu    sync.Mutex
	calls map[string]func(event.ToolProgressData)
}

// open registers report under a new token, returned with the function
// that removes it.
func (p *progressRoutes) open(report func(event.ToolProgressData)) (token string, closeFn func()) {
	token = "atomic-" + strconv.FormatUint(progressSeq.Add(1), 10)
	p.mu.Lock()
	if p.calls == nil {
		p.calls = map[string]func(event.ToolProgressData){}
	}
	p.calls[token] = report
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.calls, token)
		p.mu.Unlock()
	}
}

// notify is the client's ProgressNotificationHandler; a token no call
// holds (a late or a stray notification) is dropped.
func (p *progressRoutes) notify(params *sdk.ProgressNotificationParams) {
	if params == nil {
		return
	}
	var token string
	switch v := params.ProgressToken.(type) {
	case string:
		token = v
	default:
		return // ours are strings; a number is not one of ours
	}
	p.mu.Lock()
	report := p.calls[token]
	p.mu.Unlock()
	if report != nil {
		report(event.ToolProgressData{Progress: params.Progress, Total: params.Total, Message: params.Message})
	}
}
