package permission

import (
	"path"
	"slices"
	"strings"

	"github.com/atomic-agent/atomic/internal/lazy"
)

// awkCode matches what in an awk program runs commands or writes files:
// system(), pipes to or from commands, > and >> redirections, @load.
var awkCode = lazy.Regexp{Expr: `system|\||>|@|ENVIRON\[`}

func awkCheck(c call) verdict {
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if !c.lits[i] {
			return exactHidden("awk runs a program known only when it runs")
		}
		switch {
		case w == "--":
			i++
			if i < len(c.words) {
				return awkProgram(c, i)
			}
			return verdict{}
		case w == "-F" || w == "-v":
			i++
		case strings.HasPrefix(w, "-F") || strings.HasPrefix(w, "-v"):
		case strings.HasPrefix(w, "-") && w != "-":
			return exactHidden("awk " + w + ": a program file or an extension runs code no rule sees")
		default:
			return awkProgram(c, i)
		}
	}
	return verdict{}
}

func awkProgram(c call, i int) verdict {
	if !c.lits[i] {
		return exactHidden("awk runs a program known only when it runs")
	}
	if awkCode.Get().MatchString(c.words[i]) {
		return exactHidden("awk's system(), | pipes and > redirections run commands and write files")
	}
	return verdict{}
}

// sedCheck: GNU sed's e command and s///e run commands, w and s///w write
// files, -i edits in place, -f reads a script no rule sees.
func sedCheck(c call) verdict {
	var scripts []string
	explicit := false
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if !c.lits[i] {
			return exactHidden("sed runs a script known only when it runs")
		}
		switch {
		case w == "--sandbox":
			return verdict{} // GNU sed refuses e, w and r
		case w == "--":
			if !explicit && i+1 < len(c.words) {
				scripts = append(scripts, c.words[i+1])
			}
			i = len(c.words)
		case strings.HasPrefix(w, "--expression="):
			scripts, explicit = append(scripts, strings.TrimPrefix(w, "--expression=")), true
		case w == "--expression":
			if i+1 < len(c.words) {
				scripts, explicit = append(scripts, c.words[i+1]), true
			}
			i++
		case strings.HasPrefix(w, "--in-place") || strings.HasPrefix(w, "--file"):
			return sedFlag(w)
		case strings.HasPrefix(w, "--"):
			switch strings.SplitN(w, "=", 2)[0] {
			case "--quiet", "--silent", "--regexp-extended", "--posix", "--separate", "--unbuffered",
				"--null-data", "--zero-terminated", "--debug", "--follow-symlinks", "--line-length":
			default:
				return exactHidden("sed " + w + ": an option the analysis does not know")
			}
		case strings.HasPrefix(w, "-") && len(w) > 1:
			for j := 1; j < len(w); j++ {
				switch w[j] {
				case 'n', 'E', 'r', 's', 'u', 'z':
				case 'e', 'l':
					val := w[j+1:]
					if val == "" && i+1 < len(c.words) {
						i++
						val = c.words[i]
					}
					if w[j] == 'e' {
						scripts, explicit = append(scripts, val), true
					}
					j = len(w)
				case 'i', 'f':
					return sedFlag("-" + string(w[j]))
				default:
					return exactHidden("sed " + w + ": an option the analysis does not know")
				}
			}
		default:
			if !explicit {
				scripts = append(scripts, w)
				explicit = true
			}
		}
	}
	for _, s := range scripts {
		if !sedScriptSafe(s) {
			return exactHidden("sed's e command and s///e run commands, and w writes files")
		}
	}
	return verdict{}
}

func sedFlag(w string) verdict {
	if strings.HasPrefix(w, "--in-place") || w == "-i" {
		return verdict{exact: true, why: "sed -i writes the files it edits"}
	}
	return exactHidden("sed -f runs a script file no rule sees")
}

// sedScriptSafe reads a sed script conservatively: addresses, and the
// commands that only print, delete, branch or substitute without the e
// and w flags. Anything else (e, w, W, unknown commands) is unsafe.
func sedScriptSafe(s string) bool {
	i := 0
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', ';', '{', '}', '!':
			i++
			continue
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		// Address: a number, $, /re/ or \cREc, then ,addr or ~step.
		for i < len(s) {
			switch {
			case s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == ',' || s[i] == '~' || s[i] == '+':
				i++
			case s[i] == '/' || s[i] == '\\' && i+1 < len(s):
				d := s[i]
				if d == '\\' {
					i++
					d = s[i]
				}
				j, ok := sedDelimited(s, i+1, d)
				if !ok {
					return false
				}
				i = j
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				goto command
			}
		}
	command:
		for i < len(s) && (s[i] == ' ' || s[i] == '!') {
			i++
		}
		if i >= len(s) {
			return true
		}
		switch cmd := s[i]; cmd {
		case '{', '}', ';', '\n':
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'l', 'q', 'Q', 'z', 'F':
			i++
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			continue
		case 'b', 't', 'T', ':', 'a', 'i', 'c', 'r', 'R':
			// A label, a text or a file to read: up to the end of the line
			// (a and i print text; r reads a file; none runs or writes).
			if cmd != 'a' && cmd != 'i' && cmd != 'c' {
				for i < len(s) && s[i] != '\n' && s[i] != ';' && s[i] != '}' {
					i++
				}
				continue
			}
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case 's', 'y':
			if i+1 >= len(s) || s[i+1] == '\\' || s[i+1] == '\n' {
				return false
			}
			d := s[i+1]
			j, ok := sedDelimited(s, i+2, d)
			if !ok {
				return false
			}
			j, ok = sedDelimited(s, j, d)
			if !ok {
				return false
			}
			i = j
			if cmd == 's' {
				for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
					i++
				}
			}
			if i < len(s) && strings.IndexByte(" \t\n;}", s[i]) < 0 {
				return false // e, w or anything unknown
			}
			continue
		default:
			return false
		}
		i++
	}
	return true
}

// sedDelimited returns the index after the next unescaped d from i.
func sedDelimited(s string, i int, d byte) (int, bool) {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case d:
			return i + 1, true
		case '\n':
			if d != '\n' {
				return 0, false
			}
		}
	}
	return 0, false
}

// findCheck: -exec, -execdir, -ok and -okdir run the command written
// after them (each an inner command to allow); -delete and -fprint write.
func findCheck(c call) verdict {
	var v verdict
	for i := 1; i < len(c.words); i++ {
		if !c.fixed[i] {
			return exactHidden("find gets a word known only when it runs (" + c.words[i] + "), which may be an expression such as -delete or -exec")
		}
		switch w := c.words[i]; {
		case w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir":
			end := i + 1
			for end < len(c.words) && c.words[end] != ";" && c.words[end] != "+" {
				end++
			}
			if end > i+1 {
				v.inner = append(v.inner, span{from: i + 1, to: end})
				for k := i + 1; k < end; k++ {
					if k == i+1 && strings.Contains(c.words[k], "{}") {
						return opaqueV("find -exec {} runs the files it finds as commands")
					}
				}
			}
			i = end
		case w == "-delete" || w == "-fprint" || w == "-fprint0" || w == "-fprintf" || w == "-fls":
			v.exact, v.why = true, "find "+w+" deletes or writes files"
		}
	}
	return v
}

// gitSubcommands are git's own subcommands an ordinary prefix rule may
// cover; any other word may be an alias (alias.x = !cmd runs a shell
// command), and the ones below it run programs they are given.
func gitSubcommands(k string) bool {
	switch k {
	case "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle",
		"cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout",
		"checkout-index", "cherry", "cherry-pick", "clean", "clone", "commit", "commit-graph",
		"commit-tree", "config", "count-objects", "describe", "diff", "diff-files", "diff-index",
		"diff-tree", "fetch", "for-each-ref", "format-patch", "fsck", "gc", "grep", "hash-object",
		"help", "init", "log", "ls-files", "ls-remote", "ls-tree", "maintenance", "merge", "merge-base",
		"merge-file", "merge-tree", "mktag", "mktree", "mv", "name-rev", "notes", "prune", "pull",
		"push", "range-diff", "read-tree", "rebase", "reflog", "remote", "repack", "replace", "reset",
		"restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-branch",
		"show-ref", "sparse-checkout", "stash", "status", "stripspace", "submodule", "switch",
		"symbolic-ref", "tag", "update-index", "update-ref", "var", "verify-commit", "verify-pack",
		"verify-tag", "version", "whatchanged", "worktree", "write-tree":
		return true
	}
	return false
}

// gitRunsPrograms are options that name a program git runs.
var gitRunsPrograms = []string{"--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--extcmd", "--tool",
	"--open-files-in-pager", "--template", "--config", "--textconv", "--run", "--filter"}

// gitStrategyOptions name a merge strategy, which git runs as the program
// git-merge-NAME from its exec path or PATH; only subcommands that merge
// take them (git status -s, git log -s mean short and no patch).
var gitStrategyOptions = []string{"--strategy", "-s", "-X", "--strategy-option"}

func gitCheck(c call) verdict {
	i := 1
	for ; i < len(c.words); i++ {
		w := c.words[i]
		if !c.lits[i] {
			return exactHidden("git runs a subcommand or option known only when it runs")
		}
		switch {
		case w == "--no-pager" || w == "-P" || w == "--no-optional-locks" || w == "--literal-pathspecs" ||
			w == "--no-replace-objects" || w == "--glob-pathspecs" || w == "--noglob-pathspecs" ||
			w == "--icase-pathspecs" || w == "--version" || w == "--help" || w == "-h" || w == "--paginate" || w == "-p":
			continue
		case strings.HasPrefix(w, "-"):
			return exactHidden("git " + w + " sets configuration, a repository or a path that decides which programs git runs (core.pager, alias.x, core.fsmonitor)")
		}
		break
	}
	if i >= len(c.words) {
		return verdict{}
	}
	sub := c.words[i]
	if !gitSubcommands(sub) {
		return exactHidden("git " + sub + " is not one of git's own subcommands the analysis knows: it may be an alias, which can run any command, or run programs it is given")
	}
	args := c.slice(i, len(c.words))
	if has(args, gitRunsPrograms...) {
		return exactHidden("git " + sub + " runs the program or configuration an option names (--upload-pack, --exec, --ext-diff …)")
	}
	switch sub {
	case "merge", "pull", "rebase", "cherry-pick", "revert", "stash":
		if has(args, gitStrategyOptions...) {
			return exactHidden("git " + sub + " -s and -X name a merge strategy, which git runs as a program found on PATH")
		}
	}
	switch sub {
	case "fetch", "pull", "clone", "ls-remote", "archive":
		if has(args, "-u", "-c") {
			return exactHidden("git " + sub + " -u and -c name a program git runs")
		}
	case "grep":
		if has(args, "-O") {
			return exactHidden("git grep -O runs the pager it is given on the files found")
		}
	case "rebase":
		if has(args, "-x", "-i", "--interactive") {
			return exactHidden("git rebase -x runs the command it is given")
		}
	case "submodule":
		if slices.Contains(args.words, "foreach") {
			return exactHidden("git submodule foreach runs the command it is given")
		}
	case "bisect":
		if slices.Contains(args.words, "run") {
			return exactHidden("git bisect run runs the command it is given")
		}
	case "checkout-index":
		// --prefix writes the tracked files, modes included, under any
		// path: an executable into .git/hooks (found by the adversarial
		// e2e family 1j).
		if has(args, "--prefix") {
			return verdict{exact: true, why: "git checkout-index --prefix writes files, executables included, under the path it is given (.git/hooks/)"}
		}
	case "config":
		if !gitConfigRead(args) {
			return exactHidden("git config sets configuration that decides which programs later git commands run")
		}
	}
	if has(args, "-o", "--output", "--output-directory") && (sub == "diff" || sub == "log" || sub == "show" ||
		sub == "format-patch" || sub == "archive" || sub == "whatchanged" || sub == "range-diff") {
		return verdict{exact: true, why: "git " + sub + " --output writes a file"}
	}
	return verdict{}
}

// gitConfigRead reports a git config call that only reads: --get, --list,
// or one key alone.
func gitConfigRead(c call) bool {
	var keys int
	for i, w := range c.words[1:] {
		if !c.lits[i+1] {
			return false
		}
		switch {
		case w == "--get" || w == "--get-all" || w == "--get-regexp" || w == "--list" || w == "-l" ||
			w == "get" || w == "list" || strings.HasPrefix(w, "--show-") || w == "--name-only" || w == "-z" || w == "--null" ||
			w == "--global" || w == "--local" || w == "--system" || w == "--worktree" || strings.HasPrefix(w, "--type") ||
			strings.HasPrefix(w, "--default"):
		case strings.HasPrefix(w, "-"):
			return false
		default:
			keys++
		}
	}
	return keys <= 1 || has(c, "--get", "--get-all", "--get-regexp", "get")
}

// envCheck: env [options] [NAME=value]… [command]: the command is inner,
// with the assignments as its prefix; -S splits a string into a command.
func envCheck(c call) verdict {
	var prefix []string
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if !c.fixed[i] {
			return exactHidden("env runs a command known only when it runs")
		}
		switch {
		case w == "-S" || strings.HasPrefix(w, "-S") || strings.HasPrefix(w, "--split-string") || strings.HasPrefix(w, "-") && strings.Contains(w[1:], "S") && !strings.HasPrefix(w, "--"):
			return exactHidden("env -S splits a string into the command it runs")
		case w == "-u" || w == "-C" || w == "--unset" || w == "--chdir":
			i++
		case w == "-i" || w == "-0" || w == "--ignore-environment" || w == "--null" || w == "-" || w == "-v" || w == "--debug" ||
			strings.HasPrefix(w, "--unset=") || strings.HasPrefix(w, "--chdir=") || strings.HasPrefix(w, "-u") || strings.HasPrefix(w, "-C") ||
			strings.HasPrefix(w, "--block-signal") || strings.HasPrefix(w, "--default-signal") || strings.HasPrefix(w, "--ignore-signal"):
		case w == "--":
		case strings.HasPrefix(w, "-"):
			return exactHidden("env " + w + ": an option the analysis does not know")
		case strings.Contains(w, "="):
			if name, _, _ := strings.Cut(w, "="); codeVar(name) {
				return exactHidden(name + " decides which programs run or runs code of its own")
			}
			prefix = append(prefix, w)
		default:
			return verdict{inner: []span{{from: i, to: len(c.words), prefix: prefix}}, transparent: len(prefix) == 0}
		}
	}
	return verdict{}
}

// xargsCheck: xargs runs its command with arguments read from standard
// input. With -I, a replacement inside the command's name or a shell
// script makes stdin the code.
func xargsCheck(c call) verdict {
	repl := ""
	i := 1
	for ; i < len(c.words); i++ {
		w := c.words[i]
		if !c.fixed[i] {
			return exactHidden("xargs runs a command known only when it runs")
		}
		switch {
		case w == "--":
			i++
		case w == "-I":
			if i+1 < len(c.words) {
				repl = c.words[i+1]
			}
			i++
			continue
		case strings.HasPrefix(w, "-I"):
			repl = w[2:]
			continue
		case w == "-i" || w == "--replace":
			repl = "{}"
			continue
		case strings.HasPrefix(w, "-i") || strings.HasPrefix(w, "--replace="):
			repl = w[strings.IndexAny(w, "i=")+1:]
			continue
		case w == "-a" || w == "-d" || w == "-E" || w == "-L" || w == "-n" || w == "-P" || w == "-s" ||
			w == "--arg-file" || w == "--delimiter" || w == "--max-args" || w == "--max-procs" || w == "--max-chars" ||
			w == "--max-lines" || w == "--process-slot-var" || w == "--eof":
			i++
			continue
		case strings.HasPrefix(w, "-") && len(w) > 1:
			continue // -0, -r, -t, -x, -p, -n1 …
		}
		break
	}
	if i >= len(c.words) {
		return verdict{} // xargs alone runs echo
	}
	if !c.fixed[i] {
		return exactHidden("xargs runs a command known only when it runs")
	}
	inner := c.words[i]
	name := path.Base(inner)
	if repl != "" && strings.Contains(inner, repl) {
		return opaqueV("xargs -I puts what it reads into the command's name")
	}
	if shells(name) || name == "eval" || wrappers(name) || interpreterNames(name) {
		if repl != "" || !shellHasScript(c.words[i:]) {
			return opaqueV("xargs hands what it reads from standard input to " + name + ", which runs it as code")
		}
	}
	if repl != "" {
		for _, w := range c.words[i+1:] {
			if strings.Contains(w, repl) && strings.ContainsAny(w, " ;|&$`") {
				return opaqueV("xargs -I puts what it reads into a command line")
			}
		}
	}
	return verdict{inner: []span{{from: i, to: len(c.words)}}, transparent: true}
}

// shellHasScript reports a shell given its script with -c, whose further
// arguments ($1 …) are data.
func shellHasScript(words []string) bool {
	return len(words) > 2 && shells(path.Base(words[0])) && words[1] == "-c"
}

// interpreterNames are the programs interpreterCheck reads.
func interpreterNames(k string) bool {
	switch k {
	case "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "perl", "ruby", "php",
		"lua", "luajit", "Rscript", "osascript", "pwsh", "powershell", "tclsh", "wish", "irb", "jshell",
		"deno", "bun":
		return true
	}
	return false
}

// interpreterCheck: -c, -e and their kind run the code given inline (an
// exact rule names that code; deny rules cannot see into it); with no
// script at all the interpreter reads its program from standard input.
func interpreterCheck(c call) verdict {
	name := path.Base(c.words[0])
	code := map[string][]string{
		"python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
		"node": {"-e", "--eval", "-p", "--print"}, "nodejs": {"-e", "--eval", "-p", "--print"},
		"perl": {"-e", "-E"}, "ruby": {"-e"}, "php": {"-r", "-R", "-B", "-E", "-F"}, "lua": {"-e"}, "luajit": {"-e"},
		"Rscript": {"-e"}, "osascript": {"-e"}, "pwsh": {"-c", "-Command", "-EncodedCommand", "-e"},
		"powershell": {"-c", "-Command", "-EncodedCommand", "-e"}, "irb": {}, "tclsh": {}, "wish": {}, "jshell": {},
	}[name]
	values := map[string]bool{"-m": true, "-W": true, "-X": true, "-r": true, "--require": true, "--import": true,
		"--loader": true, "-I": true, "-C": true}
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if !c.lits[i] {
			return exactHidden(name + " runs code known only when it runs")
		}
		for _, f := range code {
			if w == f || strings.HasPrefix(f, "--") && strings.HasPrefix(w, f+"=") ||
				len(f) == 2 && (name == "perl" || name == "ruby") && cluster(w, f[1]) ||
				len(f) == 2 && strings.HasPrefix(w, f) && len(w) > 2 && w[1] != '-' && name != "perl" && name != "ruby" {
				return exactHidden(name + " " + f + " runs the code given inline, where no deny rule sees what it runs")
			}
		}
		switch {
		case w == "--version" || w == "-V" || w == "--help" || w == "-h" || w == "-v" && name != "python" && name != "python3":
			return verdict{}
		case w == "-m" && strings.HasPrefix(name, "py"):
			return verdict{} // a module: like a script
		case values[w]:
			i++
		case w == "-" || stdinFile(w):
			return opaqueV(name + " reads its program from standard input")
		case !strings.HasPrefix(w, "-"):
			return verdict{} // a script file: the command itself is what runs
		}
	}
	return opaqueV(name + " with no script reads its program from standard input")
}

// jsRuntimeCheck: deno and bun run scripts; eval, -e and a bare call
// read code inline or from standard input.
func jsRuntimeCheck(c call) verdict {
	if len(c.words) < 2 {
		return opaqueV(c.words[0] + " with no script reads code from standard input")
	}
	if c.words[1] == "eval" || c.words[1] == "x" || c.words[1] == "repl" || has(c, "-e", "--eval", "-p", "--print") {
		return exactHidden(c.words[0] + " " + c.words[1] + " runs code given inline or a downloaded package")
	}
	return verdict{}
}

// tarCheck: options that name a program tar runs.
func tarCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if !c.lits[i+1] {
			continue
		}
		if strings.HasPrefix(w, "--to-command") || strings.HasPrefix(w, "--checkpoint-action") ||
			strings.HasPrefix(w, "--use-compress-program") || strings.HasPrefix(w, "--info-script") ||
			strings.HasPrefix(w, "--new-volume-script") || strings.HasPrefix(w, "--rsh-command") ||
			strings.HasPrefix(w, "--rmt-command") || cluster(w, 'I') || cluster(w, 'F') ||
			i == 0 && !strings.HasPrefix(w, "-") && strings.ContainsAny(w, "IF") {
			return exactHidden("tar runs the program an option names (--to-command, --checkpoint-action, -I)")
		}
	}
	return verdict{}
}
