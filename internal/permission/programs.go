package permission

import (
	"path"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// verdict is what the programs table says about one call.
type verdict struct {
	// exact: a prefix rule does not cover this form (it runs other
	// programs or writes files through its arguments); an exact rule or
	// all of bash does.
	exact bool
	// hidden: it runs commands deny rules cannot see.
	hidden bool
	// opaque: it runs code from standard input, a variable or a
	// descriptor; only all of bash covers it, and not with a deny rule.
	opaque bool
	why    string
	// inner are the commands it runs that are written out in its words
	// (timeout 5 go test, find -exec grep …): each is analysed as a
	// command of its own, which must be allowed too.
	inner []span
	// transparent: it only runs inner (timeout, nice, xargs): inner
	// stands for it, and it needs no allowance of its own.
	transparent bool
}

// span is one command inside another's words, with the assignments it
// gets (env X=1 cmd).
type span struct {
	from, to int
	prefix   []string
}

func exactHidden(why string) verdict { return verdict{exact: true, hidden: true, why: why} }
func opaqueV(why string) verdict     { return verdict{opaque: true, why: why} }

// program is one entry of the programs table: a command that runs other
// programs or writes files through its arguments, and how to read a call
// of it. programs_test.go has a test for each entry.
type program struct {
	names []string
	check func(c call) verdict
}

// programTable is the one list of such programs. Claude Code and Codex
// keep similar lists (Codex's is_safe_command, Claude Code's read-only
// command checks); this one decides what a prefix rule covers.
func programTable() []program {
	return []program{
		{[]string{"awk", "gawk", "mawk", "nawk"}, awkCheck},
		{[]string{"sed", "gsed"}, sedCheck},
		{[]string{"find"}, findCheck},
		{[]string{"git"}, gitCheck},
		{[]string{"env"}, envCheck},
		{[]string{"xargs"}, xargsCheck},
		{[]string{"timeout"}, wrapperCheck("ks", 1)},
		{[]string{"nice"}, wrapperCheck("n", 0)},
		{[]string{"nohup"}, wrapperCheck("", 0)},
		{[]string{"stdbuf"}, wrapperCheck("ioe", 0)},
		{[]string{"ionice"}, wrapperCheck("cn", 0)},
		{[]string{"setsid"}, wrapperCheck("", 0)},
		{[]string{"time"}, timeCheck},
		{[]string{"command", "builtin", "exec"}, builtinWrapperCheck},
		{[]string{"busybox"}, wrapperCheck("", 0)},
		{[]string{"sudo", "doas", "runuser", "pkexec", "chroot", "nsenter", "unshare", "firejail", "flock",
			"systemd-run", "strace", "ltrace", "taskset", "chrt", "fakeroot", "caffeinate", "unbuffer",
			"catchsegv", "proot", "bwrap"}, privilegedCheck},
		{[]string{"watch", "parallel", "run-parts", "socat", "gdb", "expect", "tmux", "screen"}, alwaysHidden},
		{[]string{"script"}, scriptCheck},
		{[]string{"at", "batch"}, atCheck},
		{[]string{"crontab"}, crontabCheck},
		{[]string{"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "perl", "ruby", "php", "lua",
			"luajit", "Rscript", "osascript", "pwsh", "powershell", "tclsh", "wish", "irb", "jshell"}, interpreterCheck},
		{[]string{"deno", "bun"}, jsRuntimeCheck},
		{[]string{"tar", "bsdtar", "gtar"}, tarCheck},
		{[]string{"zip"}, flagCheck(exactHidden("zip -TT runs the command it is given to test the archive"), "-TT", "--unzip-command")},
		{[]string{"rsync"}, rsyncCheck},
		{[]string{"ssh", "scp", "sftp"}, sshCheck},
		{[]string{"less", "more", "most"}, pagerCheck},
		{[]string{"man"}, flagCheck(exactHidden("man runs the pager, browser or preprocessor it is given"), "-P", "--pager", "-H", "--html", "-p", "--preprocessor")},
		{[]string{"vi", "vim", "nvim", "view", "vimdiff", "gvim", "emacs", "nano", "code"}, alwaysHiddenWhy("an editor writes files and runs shell commands from its own command line")},
		{[]string{"ed", "ex", "red"}, alwaysOpaque("ed reads its commands, shell escapes included, from standard input")},
		{[]string{"make", "gmake"}, makeCheck},
		{[]string{"npx", "bunx", "pnpx"}, alwaysHiddenWhy("it downloads and runs a package")},
		{[]string{"npm", "pnpm", "yarn"}, npmCheck},
		{[]string{"go"}, goCheck},
		{[]string{"docker", "podman", "nerdctl"}, dockerCheck},
		{[]string{"nc", "ncat", "netcat"}, flagCheck(exactHidden("nc -e runs a program on the connection"), "-e", "-c", "--exec", "--sh-exec", "--lua-exec")},
		{[]string{"sort"}, sortCheck},
		{[]string{"curl"}, curlCheck},
		{[]string{"wget"}, wgetCheck},
		{[]string{"uniq"}, writesSecondOperand("fsw")},
		{[]string{"xxd"}, writesSecondOperand("cglosn")},
		{[]string{"shuf"}, outputOption("shuf")},
		{[]string{"iconv"}, outputOption("iconv")},
		{[]string{"sdiff"}, outputOption("sdiff")},
		{[]string{"rg"}, flagCheck(exactHidden("rg --pre, --hostname-bin and --search-zip run programs"), "--pre", "--hostname-bin", "-z", "--search-zip")},
		{[]string{"fd", "fdfind"}, flagCheck(exactHidden("fd --exec runs a program on every file"), "-x", "--exec", "-X", "--exec-batch")},
		{[]string{"sqlite3"}, sqliteCheck},
		{[]string{"test", "["}, testCheck},
		{[]string{"trap"}, trapCheck},
		{[]string{"alias"}, aliasCheck},
		{[]string{"shopt"}, shoptCheck},
		{[]string{"enable"}, flagCheck(opaqueV("enable -f loads a builtin from a shared library"), "-f")},
		{[]string{"complete", "compgen"}, flagCheck(opaqueV("compgen -C and -F run a command or function"), "-C", "-F")},
		{[]string{"mapfile", "readarray"}, mapfileCheck},
		{[]string{"read"}, readCheck},
		{[]string{"printf"}, printfCheck},
		{[]string{"unset", "getopts", "wait"}, namesCheck},
		{[]string{"declare", "typeset", "local", "export", "readonly"}, declWordsCheck},
		{[]string{"hash"}, flagCheck(opaqueV("hash -p makes a name run another program"), "-p")},
		{[]string{"fc", "bind"}, alwaysOpaque("it runs commands from the history or a key binding")},
		{[]string{"let"}, alwaysOpaque(arithWhy)},
	}
}

// programIndex is programTable by name, built on the first command
// checked (a run that checks none does not pay for it) and only read.
var programIndex = lazy.Value[map[string]func(call) verdict]{New: func() map[string]func(call) verdict {
	m := map[string]func(call) verdict{}
	for _, p := range programTable() {
		for _, n := range p.names {
			m[n] = p.check
		}
	}
	return m
}}

// ownArgs are the table's programs whose checks read arguments known only
// at run time themselves (test "$x", printf '%s' *, timeout 5 ls *).
func ownArgs(k string) bool {
	switch k {
	case "test", "[", "printf", "read", "mapfile", "readarray", "unset", "getopts", "wait", "trap",
		"alias", "shopt", "hash", "enable", "complete", "compgen", "declare", "typeset", "local",
		"export", "readonly", "let", "fc", "bind", "timeout", "nice", "nohup", "stdbuf", "ionice",
		"setsid", "time", "command", "builtin", "exec", "busybox", "env", "xargs", "find":
		return true
	}
	return false
}

// classify looks a call up in the programs table. An argument of such a
// program that bash expands only when it runs (a variable, a
// substitution, a glob matching a file named --to-command=…) may be any
// of its options: the call is then exact and hidden, up to a literal --.
func classify(c call) verdict {
	name := path.Base(c.words[0])
	check, ok := programIndex.Get()[name]
	if !ok {
		return verdict{}
	}
	if !ownArgs(name) {
		for i := 1; i < len(c.words); i++ {
			if c.lits[i] && c.words[i] == "--" {
				break
			}
			if !c.fixed[i] {
				return exactHidden(name + " gets an argument known only when it runs (" + c.words[i] + "), which may be one of its options that run programs or write files")
			}
		}
	}
	return check(c)
}

// has reports whether a word of c (after the name) is one of flags, or
// starts with a long flag followed by =, or is a short cluster holding a
// one-letter flag (-xe for -e).
func has(c call, flags ...string) bool {
	for i, w := range c.words[1:] {
		if !c.lits[i+1] {
			continue
		}
		for _, f := range flags {
			switch {
			case w == f:
				return true
			case len(f) > 2 && strings.HasPrefix(w, f+"="):
				return true
			case len(f) == 2 && f[0] == '-' && len(w) > 2 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], f[1]) == 0:
				return true // -Ffile, -e'code': the flag with its value attached
			}
		}
	}
	return false
}

// cluster reports whether a short-option cluster (-ne) holds letter.
func cluster(w string, letter byte) bool {
	return len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], letter) >= 0
}

// nonLiteral reports whether any argument is known only when it runs.
func nonLiteral(c call) bool { return slices.Contains(c.lits[1:], false) }

func flagCheck(v verdict, flags ...string) func(call) verdict {
	return func(c call) verdict {
		if has(c, flags...) {
			return v
		}
		if nonLiteral(c) && len(flags) > 0 {
			for _, w := range c.words[1:] {
				if strings.HasPrefix(w, "$") || strings.HasPrefix(w, "\"$") {
					v.why += " (and an argument is known only when it runs)"
					return v
				}
			}
		}
		return verdict{}
	}
}

func alwaysHidden(c call) verdict {
	return exactHidden(path.Base(c.words[0]) + " runs the commands it is given, joined or read at run time, where no rule can see them")
}
func alwaysHiddenWhy(why string) func(call) verdict {
	return func(call) verdict { return exactHidden(why) }
}
func alwaysOpaque(why string) func(call) verdict { return func(call) verdict { return opaqueV(why) } }

// wrapperCheck reads a wrapper that runs the rest of its words (timeout 5
// go test): valueOpts are its one-letter options taking a value, and
// positional the words before the command (timeout's duration). An
// option it does not know may take a value it would mistake for the
// command: then the call is hidden and exact.
func wrapperCheck(valueOpts string, positional int) func(call) verdict {
	return func(c call) verdict {
		i := 1
		for ; i < len(c.words); i++ {
			w := c.words[i]
			if !c.fixed[i] {
				return exactHidden(c.words[0] + " runs a command known only when it runs")
			}
			if w == "--" {
				i++
				break
			}
			if !strings.HasPrefix(w, "-") || w == "-" {
				break
			}
			switch {
			case len(w) == 2 && strings.IndexByte(valueOpts, w[1]) >= 0:
				i++ // its value
			case len(w) > 2 && w[1] != '-' && strings.IndexByte(valueOpts, w[1]) >= 0:
				// value attached: -n5, -oL
			case w == "--preserve-status" || w == "--foreground" || w == "-v" || w == "--verbose" || w == "-f" || w == "-w" ||
				strings.HasPrefix(w, "--signal=") || strings.HasPrefix(w, "--kill-after=") || strings.HasPrefix(w, "--adjustment=") ||
				len(w) > 1 && isDigits(w[1:]) && c.words[0] == "nice":
			default:
				return exactHidden(c.words[0] + " " + w + ": an option the analysis does not know may hide the command it runs")
			}
		}
		for j := i; j < min(i+positional+1, len(c.words)); j++ {
			if !c.fixed[j] {
				return exactHidden(c.words[0] + " runs a command known only when it runs")
			}
		}
		i += positional
		if i >= len(c.words) {
			return verdict{}
		}
		return verdict{inner: []span{{from: i, to: len(c.words)}}, transparent: true}
	}
}

// timeCheck: /usr/bin/time -o file writes the file.
func timeCheck(c call) verdict {
	if has(c, "-o", "--output") {
		return verdict{exact: true, why: "time -o writes a file"}
	}
	return wrapperCheck("f", 0)(c)
}

// builtinWrapperCheck: command, builtin and exec run the rest as a command
// (command -v only names one).
func builtinWrapperCheck(c call) verdict {
	if len(c.words) > 1 && (c.words[1] == "-v" || c.words[1] == "-V") {
		return verdict{}
	}
	return wrapperCheck("a", 0)(c)
}

// privilegedCheck: sudo and its kind run a command with other rights or in
// another root: a prefix rule never covers them, and what they run must be
// allowed too.
func privilegedCheck(c call) verdict {
	v := verdict{exact: true, why: c.words[0] + " runs a command with other rights or in another context"}
	starts := wrappedStarts(path.Base(c.words[0]), c.words)
	if len(starts) > 0 {
		v.inner = []span{{from: starts[0], to: len(c.words)}}
		if slices.Contains(c.fixed[:starts[0]+1], false) {
			v.hidden = true
		}
	}
	return v
}

func scriptCheck(c call) verdict {
	if has(c, "-c", "--command") {
		return exactHidden("script -c runs the command line it is given")
	}
	return opaqueV("script runs a shell reading its commands from standard input")
}

func atCheck(c call) verdict {
	if has(c, "-l", "-r", "-d") {
		return verdict{}
	}
	return opaqueV("at schedules the commands it reads from standard input or a file")
}

func crontabCheck(c call) verdict {
	if len(c.words) == 2 && c.words[1] == "-l" {
		return verdict{}
	}
	return exactHidden("crontab installs commands that run later")
}

func sortCheck(c call) verdict {
	if has(c, "--compress-program") {
		return exactHidden("sort --compress-program runs the program it is given")
	}
	return writesThrough("sort -o writes a file", "o", "--output")(c)
}

func rsyncCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if c.lits[i+1] && (w == "-e" || strings.HasPrefix(w, "--rsh") || strings.HasPrefix(w, "--rsync-path") || cluster(w, 'e')) {
			return exactHidden("rsync -e and --rsync-path run the program they are given")
		}
	}
	return verdict{}
}

// sshCommandOpts are ssh options naming local commands.
var sshCommandOpts = lazy.Regexp{Expr: `(?i)(proxycommand|localcommand|permitlocalcommand|knownhostscommand|match|include|proxyjump)`}

func sshCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if !c.lits[i+1] {
			continue
		}
		if w == "-F" || strings.HasPrefix(w, "-F") || w == "-S" && c.words[0] == "scp" || sshCommandOpts.Get().MatchString(w) {
			return exactHidden(c.words[0] + " runs the local command its options or configuration name (ProxyCommand, LocalCommand)")
		}
	}
	return verdict{}
}

func pagerCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if c.lits[i+1] && (strings.HasPrefix(w, "+") || w == "-k" || strings.HasPrefix(w, "--lesskey")) {
			return exactHidden(c.words[0] + " runs the commands given with +, shell escapes (!) included")
		}
	}
	return verdict{}
}

func makeCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if !c.lits[i+1] {
			continue
		}
		switch {
		case (w == "-f" || w == "--file" || w == "--makefile") && i+2 < len(c.words) && stdinFile(c.words[i+2]),
			strings.HasPrefix(w, "-f") && stdinFile(w[2:]):
			return opaqueV("make reads its makefile, recipes included, from standard input")
		case w == "-E" || strings.HasPrefix(w, "--eval") || strings.HasPrefix(w, "SHELL=") || strings.HasPrefix(w, ".SHELLFLAGS="):
			return exactHidden("make --eval and SHELL= change the recipes make runs")
		case w == "-f" || strings.HasPrefix(w, "-f") || strings.HasPrefix(w, "--file") || strings.HasPrefix(w, "--makefile") ||
			w == "-C" || strings.HasPrefix(w, "--directory"):
			return verdict{exact: true, why: "make -f and -C run the recipes of another makefile"}
		}
	}
	return verdict{}
}

func npmCheck(c call) verdict {
	if has(c, "-c", "--call", "--script-shell") {
		return exactHidden(c.words[0] + " runs the command line it is given")
	}
	if len(c.words) > 1 {
		switch c.words[1] {
		case "exec", "x", "dlx":
			return exactHidden(c.words[0] + " " + c.words[1] + " downloads and runs a package")
		case "config", "set":
			return exactHidden(c.words[0] + " config changes what later runs run (script-shell, node-options)")
		}
	}
	return verdict{}
}

func goCheck(c call) verdict {
	if len(c.words) > 1 {
		switch c.words[1] {
		case "generate":
			return exactHidden("go generate runs the commands written in the sources' //go:generate lines")
		case "tool":
			return exactHidden("go tool runs a tool the module names")
		case "env":
			if has(c, "-w") {
				return exactHidden("go env -w sets GOFLAGS and other settings later go commands obey")
			}
		}
	}
	if has(c, "-exec", "-toolexec", "-vettool", "--exec", "--toolexec", "--vettool") {
		return exactHidden("go -exec and -toolexec run the program they are given")
	}
	return verdict{}
}

func dockerCheck(c call) verdict {
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if strings.HasPrefix(w, "-") {
			continue
		}
		switch w {
		case "ps", "images", "logs", "inspect", "version", "info", "stats", "top", "history", "port", "diff", "search", "events":
			return verdict{}
		}
		break
	}
	return exactHidden(c.words[0] + " runs containers, whose commands no rule sees")
}

func sqliteCheck(c call) verdict {
	var args []string
	for i, w := range c.words[1:] {
		if !c.lits[i+1] {
			return exactHidden("sqlite3 runs SQL and dot-commands known only when it runs")
		}
		if w == "-cmd" || w == "-init" || strings.Contains(w, ".sh") || strings.Contains(w, ".system") || strings.Contains(w, ".output") ||
			strings.Contains(w, ".once") || strings.Contains(w, ".load") || strings.Contains(w, ".read") {
			return exactHidden("sqlite3's dot-commands run programs and write files")
		}
		if !strings.HasPrefix(w, "-") {
			args = append(args, w)
		}
	}
	if len(args) < 2 {
		return opaqueV("sqlite3 reads its SQL and dot-commands (.shell) from standard input")
	}
	return verdict{}
}
