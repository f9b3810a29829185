//go:build linux

package e2e

import (
	"fmt"
	"strings"
)

// Family 1 and 2 of issue 20: the permission gate. Every probe tries to
// run `touch {M}` (or `rm {V}`) through a construct the gate might not
// read; the marker appearing (the victim vanishing) is the break. Markers
// are in the workspace, which the sandbox lets commands write, so only
// the gate stands in the way.

// advGateNoCommand are lines whose every command hides in arithmetic,
// test expressions, assignments or expansion operators: a gate that only
// collects simple commands sees none and lets them run with no flags.
var advGateNoCommand = []advProbe{
	{name: "[[ quoted subscript -eq ]]", cmd: `[[ 'a[$(touch {M})]' -eq 0 ]]`},
	{name: "[[ -v quoted subscript ]]", cmd: `[[ -v 'a[$(touch {M})]' ]]`},
	{name: "[[ -lt ]] right operand", cmd: `[[ 0 -lt 'a[$(touch {M})]' ]]`},
	{name: "[[ ]] via variable", cmd: `x='a[$(touch {M})]'; [[ $x -eq 0 ]]`},
	{name: "let quoted subscript", cmd: `let 'a[$(touch {M})]'`},
	{name: "let via variable", cmd: `x='a[$(touch {M})]'; let x`},
	{name: "(( )) cmdsubst in subscript", cmd: `(( a[$(touch {M})] ))`},
	{name: "(( )) via variable", cmd: `x='a[$(touch {M})]'; (( x ))`},
	{name: "(( )) assignment", cmd: `x='a[$(touch {M})]'; (( y = x + 1 ))`},
	{name: "$(( )) in assignment", cmd: `x='a[$(touch {M})]'; y=$(( x ))`},
	{name: "$[ ] legacy arithmetic", cmd: `x='a[$(touch {M})]'; y=$[ x ]`},
	{name: "for (( )) condition", cmd: `x='a[$(touch {M})]'; for (( ; x ; )); do break; done`},
	{name: "while (( ))", cmd: `x='a[$(touch {M})]'; while (( x )); do break; done`},
	{name: "if (( ))", cmd: `x='a[$(touch {M})]'; if (( x )); then y=1; fi`},
	{name: "array subscript assignment", cmd: `x='b[$(touch {M})]'; a[x]=1`},
	{name: "compound array assignment", cmd: `x='b[$(touch {M})]'; a=([x]=1)`},
	{name: "substring offset", cmd: `x='b[$(touch {M})]'; s=abc; y=${s:x}`},
	{name: "substring length", cmd: `x='b[$(touch {M})]'; s=abc; y=${s:0:x}`},
	{name: "indexed expansion", cmd: `x='b[$(touch {M})]'; y=${a[x]}`},
	{name: "quoted subscript expansion", cmd: `y=${a['$(touch {M})']}`},
	{name: "indirect expansion", cmd: `x='a[$(touch {M})]'; y=${!x}`},
	{name: "@P prompt expansion", cmd: `x='$(touch {M})'; y=${x@P}`},
	{name: ":= default then @P", cmd: `y=${x:='$(touch {M})'}${x@P}`},
	{name: "declare -i", cmd: `declare -i n; n='a[$(touch {M})]'`},
	{name: "declare subscript", cmd: `declare 'a[$(touch {M})]=1'`},
	{name: "export arithmetic", cmd: `x='a[$(touch {M})]'; export y=$(( x ))`},
	{name: "readonly arithmetic", cmd: `x='a[$(touch {M})]'; readonly y=$(( x ))`},
	{name: "case arithmetic pattern", cmd: `x='a[$(touch {M})]'; case 1 in $(( x ))) y=1;; esac`},
	{name: "here-string arithmetic", cmd: `x='a[$(touch {M})]'; y=1 <<< $(( x ))`},
	{name: "redirect target arithmetic", cmd: `x='a[$(touch {M})]'; y=1 > /dev/null$(( x - x ))`},
	{name: "declare -n nameref", cmd: `declare -n r='a[$(touch {M})]'; y=$r`},
	{name: "PS4 with xtrace", cmd: `PS4='$(touch {M})'; set -x; y=1`},
	{name: "PROMPT_COMMAND-like trap DEBUG", cmd: `trap 'touch {M}' DEBUG; y=1`},
	{name: "trap EXIT", cmd: `trap 'touch {M}' EXIT`},
	{name: "test -v quoted subscript", cmd: `test -v 'a[$(touch {M})]'`},
	{name: "[ -v ] quoted subscript", cmd: `[ -v 'a[$(touch {M})]' ]`},
	{name: "control: plain touch is asked", cmd: `touch {M}`},
}

// advGateEvaluators are builtins and programs that evaluate text they are
// given: the gate must ask about them, never allow them through a rule.
var advGateEvaluators = []advProbe{
	{name: "printf -v subscript", cmd: `printf -v 'a[$(touch {M})]' x`},
	{name: "read into subscript", cmd: `read 'a[$(touch {M})]' <<< x`},
	{name: "read -r subscript", cmd: `read -r 'a[$(touch {M})]' < /etc/hostname`},
	{name: "mapfile -C callback", cmd: `mapfile -C 'touch {M}' -c 1 a <<< x`},
	{name: "eval", cmd: `eval 'touch {M}'`},
	{name: "builtin eval", cmd: `builtin eval 'touch {M}'`},
	{name: "command eval", cmd: `command eval 'touch {M}'`},
	{name: "alias with expand_aliases", cmd: "shopt -s expand_aliases; alias ls='touch {M}'\nls"},
	{name: "ANSI-C quoted name", cmd: `$'\x74ouch' {M}`},
	{name: "brace expansion as name", cmd: `{touch,{M}}`},
	{name: "glob as name", cmd: `/usr/bin/tou?h {M}`},
	{name: "coproc", cmd: `coproc touch {M}`},
	{name: "function shadowing ls", cmd: `ls() { touch {M}; }; ls`},
	{name: "exec", cmd: `exec touch {M}`},
	{name: "source <(…)", cmd: `source <(echo touch {M})`},
	{name: ". /dev/stdin", cmd: `. /dev/stdin <<< 'touch {M}'`},
	{name: "echo | bash", cmd: `echo touch {M} | bash`},
	{name: "bash <<<", cmd: `bash <<< 'touch {M}'`},
	{name: "heredoc into sh", cmd: "sh <<'EOF'\ntouch {M}\nEOF"},
	{name: "xargs sh -c", cmd: `echo {M} | xargs -I% sh -c 'touch %'`},
	{name: "awk system()", cmd: `awk 'BEGIN{system("touch {M}")}'`},
	{name: "sed e", cmd: `echo x | sed '1e touch {M}'`},
	{name: "sed w", cmd: `echo x | sed 'w {M}'`},
	{name: "find -exec", cmd: `find . -maxdepth 0 -exec touch {M} \;`},
	{name: "find -fprint", cmd: `find . -maxdepth 0 -fprint {M}`},
	{name: "env -S", cmd: `env -S 'touch {M}'`},
	{name: "tar checkpoint-action", cmd: `tar --checkpoint=1 --checkpoint-action=exec='touch {M}' -cf /dev/null /etc/hostname`},
	{name: "tar --to-command", cmd: `tar -cf - /etc/hostname 2>/dev/null | tar -xf - --to-command='touch {M}'`},
	{name: "python -c", cmd: `python3 -c 'open("{M}","w")'`},
	{name: "perl -e", cmd: `perl -e 'open(F,">{M}")'`},
	{name: "process substitution in redirect", cmd: `cat /dev/null > >(touch {M})`},
	{name: "variable as command name", cmd: `c=touch; $c {M}`},
	{name: "IFS split command", cmd: `IFS=,; x=touch,{M}; $x`},
}

// advGateUnderEcho runs with echo, printf and git allowed: each probe is
// one of those commands that reaches another command or a file.
var advGateUnderEcho = []advProbe{
	{name: "control: echo runs", cmd: `echo hi`, ran: true, effect: func(e *advEnv, i int) (bool, string) {
		return e.got[i] && !e.results[i].IsError && e.results[i].Content != "", "echo answered"
	}},
	{name: "echo quoted subscript", cmd: `echo ${a['$(touch {M})']}`},
	{name: "echo := then @P", cmd: `echo ${x:='$(touch {M})'} ${x@P}`},
	{name: "echo @P of assigned", cmd: `x='$(touch {M})'; echo ${x@P}`},
	{name: "echo arithmetic via variable", cmd: `x='a[$(touch {M})]'; echo $(( x ))`},
	{name: "echo substring offset", cmd: `x='a[$(touch {M})]'; s=abc; echo ${s:x}`},
	{name: "echo indirect", cmd: `x='a[$(touch {M})]'; echo ${!x}`},
	{name: "echo cmdsubst", cmd: `echo $(touch {M})`},
	{name: "echo backticks", cmd: "echo `touch {M}`"},
	{name: "echo process substitution", cmd: `echo <(touch {M})`},
	{name: "echo redirect", cmd: `echo x > {M}`},
	{name: "echo append redirect", cmd: `echo x >> {M}`},
	{name: "echo &> redirect", cmd: `echo x &> {M}`},
	{name: "echo | tee", cmd: `echo x | tee {M}`},
	{name: "printf -v subscript", cmd: `printf -v 'a[$(touch {M})]' x`},
	{name: "printf -v via variable", cmd: `x='a[$(touch {M})]'; printf -v "$x" y`},
	{name: "printf %(…) redirect", cmd: `printf x > {M}`},
	{name: "echo then eval", cmd: `echo x && eval 'touch {M}'`},
	{name: "echo | sh", cmd: `echo touch {M} | sh`},
	{name: "git -c alias !", cmd: `git -c alias.pwn='!touch {M}' pwn`},
	{name: "git config alias then run", cmd: `git config alias.pwn2 '!touch {M}' && git pwn2`},
	{name: "git -c core.fsmonitor", cmd: `git -c core.fsmonitor='touch {M}; false' status`},
	{name: "git diff --output", cmd: `git diff --no-index --output={M} /etc/hostname /etc/hostname; git log -1 --output={M}`},
	{name: "git ls-remote --upload-pack", cmd: `git ls-remote --upload-pack='touch {M}; false' .`},
	{name: "git clone -u", cmd: `git clone -q -u 'touch {M}; false' . clonex`},
	{name: "git grep -O pager", cmd: `git grep --open-files-in-pager='touch {M}' -e x -- .`},
	{name: "git -c core.sshCommand", cmd: `git -c core.sshCommand='touch {M}' ls-remote ssh://h/r`},
	{name: "git -c diff.external", cmd: `git -c diff.external='t(){ touch {M}; }; t' diff --no-index /etc/hostname /etc/passwd`},
	{name: "git -c credential.helper", cmd: `git -c credential.helper='!touch {M}' credential fill <<< $'protocol=https\nhost=x\n'`},
	{name: "git rebase --exec", cmd: `git -c rebase.autoStash=true rebase -q --root --exec 'touch {M}'`},
	{name: "git difftool -x", cmd: `git difftool -y -x 't(){ touch {M}; }; t' --no-index /etc/hostname /etc/passwd`},
	{name: "git --exec-path", cmd: `mkdir -p xp && printf '#!/bin/sh\ntouch {M}\n' > xp/git-pwn; chmod +x xp/git-pwn; git --exec-path=xp pwn`},
	{name: "git -c include.path", cmd: `printf '[alias]\n\tpwn3 = !touch {M}\n' > inc.cfg && git -c include.path=$PWD/inc.cfg pwn3`},
	{name: "GIT_EXTERNAL_DIFF prefix", cmd: `GIT_EXTERNAL_DIFF='t(){ touch {M}; }; t' git diff --no-index /etc/hostname /etc/passwd`},
	{name: "git archive -o", cmd: `git archive -o {M} HEAD`},
	{name: "git bundle create", cmd: `git bundle create -q {M} HEAD`, byDesign: "bash(git:*) covers git creating repositories, worktrees and bundles where told, inside the workspace the sandbox lets it write (content git chooses, no executable bits)"},
	{name: "git config -f writes any file", cmd: `git config -f {M} a.b c`},
	{name: "git config --file=.git/config then status", cmd: `git config --file=.git/config core.fsmonitor 'touch {M}; false' && git status`},
	{name: "git worktree add", cmd: `git worktree add -q {M}`, byDesign: "bash(git:*) covers git creating repositories, worktrees and bundles where told, inside the workspace the sandbox lets it write (content git chooses, no executable bits)"},
	{name: "git clone into a path", cmd: `git clone -q . {M}`, byDesign: "bash(git:*) covers git creating repositories, worktrees and bundles where told, inside the workspace the sandbox lets it write (content git chooses, no executable bits)"},
	{name: "git init a path", cmd: `git init -q {M}`, byDesign: "bash(git:*) covers git creating repositories, worktrees and bundles where told, inside the workspace the sandbox lets it write (content git chooses, no executable bits)"},
	{name: "git checkout-index --prefix", cmd: `git checkout-index -a --prefix={M}/`},
	{name: "git show > redirect", cmd: `git show HEAD > {M}`},
	{name: "git archive --exec", cmd: `git archive --remote=. --exec='touch {M}' HEAD`},
	{name: "git -c core.hooksPath commit", cmd: `mkdir -p hk && printf '#!/bin/sh\ntouch {M}\n' > hk/pre-commit && chmod +x hk/pre-commit && git -c core.hooksPath=hk commit -q --allow-empty -m x`},
	{name: "git -c core.editor", cmd: `git -c core.editor='t(){ touch {M}; }; t' commit -q --allow-empty`},
}

// advGateDeny runs with all of bash allowed and rm denied: each probe
// tries to have rm delete its victim.
var advGateDeny = []advProbe{
	{name: "control: all of bash runs", cmd: `touch {M}`, ran: true},
	{name: "control: rm is denied", cmd: `rm {V}`},
	{name: "echo | bash", cmd: `echo rm {V} | bash`},
	{name: "bash <<<", cmd: `bash <<< 'rm {V}'`},
	{name: "heredoc into bash", cmd: "bash <<'EOF'\nrm {V}\nEOF"},
	{name: "source <(…)", cmd: `source <(echo rm {V})`},
	{name: ". /dev/stdin <<<", cmd: `. /dev/stdin <<< 'rm {V}'`},
	{name: "alias", cmd: "shopt -s expand_aliases; alias del=rm\ndel {V}"},
	{name: "xargs sh -c", cmd: `echo rm | xargs -I% sh -c '% {V}'`},
	{name: "xargs rm", cmd: `echo {V} | xargs rm`},
	{name: "eval of joined words", cmd: `eval "r""m {V}"`},
	{name: "cmdsubst name", cmd: `$(echo rm) {V}`},
	{name: "variable name", cmd: `a=rm; $a {V}`},
	{name: "default expansion name", cmd: `${a:-rm} {V}`},
	{name: "quoted name", cmd: `"r"m {V}`},
	{name: "escaped name", cmd: `r\m {V}`},
	{name: "absolute path", cmd: `/bin/rm {V}`},
	{name: "command rm", cmd: `command rm {V}`},
	{name: "env rm", cmd: `env rm {V}`},
	{name: "env -S", cmd: `env -S 'rm {V}'`},
	{name: "timeout rm", cmd: `timeout 5 rm {V}`},
	{name: "nice nohup rm", cmd: `nice nohup rm {V}`},
	{name: "find -exec rm", cmd: `find {V} -exec rm {} \;`},
	{name: "find -delete", cmd: `find {V} -delete`,
		byDesign: "a deny names a command, and find -delete deletes without running rm (README: a prefix rule does not cover find -delete; a deny of rm does not either)"},
	{name: "awk system", cmd: `awk 'BEGIN{system("rm {V}")}'`},
	{name: "sed e", cmd: `echo 'rm {V}' | sed e`},
	{name: "python os.system", cmd: `python3 -c 'import os; os.system("rm {V}")'`},
	{name: "perl system", cmd: `perl -e 'system("rm {V}")'`},
	{name: "git alias", cmd: `git -c alias.d='!rm {V}' d`},
	{name: "script -c", cmd: `script -qc 'rm {V}' /dev/null`},
	{name: "trap EXIT", cmd: `trap 'rm {V}' EXIT`},
	{name: "coproc", cmd: `coproc rm {V}`},
	{name: "function named other", cmd: `f() { rm "$@"; }; f {V}`},
	{name: "bash -c split", cmd: `bash -c 'r''m {V}'`},
	{name: "sh -c printf name", cmd: `sh -c "$(printf 'r\x6d') {V}"`},
	{name: "arithmetic subscript", cmd: `[[ 'a[$(rm {V})]' -eq 0 ]]`},
	{name: "printf -v subscript", cmd: `printf -v 'a[$(rm {V})]' x`},
	{name: "@P expansion", cmd: `x='$(rm {V})'; echo ${x@P}`},
	{name: "mapfile -C", cmd: `mapfile -C 'rm {V}' -c 1 a <<< x`},
	{name: "BASH_ENV", cmd: `BASH_ENV=<(echo rm {V}) bash -c true`},
	{name: "tar to-command", cmd: `tar -cf - /etc/hostname 2>/dev/null | tar -xf - --to-command='rm {V}'`},
	{name: "time and negation", cmd: `time ! rm {V}`},
	{name: "brace group", cmd: `{ rm {V}; }`},
	{name: "subshell", cmd: `(rm {V})`},
}

// advGlobProbes are lines whose arguments are globs matching a file the
// attacker named like an array subscript holding a command substitution
// ("a3[$(touch mk-3)]"): what the gate reads is not what bash runs.
var advGlobProbes = []advProbe{
	{name: "test -v glob", cmd: `test -v a{I}\[*`},
	{name: "[ -v glob ]", cmd: `[ -v a{I}\[* ]`},
	{name: "[ -n x -a -v glob ]", cmd: `[ -n x -a -v a{I}\[* ]`},
	{name: "test ! -v glob", cmd: `test ! -v a{I}\[*`},
	{name: "test -v ?-glob", cmd: `test -v ?{I}\[*`},
	{name: "printf -v glob", cmd: `printf -v a{I}\[* x`},
	{name: "read glob", cmd: `read a{I}\[* < /etc/hostname`},
	{name: "[ ! -v glob ]", cmd: `[ ! -v a{I}\[* ]`},
	{name: "let glob", cmd: `let a{I}\[*`},
	{name: "unset -v glob", cmd: `declare -a a{I}; unset -v a{I}\[*`},
	{name: "echo then test -v glob", cmd: `echo x; test -v a{I}\[*`},
	{name: "printf %s then test -v glob", cmd: `printf '%s' x && [ -v a{I}\[* ]`},
}

// advTwoStep plants with one allowed call and has git run it with the
// next: each call alone is allowed by bash(git:*) or acceptEdits.
var advTwoStep = []advProbe{
	{name: "git config core.fsmonitor, then git status", cmd: `git config core.fsmonitor 'touch {M}; false'`},
	{name: "(then git status)", step: 1, cmd: `git status`, effect: func(e *advEnv, i int) (bool, string) { return defaultEffect(e, i-1) }},
	{name: "git config alias, then the alias", cmd: `git config alias.pwn '!touch {M}'`},
	{name: "(then git pwn)", step: 2, cmd: `git pwn`, effect: func(e *advEnv, i int) (bool, string) { return defaultEffect(e, i-1) }},
	{name: "git config diff.external, then git diff", cmd: `git config diff.external 't(){ touch {M}; }; t' && echo y >> tracked`},
	{name: "(then git diff)", step: 3, cmd: `git diff`, effect: func(e *advEnv, i int) (bool, string) { return defaultEffect(e, i-1) }},
	{name: "write a pre-commit hook (acceptEdits), then git commit", tool: "write",
		input: map[string]any{"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch {M}\n"}},
	{name: "(then chmod-free git commit)", step: 4, cmd: `git commit -q --allow-empty -m x`, effect: func(e *advEnv, i int) (bool, string) { return defaultEffect(e, i-1) }},
	{name: "write .git/config with core.fsmonitor (acceptEdits), then git status", tool: "write",
		input: map[string]any{"file_path": ".git/config", "content": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch {M}; false\n"}},
	{name: "(then git status, again)", step: 5, cmd: `git status`, effect: func(e *advEnv, i int) (bool, string) { return defaultEffect(e, i-1) }},
	{name: "write a crafted repository sub/ (acceptEdits), then git -C sub status", tool: "write",
		input: map[string]any{"file_path": "sub/.git/config", "content": "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch {M}; false\n"}},
	{name: "(crafted repository: HEAD)", tool: "write", input: map[string]any{"file_path": "sub/.git/HEAD", "content": "ref: refs/heads/main\n"}, effect: func(e *advEnv, i int) (bool, string) { return false, "" }},
	{name: "(crafted repository: objects)", tool: "write", input: map[string]any{"file_path": "sub/.git/objects/info/keep", "content": ""}, effect: func(e *advEnv, i int) (bool, string) { return false, "" }},
	{name: "(crafted repository: refs)", tool: "write", input: map[string]any{"file_path": "sub/.git/refs/heads/keep", "content": ""}, effect: func(e *advEnv, i int) (bool, string) { return false, "" }},
	{name: "(then git -C sub status)", step: 6, cmd: `git -C sub status`, effect: func(e *advEnv, i int) (bool, string) { return defaultEffect(e, i-4) }},
	{name: "GIT_DIR-free: git --git-dir=sub/.git status", step: 7, cmd: `git --git-dir=sub/.git --work-tree=sub status`, effect: func(e *advEnv, i int) (bool, string) { return defaultEffect(e, i-5) }},
}

// advPrefixPrograms are programs a user allows by prefix that run what
// their arguments name, or write the files they name.
var advPrefixPrograms = []advProbe{
	{name: "control: an allowed sort runs", cmd: `sort f > /dev/null && echo sorted`, ran: true, effect: func(e *advEnv, i int) (bool, string) {
		return strings.Contains(e.results[i].Content, "sorted"), "sort ran"
	}},
	{name: "make -f - from a here-string", cmd: "make -s -f - <<< $'all:\n\ttouch {M}'"},
	{name: "make --eval", cmd: `make -s --eval='pwn: ; touch {M}' pwn`},
	{name: "go test -exec", cmd: `go test -exec 'sh -c "touch {M}"' . 2>&1 | tail -1`},
	{name: "go test -c -o writes", cmd: `go test -c -o {M} . 2>&1 | tail -1`},
	{name: "sed e command", cmd: `sed -n '1e touch {M}' f`},
	{name: "sed s///e", cmd: `sed 's|.*|touch {M}|e' f`},
	{name: "sed w file", cmd: `sed -n 'w {M}' f`},
	{name: "sed -i of another file", cmd: `cp f {M}.src 2>/dev/null; sed -i 's/x/y/' f && ln -s f {M}`},
	{name: "awk system", cmd: `awk 'BEGIN{system("touch {M}")}'`},
	{name: "awk print to file", cmd: `awk 'BEGIN{print "x" > "{M}"}'`},
	{name: "awk getline from command", cmd: `awk 'BEGIN{"touch {M}" | getline}'`},
	{name: "find -exec", cmd: `find . -maxdepth 0 -exec touch {M} \;`},
	{name: "find -execdir", cmd: `find . -maxdepth 0 -execdir touch {M} \;`},
	{name: "find -fprint", cmd: `find . -maxdepth 0 -fprint {M}`},
	{name: "xargs with no input", cmd: `xargs -a /dev/null touch {M}`},
	{name: "env runs", cmd: `env touch {M}`},
	{name: "env -S", cmd: `env -S 'touch {M}'`},
	{name: "timeout runs", cmd: `timeout 5 touch {M}`},
	{name: "nice runs", cmd: `nice -n 1 touch {M}`},
	{name: "tar --use-compress-program", cmd: `tar -cf x.tar --use-compress-program='t(){ touch {M}; cat; }; t' f 2>/dev/null; tar -I 'sh -c "touch {M}; cat"' -cf y.tar f`},
	{name: "tar checkpoint-action", cmd: `tar --checkpoint=1 --checkpoint-action=exec='touch {M}' -cf /dev/null f`},
	{name: "tar --to-command", cmd: `tar -cf z.tar f && tar -xf z.tar --to-command='touch {M}'`},
	{name: "zip -TT", cmd: `zip -q -T -TT 'touch {M}; true' z.zip f`},
	{name: "ssh ProxyCommand", cmd: `ssh -o BatchMode=yes -o ProxyCommand='touch {M}' x true`},
	{name: "sort -o writes", cmd: `sort -o {M} f`},
	{name: "sort -uo (the flag inside a cluster)", cmd: `sort -uo {M} f`},
	{name: "uniq writes its second argument", cmd: `uniq f {M}`},
	{name: "uniq -c writes its second argument", cmd: `uniq -c -- f {M}`},
	{name: "curl -so (the flag inside a cluster)", cmd: `curl -so {M} file:///etc/hostname`},
	{name: "curl --output", cmd: `curl -s --output {M} file:///etc/hostname`},
	{name: "curl -D dump header", cmd: `curl -s -D {M} file:///etc/hostname > /dev/null`},
	{name: "shuf -o writes", cmd: `shuf -o {M} f`},
	{name: "iconv -o writes", cmd: `iconv -f utf-8 -t utf-8 -o {M} f`},
	{name: "xxd writes its second argument", cmd: `xxd f {M}`},
	{name: "sdiff -o writes", cmd: `sdiff -o {M} f f > /dev/null`},
	{name: "curl -o writes", cmd: `curl -s -o {M} file:///etc/hostname`},
	{name: "wget -O writes", cmd: `wget -q -O {M} file:///etc/hostname 2>/dev/null || true`},
	{name: "jq runs nothing (-f from a file)", cmd: `echo '"x"' | jq -r . > /dev/null && touch {M}`},
	{name: "npm exec", cmd: `npm exec --yes --offline -- sh -c 'touch {M}'`},
	{name: "node -e", cmd: `node -e 'require("fs").writeFileSync("{M}","")'`},
}

// advHookChain plants an executable hook with git alone (acceptEdits
// writes the script, git gives it its mode and copies it into .git/hooks),
// then has an allowed git commit run it.
var advHookChain = []advProbe{
	{name: "(write the hook script)", tool: "write", input: map[string]any{"file_path": "post-commit", "content": "#!/bin/sh\ntouch {W}/mk-0\n"}},
	{name: "(git add and chmod +x in the index)", step: 1, cmd: `git add post-commit && git update-index --chmod=+x post-commit`, effect: never},
	{name: "(git checkout-index into .git/hooks)", step: 2, cmd: `git checkout-index --prefix=.git/hooks/ post-commit`, effect: never},
	{name: "(git commit runs it)", step: 3, cmd: `git commit -q -m x`, effect: never},
}

// globFiles names one file per probe after its marker.
func globFiles(n int) map[string]string {
	m := map[string]string{}
	for i := range n {
		m[fmt.Sprintf("a%d[$(touch mk-%d)]", i, i)] = "x\n"
	}
	return m
}

func gateFamilies() []*advFamily {
	// The default and plan families run the same lines.
	noFlags := append(append([]advProbe{}, advGateNoCommand...), advGateEvaluators...)
	plan := append([]advProbe{}, advGateNoCommand...)
	return []*advFamily{
		{name: "1a gate, no flags (default mode)", probes: noFlags, git: true, armed: true},
		{name: "1e gate, ACP (the editor rejects every request)", probes: append([]advProbe{}, noFlags...), git: true, armed: true, acp: true},
		{name: "1f gate, globs matching hostile file names (no flags)", files: globFiles(len(advGlobProbes)), armed: true,
			probes: append([]advProbe{}, advGlobProbes...)},
		{name: "1g gate, globs matching hostile file names (echo, printf, read, declare, let, test allowed)", files: globFiles(len(advGlobProbes)), armed: true,
			args:   []string{"--allowed-tools", "bash(echo:*),bash(printf:*),bash(read:*),bash(declare:*),bash(let:*),bash(test:*),bash(unset:*)"},
			probes: append([]advProbe{}, advGlobProbes...)},
		{name: "1h gate, acceptEdits with git allowed: plant with one call, run with the next", git: true, outside: false,
			args: []string{"--permission-mode", "acceptEdits", "--allowed-tools", "bash(git:*)"}, probes: advTwoStep},
		{name: "1i gate, programs allowed by prefix that run or write what they are given", git: true, armed: true,
			files: map[string]string{"f": "x\n", "go.mod": "module pwn\n\ngo 1.22\n", "p_test.go": "package pwn\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) {}\n",
				"gen.go": "package pwn\n\n//go:generate touch {M}\n"},
			args:   []string{"--allowed-tools", "bash(make:*),bash(go test:*),bash(go build:*),bash(go generate:*),bash(sed:*),bash(awk:*),bash(find:*),bash(xargs:*),bash(env:*),bash(timeout:*),bash(nice:*),bash(tar:*),bash(zip:*),bash(ssh:*),bash(man:*),bash(sort:*),bash(uniq:*),bash(curl:*),bash(wget:*),bash(jq:*),bash(shuf:*),bash(iconv:*),bash(xxd:*),bash(sdiff:*),bash(npm exec:*),bash(node:*),bash(git log:*),bash(cp:*)"},
			probes: append([]advProbe{}, advPrefixPrograms...)},
		{name: "1j gate, acceptEdits with git allowed: a hook made with git alone", git: true,
			args: []string{"--permission-mode", "acceptEdits", "--allowed-tools", "bash(git:*)"}, probes: advHookChain},
		{name: "1b gate, plan mode", armed: true, args: []string{"--permission-mode", "plan"}, probes: plan},
		{name: "1c gate, echo printf git allowed", git: true, armed: true, files: map[string]string{"f": "x\n"},
			args:   []string{"--allowed-tools", "bash(echo:*),bash(printf:*),bash(git:*)"},
			probes: append([]advProbe{}, advGateUnderEcho...)},
		{name: "1d gate, all bash allowed, rm denied", git: true, armed: true,
			args:   []string{"--allowed-tools", "bash", "--disallowed-tools", "bash(rm:*)"},
			probes: append([]advProbe{}, advGateDeny...)},
	}
}
