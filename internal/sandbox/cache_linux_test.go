package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Build tools keep caches under the home, which the sandbox does not let
// commands write: go test would fail on ~/.cache/go-build. Sandboxed
// commands get Atomic's own build cache instead (kept across sessions),
// unless the user named one.
func TestSandboxedCommandsGetAWritableBuildCacheOfTheirOwn(t *testing.T) {
	for _, v := range []string{"GOCACHE", "XDG_CACHE_HOME", "npm_config_cache"} {
		t.Setenv(v, "") // restored after the test
		os.Unsetenv(v)
	}
	f := newFixture(t)
	cache := filepath.Join(t.TempDir(), "atomic-cache")
	for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
		s, err := New(Config{Mode: mode, Writable: []string{f.ws}, Secrets: DefaultSecrets(f.home), CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		out, ok := f.run(t, s, `for v in GOCACHE XDG_CACHE_HOME npm_config_cache; do d=$(printenv $v) || { echo "$v unset"; exit 1; }; mkdir -p "$d/probe" && echo x > "$d/probe/f" || exit 1; echo "$v=$d"; done`)
		s.Close()
		if !ok {
			t.Fatalf("%s: a sandboxed command cannot write its build caches:\n%s", mode, out)
		}
		if !strings.Contains(out, "GOCACHE="+filepath.Join(cache, "go-build")) {
			t.Errorf("%s: GOCACHE is not under Atomic's cache dir:\n%s", mode, out)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "go-build", "probe", "f")); err != nil {
		t.Errorf("the cache is not kept after the session: %v", err)
	}

	s, err := New(Config{Mode: WorkspaceWrite, Writable: []string{f.ws}, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mine := filepath.Join(f.ws, "my-go-cache")
	t.Setenv("GOCACHE", mine)
	if out, _ := f.run(t, s, `echo "GOCACHE=$GOCACHE"`); !strings.Contains(out, "GOCACHE="+mine) {
		t.Errorf("a GOCACHE the user set is replaced:\n%s", out)
	}
}
