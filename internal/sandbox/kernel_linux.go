package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock access rights (best effort down to the kernel's ABI). Device
// ioctls (ABI 5) are not handled: they were never confined before and
// gate neither reads nor writes of files.
const (
	accessRead  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE
	accessFile  = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	accessABI1  = 1<<13 - 1 // EXECUTE … MAKE_SYM
	accessABI2  = accessABI1 | unix.LANDLOCK_ACCESS_FS_REFER
	accessABI3  = accessABI2 | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	minFullABI  = 3
	scopeABI    = 6
	deviceWrite = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// devices commands may read and write whatever the mode.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// kernel holds a session's Landlock ruleset, seccomp filter, the
// capabilities commands lose and their mount namespace; each command's
// thread is restricted with them.
type kernel struct {
	mu      sync.RWMutex
	ruleset int // -1 once closed
	filter  []unix.SockFilter
	drop    capSet // the capabilities commands lose
	// bounding: Atomic may change the bounding set (CAP_SETPCAP).
	bounding bool
	// mountNS is the session's mount namespace, read-only but for the
	// writable folders (-1: none, or closed).
	mountNS int
	// handled are the file access rights the ruleset handles.
	handled uint64

	// spawners are the confined threads that start commands, by their
	// narrowing (spawner); done ends them, closed with the kernel.
	smu      sync.Mutex
	spawners map[string]chan spawnReq
	done     chan struct{}
}

// writeRights are the access rights that change the file system: a
// narrowing layer handles only these, so reads stay as the session's
// ruleset allows them.
const writeRights = accessABI3 &^ (unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR)

// narrowLayer restricts the calling thread (already confined by the
// session's ruleset) a second time: Landlock layers stack, and an access
// must pass every layer, so the command may write only under writable.
// Made per command: a few rules, no descriptor to keep per agent.
func (k *kernel) narrowLayer(writable []string) error {
	handled := k.handled & writeRights
	attr := rulesetAttr{handledFS: handled}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("sandbox: creating the narrowing ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, w := range writable {
		if err := addRule(int(fd), w, handled, handled); err != nil {
			return fmt.Errorf("sandbox: narrowing to %s: %w", w, err)
		}
	}
	for _, d := range devices {
		_ = addRule(int(fd), d, deviceWrite, handled)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("sandbox: narrowing the command's thread: %w", errno)
	}
	return nil
}

// shielded reports whether the shields are up (the mount namespace holds
// them).
func (k *kernel) shielded() bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.mountNS >= 0
}

// landlockABI returns the kernel's Landlock ABI version, or an error.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
}

func supported() error {
	abi, err := landlockABI()
	switch {
	case errors.Is(err, unix.ENOSYS):
		return &UnsupportedError{Reason: "this kernel has no Landlock"}
	case errors.Is(err, unix.EOPNOTSUPP):
		return &UnsupportedError{Reason: "Landlock is disabled in this kernel (boot with lsm=…,landlock)"}
	case err != nil:
		return &UnsupportedError{Reason: fmt.Sprintf("Landlock: %v", err)}
	case abi < 1:
		return &UnsupportedError{Reason: fmt.Sprintf("Landlock ABI %d is too old", abi)}
	}
	if seccompFilter(nil, false) == nil {
		return &UnsupportedError{Reason: "no syscall filter for " + runtime.GOARCH}
	}
	return nil
}

// newKernel builds the ruleset of rules once for the session. folders are
// the workspace and the --add-dir folders, whose owner decides whether
// commands keep CAP_DAC_OVERRIDE (see dropCaps); shields are raised in the
// mount namespace, where this process may make one.
func newKernel(rules []rule, network bool, folders []string, shields []shield) (*kernel, error) {
	abi, err := landlockABI()
	if err != nil {
		return nil, &UnsupportedError{Reason: fmt.Sprintf("Landlock: %v", err)}
	}
	handled := uint64(accessABI1)
	switch {
	case abi >= minFullABI:
		handled = accessABI3
	case abi == 2:
		handled = accessABI2
	}
	attr := rulesetAttr{handledFS: handled}
	if abi >= scopeABI {
		// Commands cannot signal processes outside their sandbox (Atomic)
		// nor connect to abstract Unix sockets bound outside it (a
		// session bus, a desktop, another program's control socket).
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return nil, fmt.Errorf("creating the Landlock ruleset: %w", errno)
	}
	k := &kernel{ruleset: int(fd), mountNS: -1, handled: handled, filter: seccompFilter(nil, network), drop: dropCaps(needsDAC(folders)), bounding: hasCap(unix.CAP_SETPCAP)}
	add := func(path string, access uint64, must bool) error {
		err := addRule(k.ruleset, path, access, handled)
		if err != nil && must {
			return err
		}
		return nil
	}
	// Listing folders is allowed everywhere; reading files is not.
	if err := add("/", unix.LANDLOCK_ACCESS_FS_READ_DIR, true); err != nil {
		k.close()
		return nil, err
	}
	for _, r := range rules {
		access := uint64(accessRead)
		if r.write {
			access = handled
		}
		// A writable folder that is missing is a configuration error;
		// an entry of / that vanished since is not.
		if err := add(r.path, access, r.write); err != nil {
			k.close()
			return nil, fmt.Errorf("the sandbox cannot let commands write under %s: %w", r.path, errors.Unwrap(err))
		}
	}
	for _, d := range devices {
		_ = add(d, deviceWrite, false)
	}
	var writable []string
	for _, r := range rules {
		if r.write {
			writable = append(writable, r.path)
		}
	}
	k.mountNS = readOnlyNamespace(writable, shields)
	return k, nil
}

// addRule allows access below path; a file gets the rights that apply to
// files.
func addRule(ruleset int, path string, access, handled uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox rule for %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox rule for %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= accessFile
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access & handled, Parent_fd: int32(fd)}
	if attr.Allowed_access == 0 {
		return nil
	}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("sandbox rule for %s: %w", path, errno)
	}
	return nil
}

// rulesetAttr is struct landlock_ruleset_attr up to the ABI this package
// uses (v6: scoped). Our own copy: x/sys's grows with newer ABIs and has
// renamed its fields; the kernel takes any size it knows a prefix of.
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

func (k *kernel) close() {
	k.smu.Lock()
	if k.done == nil {
		k.done = make(chan struct{})
	}
	select {
	case <-k.done:
	default:
		close(k.done)
	}
	k.smu.Unlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ruleset >= 0 {
		unix.Close(k.ruleset)
		k.ruleset = -1
	}
	if k.mountNS >= 0 {
		unix.Close(k.mountNS)
		k.mountNS = -1
	}
}

// start starts cmd from a thread confined first: Linux keeps Landlock
// domains, seccomp filters and no_new_privs per thread and a fork inherits
// them from the thread that forks. The thread is confined once and starts
// every later command of the same narrowing (spawner): confining one per
// command made the kernel copy the whole ruleset into a new domain each
// time (a tenth of Atomic's CPU for a hundred background shells).
func (k *kernel) start(cmd *exec.Cmd, narrow []string) error {
	if cmd.Dir == "" { // joining the mount namespace moves the thread to /
		dir, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("sandbox: the command's working directory: %w", err)
		}
		cmd.Dir = dir
	}
	reqs, err := k.spawner(narrow)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	select {
	case reqs <- spawnReq{cmd: cmd, errc: errc}:
		return <-errc
	case <-k.done:
		return errClosed
	}
}

// spawnReq asks a spawner to start cmd and send Start's error on errc.
type spawnReq struct {
	cmd  *exec.Cmd
	errc chan error
}

// spawner is the channel of the confined thread that starts the commands
// narrowed to narrow (none: the session's rules alone), started now if
// none runs.
func (k *kernel) spawner(narrow []string) (chan<- spawnReq, error) {
	key := strings.Join(narrow, "\x00")
	k.smu.Lock()
	defer k.smu.Unlock()
	if k.spawners == nil {
		k.spawners, k.done = map[string]chan spawnReq{}, make(chan struct{})
	}
	select {
	case <-k.done:
		return nil, errClosed
	default:
	}
	if reqs, ok := k.spawners[key]; ok {
		return reqs, nil
	}
	reqs, ready := make(chan spawnReq), make(chan error, 1)
	go k.spawn(reqs, narrow, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	k.spawners[key] = reqs
	return reqs, nil
}

// spawn confines the thread it runs on and starts each command asked on
// reqs until the kernel closes. The goroutine ends while still locked to
// the thread, so the Go runtime ends the thread instead of reusing it for
// other goroutines; threads the runtime needs meanwhile are made by its
// template thread, not cloned from this one.
func (k *kernel) spawn(reqs <-chan spawnReq, narrow []string, ready chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
	err := k.confine()
	if err == nil && len(narrow) > 0 {
		err = k.narrowLayer(narrow)
	}
	ready <- err
	if err != nil {
		return
	}
	for {
		select {
		case r := <-reqs:
			select {
			case <-k.done:
				r.errc <- errClosed
				return
			default:
			}
			r.errc <- r.cmd.Start()
		case <-k.done:
			return
		}
	}
}

// confine restricts the calling thread.
func (k *kernel) confine() error {
	k.mu.RLock()
	defer k.mu.RUnlock()
	if k.ruleset < 0 {
		return errClosed
	}
	if k.mountNS >= 0 {
		if err := joinNamespace(k.mountNS); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: setting no_new_privs: %w", err)
	}
	if err := dropThreadCaps(k.drop, k.bounding); err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(k.filter)), Filter: &k.filter[0]}
	// No SECCOMP_FILTER_FLAG_TSYNC: this thread only.
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("sandbox: installing the syscall filter: %w", errno)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(k.ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("sandbox: restricting the command's thread: %w", errno)
	}
	return nil
}
