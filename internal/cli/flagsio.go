package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// flagAlias is the flag an alias stands for: Claude Code's and Codex's
// spellings of Atomic's flags. Help lists an alias on its flag's line.
func flagAlias(name string) string {
	switch name {
	case "allowedTools":
		return "allowed-tools"
	case "disallowedTools":
		return "disallowed-tools"
	case "prompt":
		return "p"
	case "c":
		return "continue"
	case "r":
		return "resume"
	}
	return ""
}

// dashes is how a flag is written: -p, --model. The flag package takes
// either; help and errors show the usual spelling.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// parseFlags parses args into fs, flags and arguments in any order (as
// Claude Code and Codex take them; "--" ends the flags). -h and --help
// print synopsis and the flags to stdout; a bad flag is named on stderr in
// one line. ok is false when the command is to exit now with code.
func parseFlags(fs *flag.FlagSet, args []string, ios IOStreams, synopsis string) (code int, ok bool) {
	fs.SetOutput(io.Discard) // errors are reported here, in one line
	fs.Usage = func() {}
	var positional []string
	for rest := args; ; {
		err := fs.Parse(rest)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprintf(ios.Out, "%s\nFlags:\n", strings.TrimRight(synopsis, "\n")+"\n")
			printFlags(ios.Out, fs)
			return 0, false
		case err != nil:
			fmt.Fprintf(ios.Err, "%s: %s (run '%s --help' for the flags)\n", fs.Name(), flagError(err), fs.Name())
			return 2, false
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if used := len(rest) - len(left); used > 0 && rest[used-1] == "--" {
			positional = append(positional, left...)
			break
		}
		positional, rest = append(positional, left[0]), left[1:]
	}
	_ = fs.Parse(append([]string{"--"}, positional...)) // fs.Args() are the arguments
	return 0, true
}

// flagError is the flag package's error with the flag written as the
// user would (--max-turns, not -max-turns).
func flagError(err error) string {
	msg := err.Error()
	for _, marker := range []string{"not defined: -", "for flag -", "for -", "an argument: -"} {
		i := strings.Index(msg, marker)
		if i < 0 {
			continue
		}
		j := i + len(marker)
		end := strings.IndexByte(msg[j:], ':')
		if end < 0 {
			end = len(msg) - j
		}
		if name := strings.TrimPrefix(msg[j:j+end], "-"); len(name) > 1 {
			return msg[:j-1] + "--" + name + msg[j+end:]
		}
		return msg
	}
	return msg
}

// printFlags lists fs's flags as --name VALUE with their usage, an
// alias on its flag's line (-c, --continue).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	aliases := map[string][]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if to := flagAlias(f.Name); to != "" && fs.Lookup(to) != nil {
			aliases[to] = append(aliases[to], f.Name)
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if to := flagAlias(f.Name); to != "" && fs.Lookup(to) != nil {
			return
		}
		names := []string{f.Name}
		names = append(names, aliases[f.Name]...)
		slices.SortStableFunc(names, func(a, b string) int { // -c before --continue
			return min(len(a), 2) - min(len(b), 2)
		})
		for i, n := range names {
			names[i] = dashes(n)
		}
		typ, usage := flag.UnquoteUsage(f)
		line := "  " + strings.Join(names, ", ")
		if typ != "" {
			line += " " + typ
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}
