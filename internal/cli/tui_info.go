package cli

import (
	"fmt"
	"sync"

	"github.com/atomic-agent/atomic/internal/sandbox"
	"github.com/atomic-agent/atomic/internal/store"
	"github.com/atomic-agent/atomic/internal/ui"
)

// storeState is what /status says of the session store: where it saves,
// or the error that stopped it.
type storeState struct {
	mu  sync.Mutex
	err error
}

func (st *storeState) fail(err error) {
	st.mu.Lock()
	if st.err == nil {
		st.err = err
	}
	st.mu.Unlock()
}

// failed reports whether the store could not be used.
func (st *storeState) failed() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err != nil
}

func (st *storeState) String(c *common, ios IOStreams) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case c.noPersistence:
		return "not saved (--no-session-persistence)"
	case st.err != nil:
		return "not saved: " + st.err.Error()
	}
	path, err := store.Path(ios.Getenv)
	if err != nil {
		return "not saved: " + err.Error()
	}
	return "saved to " + path
}

// sessionInfo is what the chat's /status, /export and /diff read.
func sessionInfo(c *common, s *setup, ios IOStreams, id string, st *storeState) func() ui.SessionInfo {
	return func() ui.SessionInfo {
		info := ui.SessionInfo{
			SessionID: id, Folder: s.workspace.Root, Backend: c.backendName(s),
			Sandbox: string(s.sandbox.Mode()), Store: st.String(c, ios),
		}
		if s.ps.Provider != "" {
			info.Provider = fmt.Sprintf("%s (%s)", s.ps.Provider, s.ps.Source)
		}
		if s.gate != nil {
			info.Permission = string(s.gate.Mode())
		}
		if s.sandbox.Mode() == sandbox.Off {
			info.Sandbox = "off: commands run unconfined"
		}
		return info
	}
}
