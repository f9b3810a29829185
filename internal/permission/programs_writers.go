package permission

import (
	"path"
	"strings"
)

// Programs that read like filters but write the files their options or a
// second operand name: a prefix rule of the program (bash(curl:*)) does
// not cover those forms. Short options are found inside a cluster too
// (curl -fsSLo out, sort -uo out), where has() sees only a cluster's first
// letter.

// writesThrough returns the check of a program that writes the file its
// short options (letters) or long options (longs, with or without =value)
// name. An argument known only when it runs may be such an option.
func writesThrough(why, letters string, longs ...string) func(call) verdict {
	return func(c call) verdict {
		for i, w := range c.words[1:] {
			if !c.lits[i+1] || !c.fixed[i+1] {
				return verdict{exact: true, why: why + " (and an argument is known only when it runs)"}
			}
			if w == "--" {
				break
			}
			if strings.HasPrefix(w, "--") {
				for _, l := range longs {
					if w == l || strings.HasPrefix(w, l+"=") {
						return verdict{exact: true, why: why}
					}
				}
				continue
			}
			if len(w) > 1 && w[0] == '-' && strings.ContainsAny(w[1:], letters) {
				return verdict{exact: true, why: why}
			}
		}
		return verdict{}
	}
}

// writesSecondOperand returns the check of a program whose second file
// operand is its output (uniq in out, xxd in out); valueOpts are its
// one-letter options that take a separate value.
func writesSecondOperand(valueOpts string) func(call) verdict {
	return func(c call) verdict {
		why := path.Base(c.words[0]) + " writes its second file operand"
		operands, opts := 0, true
		for i := 1; i < len(c.words); i++ {
			w := c.words[i]
			if !c.lits[i] || !c.fixed[i] {
				return verdict{exact: true, why: why + " (and an argument is known only when it runs)"}
			}
			switch {
			case opts && w == "--":
				opts = false
			case opts && len(w) == 2 && w[0] == '-' && strings.IndexByte(valueOpts, w[1]) >= 0:
				i++
			case opts && len(w) > 1 && w[0] == '-':
			default:
				operands++
			}
		}
		if operands >= 2 {
			return verdict{exact: true, why: why}
		}
		return verdict{}
	}
}

// curlCheck: curl writes with -o, -O, -D, -c, --trace… and reads more
// options from a file (-K). (Built per call, not at init: a package-level
// call runs in every process.)
func curlCheck(c call) verdict {
	return writesThrough("curl -o, -O, -D, -c, -K and --trace write files (or read options that do)", "oODcKJ",
		"--output", "--remote-name", "--remote-name-all", "--dump-header", "--cookie-jar", "--config", "--trace",
		"--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc", "--libcurl", "--output-dir", "--remote-header-name")(c)
}

// wgetCheck: wget saves what it downloads, and its log, to files.
func wgetCheck(call) verdict {
	return verdict{exact: true, why: "wget saves what it downloads to a file"}
}

var outputOption = func(name string) func(call) verdict {
	return writesThrough(name+" -o writes a file", "o", "--output")
}
