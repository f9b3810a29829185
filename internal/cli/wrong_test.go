package cli

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// What a newcomer hit (issue 26): each bad command line says what is
// wrong in its own terms.
func TestBadCommandLinesSayWhatIsWrong(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--mcp-config", "/nonexistent.json"}, "--mcp-config /nonexistent.json: no such file"},
		{[]string{"--provider", "gemini"}, `unknown provider "gemini": want anthropic, openai or demo`},
		{[]string{"--provider", "anthropic"}, "--demo uses the built-in demo model: drop --provider anthropic"},
		{[]string{"--backend", "nope"}, `unknown backend "nope" (want native, claude-code, codex, opencode or copilot)`},
		{[]string{"--add-dir", "/nonexistent"}, "--add-dir /nonexistent: no such folder"},
		{[]string{"--add-dir", file}, "--add-dir " + file + ": not a folder"},
	}
	for _, tc := range cases {
		args := append([]string{"run", "--demo", "-p", "hi"}, tc.args...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := run(t, args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, stdout %q; want 2 and %q", code, errOut, out, tc.want)
			}
		})
	}
}

func TestSubcommandHelpExitsZeroWithItsUsage(t *testing.T) {
	for args, want := range map[string]string{
		"backends --help": "Usage: atomic backends [--json]",
		"loopback --help": "Usage: atomic loopback --scenario FILE",
		"loopback -h":     "--scenario",
		"stats --help":    "--since",
		"sessions --help": "--json",
	} {
		code, out, errOut := run(t, strings.Fields(args)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0 and %q on stdout", args, code, out, errOut, want)
		}
	}
}

func TestAMissingWorkingFolderStopsTheRunsThatWorkInIt(t *testing.T) {
	gone := &os.PathError{Op: "getwd", Path: ".", Err: os.ErrNotExist}
	for _, args := range [][]string{{"run", "--demo", "-p", "hi"}, {"-p", "hi", "--demo"}, {"--demo"}, {"acp"}} {
		var out, errOut strings.Builder
		code := Run(t.Context(), args, IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut, DirErr: gone,
			Getenv: func(string) string { return "" }})
		if code != 1 || !strings.Contains(errOut.String(), "the current folder is gone") {
			t.Errorf("%q: exit %d, stderr %q; want 1 and the folder named gone", args, code, errOut.String())
		}
	}
	var out strings.Builder
	if code := Run(t.Context(), []string{"version"}, IOStreams{Out: &out, DirErr: gone}); code != 0 {
		t.Errorf("atomic version without a folder: exit %d, want 0", code)
	}
}

func TestVersionNamesTheModuleAndTheCommitTheBinaryWasBuiltFrom(t *testing.T) {
	info := func(version string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: version}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "058c072517c06fdfcbbb7f5189b65d916a928fbd"}
	when := debug.BuildSetting{Key: "vcs.time", Value: "2026-11-27T23:40:31Z"}
	dirty := debug.BuildSetting{Key: "vcs.modified", Value: "true"}
	for _, tc := range []struct {
		set  string
		read func() (*debug.BuildInfo, bool)
		want string
	}{
		{"dev", info("v0.3.0", rev, when), "v0.3.0 (commit 058c072517c0, 2026-11-27T23:40:31Z, go1.26.8)"},
		{"dev", info("(devel)", rev, dirty), "dev (commit 058c072517c0, modified, go1.26.8)"},
		{"dev", info("(devel)"), "dev (go1.26.8, no commit recorded)"},
		{"v1.2.3", info("(devel)", rev), "v1.2.3"},
		{"dev", func() (*debug.BuildInfo, bool) { return nil, false }, "dev"},
	} {
		if got := buildVersion(tc.set, tc.read); got != tc.want {
			t.Errorf("buildVersion = %q; want %q", got, tc.want)
		}
	}
	// The test binary itself carries build info: the real reader works.
	if got := buildVersion("dev", debug.ReadBuildInfo); !strings.Contains(got, "go1.") {
		t.Errorf("buildVersion of this binary = %q; want its Go version at least", got)
	}
}
