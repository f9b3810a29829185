package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func skipUnlessRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("only root has the capabilities that change other users' file metadata; run as root to test that commands lose them")
	}
}

// fileMeta is what chmod, chown and touch -d change.
type fileMeta struct {
	mode     os.FileMode
	uid, gid uint32
	mtime    time.Time
}

func metaOf(t *testing.T, p string) fileMeta {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return fileMeta{fi.Mode(), st.Uid, st.Gid, fi.ModTime()}
}

// Landlock confines opening and creating files, not their metadata: a
// command run as root must not chmod, chown or touch -d a file outside
// the workspace (nor make device nodes), while its own files in the
// workspace stay its to change, and Atomic itself keeps root's rights.
func TestAsRootASandboxedCommandCannotChangeMetadataOutsideTheWorkspace(t *testing.T) {
	skipUnlessRoot(t)
	f := newFixture(t)
	target := filepath.Join(f.outside, "file.txt")
	if err := os.Chtimes(target, time.Time{}, time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	before := metaOf(t, target)
	for _, network := range []bool{false, true} {
		s := f.sandbox(t, WorkspaceWrite, network)
		if s.prepared(t).kernel.mountNS < 0 {
			t.Skip("no mount namespace (root without CAP_SYS_ADMIN): a root command still owns root's files outside; TestAsRootWithoutMountNamespacesCommandsCannotChangeOtherUsersFiles covers what holds")
		}
		for _, script := range []string{
			`chmod 777 "$OUT/file.txt"`,
			`chown 65534 "$OUT/file.txt"`,
			`chgrp 65534 "$OUT/file.txt"`,
			`touch -d 2000-01-01 "$OUT/file.txt"`,
			`mknod "$TMPDIR/mem" c 1 1`,
			`cp /bin/true "$WS/t" && chown 65534 "$WS/t"`,
		} {
			if out, ok := f.run(t, s, script); ok {
				t.Errorf("network=%v: %s succeeded as root in the sandbox: %s", network, script, out)
			}
		}
		if out, ok := f.run(t, s, `echo x > "$WS/own" && chmod 700 "$WS/own" && touch -d 2000-01-01 "$WS/own" && test "$(stat -c %a "$WS/own")" = 700`); !ok {
			t.Errorf("network=%v: a command cannot change the metadata of its own file in the workspace: %s", network, out)
		}
	}
	if after := metaOf(t, target); after != before {
		t.Errorf("the file outside changed: %+v, was %+v", after, before)
	}
	if err := os.Chown(target, 65534, 65534); err != nil {
		t.Errorf("Atomic itself lost CAP_CHOWN: %v", err)
	}
}

// As root in a workspace another user owns (a container on a bind-mounted
// checkout), commands keep CAP_DAC_OVERRIDE so they can still write
// there; the metadata of another user's file outside stays out of reach,
// mount namespace or not.
func TestAsRootCommandsStillWriteAWorkspaceAnotherUserOwns(t *testing.T) {
	skipUnlessRoot(t)
	f := newFixture(t)
	theirs := filepath.Join(f.ws, "theirs.txt")
	if err := os.WriteFile(theirs, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f.ws, theirs} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(f.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(f.outside, "file.txt"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	before := metaOf(t, filepath.Join(f.outside, "file.txt"))
	s := f.sandbox(t, WorkspaceWrite, false)
	if out, ok := f.run(t, s, `echo b >> "$WS/theirs.txt" && mkdir "$WS/d" && echo c > "$WS/d/new"`); !ok {
		t.Fatalf("a root command cannot write the workspace another user owns: %s", out)
	}
	for _, script := range []string{`chmod 777 "$OUT/file.txt"`, `chown 0 "$OUT/file.txt"`, `touch -d 2000-01-01 "$OUT/file.txt"`} {
		if out, ok := f.run(t, s, script); ok {
			t.Errorf("%s succeeded: %s", script, out)
		}
	}
	if after := metaOf(t, filepath.Join(f.outside, "file.txt")); after != before {
		t.Errorf("the file outside changed: %+v, was %+v", after, before)
	}
}

// Where commands cannot get a read-only mount namespace (root in a
// container without CAP_SYS_ADMIN), the capabilities they lose still keep
// them from changing the metadata of files other users own.
func TestAsRootWithoutMountNamespacesCommandsCannotChangeOtherUsersFiles(t *testing.T) {
	skipUnlessRoot(t)
	f := newFixture(t)
	target := filepath.Join(f.outside, "file.txt")
	if err := os.Chown(target, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	before := metaOf(t, target)
	s := f.sandbox(t, WorkspaceWrite, false)
	k := s.prepared(t).kernel
	unix.Close(k.mountNS)
	k.mountNS = -1
	for _, script := range []string{`chmod 777 "$OUT/file.txt"`, `chown 0 "$OUT/file.txt"`, `touch -d 2000-01-01 "$OUT/file.txt"`} {
		if out, ok := f.run(t, s, script); ok {
			t.Errorf("%s succeeded: %s", script, out)
		}
	}
	if after := metaOf(t, target); after != before {
		t.Errorf("the file outside changed: %+v, was %+v", after, before)
	}
	if out, ok := f.run(t, s, `echo x > "$WS/own" && chmod 700 "$WS/own"`); !ok {
		t.Errorf("a command cannot chmod its own file: %s", out)
	}
}

// A read-only mount namespace leaves what builds need working: git in the
// workspace, the temp dir, /dev/null; the rest of / is read-only.
func TestCommandsInAReadOnlyMountNamespaceStillRunGit(t *testing.T) {
	skipUnlessRoot(t)
	f := newFixture(t)
	s := f.sandbox(t, WorkspaceWrite, false)
	if s.prepared(t).kernel.mountNS < 0 {
		t.Skip("no mount namespaces here")
	}
	script := `cd "$WS" && git init -q . && echo a > a && git add a && git -c user.name=a -c user.email=a@b commit -qm a && echo t > "$TMPDIR/t" && echo n > /dev/null && grep -q ' / .*ro,' /proc/self/mountinfo`
	if out, ok := f.run(t, s, script); !ok {
		t.Fatalf("%s", out)
	}
}
