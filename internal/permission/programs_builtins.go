package permission

import "strings"

// Builtins that evaluate text: they take a variable name whose subscript
// bash evaluates as arithmetic (printf -v 'a[$(cmd)]', read, unset,
// test -v), or code to run later (trap, alias, mapfile -C).

// wholeWord reports whether a word keeps its place: literal, or a whole
// double-quoted word, which field splitting cannot turn into several.
func wholeWord(c call, i int) bool {
	w := c.words[i]
	return c.fixed[i] || len(w) > 1 && strings.HasPrefix(w, `"`) && strings.HasSuffix(w, `"`)
}

// testCheck: test and [ with literal operators run nothing and need no
// approval. -v and -R evaluate the subscript of the name they get; an
// operator known only at run time may be one of them.
func testCheck(c call) verdict {
	const why = "test -v evaluates the subscript of the name it is given, and an operator known only at run time may be -v"
	args := c.slice(1, len(c.words))
	if c.words[0] == "[" {
		n := len(args.words)
		if n == 0 || args.words[n-1] != "]" || !args.fixed[n-1] {
			return opaqueV("[ without its closing ]")
		}
		args = args.slice(0, n-1)
	}
	n := len(args.words)
	for i, a := range args.words {
		if !wholeWord(args, i) {
			return opaqueV(why)
		}
		if args.fixed[i] && (a == "-v" || a == "-R") &&
			(i+1 >= n || !args.fixed[i+1] || !identifier.Get().MatchString(args.words[i+1])) {
			return opaqueV(why)
		}
	}
	switch {
	case n == 2 && !args.fixed[0], n == 3 && !args.fixed[1] && !(args.fixed[0] && args.words[0] == "!"),
		n == 3 && args.fixed[0] && args.words[0] == "!" && !args.fixed[1]:
		return opaqueV(why)
	case n >= 4:
		for i := range args.words {
			if !args.fixed[i] && (i == 0 || i == n-1 || !args.fixed[i-1] || !args.fixed[i+1]) {
				return opaqueV(why)
			}
		}
	}
	return verdict{transparent: true}
}

// trapCheck: a trap's action is code bash runs later, on a signal or
// at exit.
func trapCheck(c call) verdict {
	if len(c.words) < 3 || c.words[1] == "-p" || c.words[1] == "-l" || c.fixed[1] && (c.words[1] == "-" || c.words[1] == "") {
		return verdict{}
	}
	if !c.fixed[1] {
		return opaqueV("trap runs a command line known only when it runs")
	}
	return exactHidden("trap runs its action later, where deny rules do not look")
}

func aliasCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if !c.fixed[i+1] || strings.Contains(w, "=") {
			return opaqueV("an alias makes a name run other commands")
		}
	}
	return verdict{}
}

func shoptCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if !c.fixed[i+1] || w == "expand_aliases" || w == "extdebug" {
			return opaqueV("shopt expand_aliases lets aliases run other commands than the ones written")
		}
	}
	return verdict{}
}

// namedArgs checks the words of a builtin that takes variable names:
// valueOpts take a value, nameOpts take a variable name; every other
// non-option word is a name too when names is set. A name must be a
// literal identifier.
func namedArgs(c call, valueOpts, nameOpts string, names bool) verdict {
	why := c.words[0] + " evaluates the subscript of a variable name, which may run commands"
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if !c.fixed[i] {
			return opaqueV(why)
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 && w != "--" {
			for j := 1; j < len(w); j++ {
				switch {
				case strings.IndexByte(nameOpts, w[j]) >= 0:
					name := w[j+1:]
					if name == "" && i+1 < len(c.words) {
						i++
						if !c.fixed[i] {
							return opaqueV(why)
						}
						name = c.words[i]
					}
					if !identifier.Get().MatchString(name) {
						return opaqueV(why)
					}
					j = len(w)
				case strings.IndexByte(valueOpts, w[j]) >= 0:
					if j == len(w)-1 {
						i++
					}
					j = len(w)
				}
			}
			continue
		}
		if names && !identifier.Get().MatchString(w) {
			return opaqueV(why)
		}
	}
	return verdict{}
}

func mapfileCheck(c call) verdict {
	if has(c, "-C") {
		return opaqueV("mapfile -C runs a callback")
	}
	return namedArgs(c, "cdnOsu", "", true)
}

func readCheck(c call) verdict { return namedArgs(c, "dinNptu", "a", true) }

// printfCheck: printf -v NAME assigns to NAME, evaluating its subscript.
func printfCheck(c call) verdict {
	for i := 1; i < len(c.words); i++ {
		w := c.words[i]
		if !c.fixed[i] {
			return opaqueV("printf takes its first word, which may be -v, only when it runs")
		}
		if w == "--" || !strings.HasPrefix(w, "-v") {
			return verdict{} // the format: options end here
		}
		return namedArgs(c.slice(0, min(i+2, len(c.words))), "", "v", false)
	}
	return verdict{}
}

func namesCheck(c call) verdict {
	switch c.words[0] {
	case "unset":
		return namedArgs(c, "", "", true)
	case "wait":
		return namedArgs(c, "", "p", false)
	}
	// getopts OPTSTRING NAME [ARGS]
	if len(c.words) >= 3 && (!c.fixed[2] || !identifier.Get().MatchString(c.words[2])) {
		return opaqueV("getopts evaluates the subscript of the variable name it is given")
	}
	return verdict{}
}

// declWordsCheck: declare and its kind reached as plain words (builtin
// declare …, command export …) parse every word as a declaration.
func declWordsCheck(c call) verdict {
	for i, w := range c.words[1:] {
		if !c.fixed[i+1] {
			return opaqueV(c.words[0] + " parses a word known only when it runs as a declaration")
		}
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "+") {
			if strings.Trim(w[1:], declFlags) != "" && w != "--" {
				return opaqueV(c.words[0] + " " + w + ": integer and nameref variables evaluate the values later assigned")
			}
			continue
		}
		name, value, _ := strings.Cut(w, "=")
		if !identifier.Get().MatchString(name) || strings.ContainsAny(value, "()") {
			return opaqueV(c.words[0] + " parses " + w + " as a declaration, whose subscript bash evaluates")
		}
		if codeVar(name) {
			return exactHidden(name + " decides which programs run or runs code of its own")
		}
	}
	return verdict{}
}
