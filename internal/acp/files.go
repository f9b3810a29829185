package acp

import (
	"context"
	"errors"
	"os"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-agent/atomic/internal/tools"
)

// Files is the file access the read, write and edit tools use instead of
// the disk: the client's, which sees the editor's unsaved buffers.
type Files = tools.Files

// clientFiles reads and writes through the client's fs/read_text_file and
// fs/write_text_file, the ones it offers.
type clientFiles struct {
	conn        *sdk.AgentSideConnection
	read, write bool
	session     sdk.SessionId
}

// errNotOffered sends the tool to the disk for what the client lacks.
var errNotOffered = tools.ErrNoFiles

func (f *clientFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	if !f.read {
		return "", errNotOffered
	}
	resp, err := f.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: f.session, Path: path})
	if err != nil {
		return "", err
	}
	return resp.Content, nil
}

func (f *clientFiles) WriteTextFile(ctx context.Context, path, content string) error {
	if !f.write {
		return errNotOffered
	}
	_, err := f.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: f.session, Path: path, Content: content})
	return err
}

// readAll is the translator's reader of an edited file (for its diff).
func (f *clientFiles) readAll(ctx context.Context, path string) (string, bool) {
	s, err := f.ReadTextFile(ctx, path)
	if errors.Is(err, errNotOffered) {
		return localRead(path)
	}
	return s, err == nil
}

// maxDiffFile bounds the files read for an edit's diff.
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
