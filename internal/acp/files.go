package acp

import (
	"context"
	"fmt"
	"os"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/tools"
)

// Files is the file access the read, write and edit tools use instead of
// the disk: the client's, which sees the editor's unsaved buffers.
type Files = tools.Files

// edits gives the translator an edit's file text before and after it, for
// the diff. The translator calls it under the event bus's lock, so it must
// not wait on the client.
type edits interface {
	// started is told an edit of path begins (its tool.start).
	started(callID, path string)
	// finished returns the text before (hadOld false for a new file) and
	// after the edit; ok is false when it is not known.
	finished(callID, path string) (old string, hadOld bool, now string, ok bool)
}

// maxDiffFile bounds the files read from disk for an edit's diff.
const maxDiffFile = 1 << 20

// localRead reads a file from disk for an edit's diff.
func localRead(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDiffFile {
		return "", false
	}
	b, err := os.ReadFile(path)
	return string(b), err == nil
}

// diskEdits reads the edited file from disk before and after the edit.
type diskEdits struct {
	mu     sync.Mutex
	before map[string]*string // by call id; nil: no file yet
}

func newDiskEdits() *diskEdits { return &diskEdits{before: map[string]*string{}} }

func (d *diskEdits) started(callID, path string) {
	var old *string
	if text, ok := localRead(path); ok {
		old = &text
	}
	d.mu.Lock()
	d.before[callID] = old
	d.mu.Unlock()
}

func (d *diskEdits) finished(callID, path string) (string, bool, string, bool) {
	d.mu.Lock()
	old, seen := d.before[callID]
	delete(d.before, callID)
	d.mu.Unlock()
	now, ok := localRead(path)
	if !seen || !ok {
		return "", false, "", false
	}
	if old == nil {
		return "", false, now, true
	}
	return *old, true, now, true
}

// clientFiles reads and writes through the client's fs/read_text_file and
// fs/write_text_file, the ones it offers. It remembers what the tools
// read and wrote, so an edit's diff needs no further request.
type clientFiles struct {
	conn        *sdk.AgentSideConnection
	large       *largeStrings // a file too long for the SDK comes back through it
	read, write bool
	session     sdk.SessionId

	mu sync.Mutex
	// editing counts the edits under way by path: only their files'
	// reads and writes are kept, until each edit's diff is taken.
	editing  map[string]int
	lastRead map[string]string // by path: the text an edit read
	written  map[string]edit   // by path: an edit's write
}

// edit is one write: the text before (when known) and after.
type edit struct {
	old *string
	now string
}

func newClientFiles(conn *sdk.AgentSideConnection, large *largeStrings, read, write bool) *clientFiles {
	return &clientFiles{conn: conn, large: large, read: read, write: write,
		editing: map[string]int{}, lastRead: map[string]string{}, written: map[string]edit{}}
}

func (f *clientFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	if !f.read {
		return "", tools.ErrNoFiles
	}
	resp, err := f.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: f.session, Path: path})
	if err != nil {
		return "", err
	}
	if err := expand(f.large, &resp); err != nil {
		return "", fmt.Errorf("reading %s through the client: %w", path, err)
	}
	f.mu.Lock()
	if f.editing[path] > 0 {
		f.lastRead[path] = resp.Content
	}
	f.mu.Unlock()
	return resp.Content, nil
}

func (f *clientFiles) WriteTextFile(ctx context.Context, path, content string) error {
	if !f.write {
		return tools.ErrNoFiles
	}
	if _, err := f.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: f.session, Path: path, Content: content}); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.editing[path] == 0 {
		return nil
	}
	e := edit{now: content}
	if old, ok := f.lastRead[path]; ok {
		e.old = &old
	}
	f.lastRead[path] = content
	f.written[path] = e
	return nil
}

// started reads the disk's text for a client that does not serve reads
// (the tool then reads the disk too).
func (f *clientFiles) started(callID, path string) {
	text, onDisk := "", false
	if !f.read {
		text, onDisk = localRead(path)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.editing[path]++
	if onDisk {
		f.lastRead[path] = text
	}
}

func (f *clientFiles) finished(callID, path string) (string, bool, string, bool) {
	f.mu.Lock()
	e, ok := f.written[path]
	read, wasRead := f.lastRead[path]
	delete(f.written, path)
	if f.editing[path]--; f.editing[path] <= 0 {
		delete(f.editing, path)
		delete(f.lastRead, path)
	}
	f.mu.Unlock()
	if !ok {
		if !f.write { // written to disk
			now, ok := localRead(path)
			return read, wasRead, now, ok
		}
		return "", false, "", false
	}
	if e.old == nil {
		return "", false, e.now, true
	}
	return *e.old, true, e.now, true
}
