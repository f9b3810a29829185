// Package openaitest lets a test binary be atomic-openai, so that tests of
// packages that run Atomic's OpenAI provider (which runs atomic-openai)
// need no built program: TestMain calls Serve first, then Install.
package openaitest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/atomic-agent/atomic/internal/provider/hosted"
	"github.com/atomic-agent/atomic/internal/provider/openai/chat"
)

// Arg, as a test binary's first argument, makes it atomic-openai.
const Arg = "-serve-as-atomic-openai"

// Serve, when this test binary was started as atomic-openai, serves the
// provider and exits; otherwise it returns at once.
func Serve() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(hosted.Main(chat.Open))
	}
}

// Install puts an atomic-openai that runs this test binary as the helper
// in a new folder at the head of PATH, where the provider finds it, and
// returns the function that removes it.
func Install() (remove func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "atomic-openai-")
	if err != nil {
		return nil, err
	}
	script := fmt.Sprintf("#!/bin/sh\nexec %q %s \"$@\"\n", self, Arg)
	if err := os.WriteFile(filepath.Join(dir, "atomic-openai"), []byte(script), 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	old := os.Getenv("PATH")
	os.Setenv("PATH", dir+string(os.PathListSeparator)+old)
	return func() {
		os.Setenv("PATH", old)
		os.RemoveAll(dir)
	}, nil
}
