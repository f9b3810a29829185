package permission

import (
	"path"
	"strings"
	"testing"
)

// programExample is what the test of one programs table entry checks.
type programExample struct {
	// risky forms are not allowed by a prefix rule of the program
	// (bash(NAME:*), or the rule named by rule).
	risky []string
	// plain forms are allowed by that rule.
	plain []string
	// throughDeny: with all of bash allowed and bash(rm:*) denied, each
	// is not allowed (denied outright, or asked because rm may hide in
	// it).
	throughDeny []string
	// rule is the prefix rule, when not bash(NAME:*).
	rule string
	// extra allow rules the plain forms need (what a wrapper runs).
	extra []string
	// writesOnly: the program writes files but runs nothing, so it has
	// no throughDeny forms.
	writesOnly bool
}

// programExamples has an entry for each name group of programTable,
// keyed by its first name.
var programExamples = map[string]programExample{
	// Writers found by the adversarial e2e family 1i: each wrote its
	// marker under a prefix rule of its own name.
	"curl": {risky: []string{`curl -o out https://x`, `curl -so out https://x`, `curl -fsSLo out https://x`, `curl -O https://x/f`, `curl --output out https://x`,
		`curl -D h https://x`, `curl -c jar https://x`, `curl -K cfg https://x`, `curl --trace t https://x`, `curl --output-dir d -O https://x/f`, `curl $OPTS https://x`},
		plain: []string{`curl -sSL https://x`, `curl -fsS -H 'Accept: text/plain' https://x`}, writesOnly: true},
	"wget":  {risky: []string{`wget https://x/f`, `wget -O out https://x`, `wget -qO- https://x`}, writesOnly: true},
	"uniq":  {risky: []string{`uniq f out`, `uniq -c f out`, `uniq -f 1 -- f out`, `uniq f *`}, plain: []string{`uniq f`, `uniq -c -f 1 f`, `uniq -w 3 f`}, writesOnly: true},
	"xxd":   {risky: []string{`xxd f out`, `xxd -r dump out`, `xxd -c 16 f out`, `xxd f $OUT`}, plain: []string{`xxd f`, `xxd -c 16 -l 32 f`}, writesOnly: true},
	"shuf":  {risky: []string{`shuf -o out f`, `shuf --output=out f`, `shuf -no out f`}, plain: []string{`shuf -n 3 f`}, writesOnly: true},
	"iconv": {risky: []string{`iconv -f utf-8 -t ascii -o out f`, `iconv --output=out f`, `iconv -co out f`}, plain: []string{`iconv -f utf-8 -t ascii f`, `iconv -l`}, writesOnly: true},
	"sdiff": {risky: []string{`sdiff -o out a b`, `sdiff --output=out a b`, `sdiff -so out a b`}, plain: []string{`sdiff a b`, `sdiff -s a b`}, writesOnly: true},
	"awk": {risky: []string{`awk 'BEGIN{system("touch x")}'`, `awk '{print > "out"}' f`, `awk '{print | "sh"}' f`, `awk -f prog.awk f`, `gawk -l ext 1 f`, `awk "$P" f`},
		plain: []string{`awk '{print $1}' f`, `awk -F: -v n=1 '{print $n}' /etc/passwd`}, throughDeny: []string{`awk 'BEGIN{system("rm f")}'`}},
	"sed": {risky: []string{`sed '1e touch x' f`, `sed 's/a/b/e' f`, `sed 's/a/b/w out' f`, `sed -n 'w out' f`, `sed -i s/a/b/ f`, `sed --in-place s/a/b/ f`, `sed -f script.sed f`, `sed -ne '1e id' f`, `sed "$S" f`, `sed -n p *.txt`},
		plain:       []string{`sed -n 's/a/b/p' f`, `sed -e 's/x/y/g' -e '/^#/d' f`, `sed -E 's/(a|b)+/c/2' f`, `sed '1,5!d;$q' f`, `sed --sandbox 's/a/b/e' f`},
		throughDeny: []string{`sed '1e rm f' x`, `sed 's/.*/rm f/e' x`}},
	"find": {risky: []string{`find . -delete`, `find . -name x -fprint out`, `find . -exec touch {} +`, `find . -exec {} \;`, `find * -name x`, `find . $expr`},
		plain: []string{`find . -name '*.go'`, `find . -type f -exec echo {} +`}, extra: []string{"bash(echo:*)"},
		throughDeny: []string{`find . -exec rm {} +`, `find . -exec sh -c 'rm "$1"' _ {} \;`, `find . -execdir /bin/rm {} \;`}},
	"git": {risky: []string{`git checkout-index --prefix=.git/hooks/ post-commit`, `git checkout-index -a --prefix .git/hooks/`, `git checkout-index -f -a --prefix=x/`,
		`git -c core.pager='touch x' log`, `git -c alias.x='!touch x' x`, `git --config-env=core.pager=P log`, `git --exec-path=. status`,
		`git -C /tmp status`, `git x`, `git fetch --upload-pack='touch x' origin`, `git push --receive-pack=touch origin`, `git ls-remote -u touch origin`,
		`git diff --ext-diff`, `git log --output=out`, `git format-patch -o dir HEAD~1`, `git rebase -x 'touch x' HEAD~1`, `git submodule foreach touch x`,
		`git bisect run touch x`, `git config core.pager 'touch x'`, `git difftool`, `git archive --exec=touch --remote=x HEAD`, `git grep -O'touch x' y`, `git diff *`, `git log $(cat opts)`, `git merge -s ours topic`, `git pull -Xours origin`, `git rebase --strategy=x HEAD~1`},
		plain:       []string{`git status`, `git diff --stat`, `git log --oneline -5`, `git --no-pager show HEAD`, `git config --get user.name`, `git config user.email`, `git commit -m 'x'`, `git push -u origin main`, `git add -- *.go`, `git diff HEAD~1`, `git log @{u}..`, `git status -s`, `git show -s HEAD`, `git log -s --format=%H`},
		throughDeny: []string{`git -c alias.x='!rm f' x`, `git rebase -x 'rm f' HEAD~1`}},
	"env": {risky: []string{`env -S 'touch x'`, `env touch x`, `env LD_PRELOAD=x.so ls`, `env -Z ls`},
		plain: []string{`env`, `env -i ls -la`, `env -u HOME ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`env rm f`, `env -S 'rm f'`, `env X=1 /bin/rm f`}},
	"xargs": {risky: []string{`xargs touch`, `xargs -I% sh -c '% f'`, `xargs -I{} {} f`, `xargs sh`, `xargs -0 env`, `xargs -I% echo '% ; touch x'`},
		plain: []string{`xargs`, `xargs -0 -n1 echo`, `xargs -I{} echo {}`, `xargs sh -c 'echo "$@"' _`}, extra: []string{"bash(echo:*)", "bash(sh:*)"},
		throughDeny: []string{`xargs rm`, `xargs -I% sh -c '% f'`, `xargs -I% bash -c 'rm %'`}},
	"timeout": {risky: []string{`timeout 5 touch x`, `timeout --weird 5 ls`, `timeout * ls`, `timeout 5 $cmd`}, plain: []string{`timeout 5 ls`, `timeout -s KILL -k 2 5 ls -la`}, extra: []string{"bash(ls:*)"},
		throughDeny: []string{`timeout 5 rm f`, `timeout 5 bash -c 'rm f'`}},
	"nice":    {risky: []string{`nice touch x`}, plain: []string{`nice -n 5 ls`, `nice ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`nice -n5 rm f`}},
	"nohup":   {risky: []string{`nohup touch x`}, plain: []string{`nohup ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`nohup rm f`}},
	"stdbuf":  {risky: []string{`stdbuf -oL touch x`}, plain: []string{`stdbuf -oL ls`, `stdbuf -o L ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`stdbuf -o0 rm f`}},
	"ionice":  {risky: []string{`ionice -c 3 touch x`}, plain: []string{`ionice -c 3 ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`ionice -c3 rm f`}},
	"setsid":  {risky: []string{`setsid touch x`}, plain: []string{`setsid -w ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`setsid rm f`}},
	"time":    {risky: []string{`time -o out ls`, `/usr/bin/time touch x`}, plain: []string{`/usr/bin/time -f %e ls`}, rule: "bash(/usr/bin/time:*)", extra: []string{"bash(ls:*)"}, throughDeny: []string{`/usr/bin/time rm f`}},
	"command": {risky: []string{`command touch x`, `builtin eval "$C"`, `exec touch x`}, plain: []string{`command -v rm`, `command ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`command rm f`, `builtin eval 'rm f'`, `exec rm f`, `command eval "$C"`}},
	"busybox": {risky: []string{`busybox touch x`, `busybox sh`}, plain: []string{`busybox ls`}, extra: []string{"bash(ls:*)"}, throughDeny: []string{`busybox rm f`, `echo rm f | busybox sh`}},
	"sudo":    {risky: []string{`sudo ls`, `sudo -u root ls`, `doas ls`, `chroot / ls`}, throughDeny: []string{`sudo rm f`, `sudo -u root rm f`, `echo rm f | sudo sh`, `unshare -r rm f`}},
	"watch":   {risky: []string{`watch ls`, `parallel ls ::: a`, `socat - EXEC:ls`, `gdb -batch -ex 'shell touch x'`}, throughDeny: []string{`watch 'rm f'`, `parallel rm ::: f`}},
	"script":  {risky: []string{`script -c 'touch x' /dev/null`, `script -q /dev/null`}, throughDeny: []string{`script -qc 'rm f' /dev/null`, `echo rm f | script -q /dev/null`}},
	"at":      {risky: []string{`at now`, `echo touch x | batch`}, plain: []string{`at -l`}, throughDeny: []string{`echo rm f | at now`}},
	"crontab": {risky: []string{`crontab file`, `crontab -`}, plain: []string{`crontab -l`}, throughDeny: []string{`echo '* * * * * rm f' | crontab -`}},
	"python": {risky: []string{`python3 -c 'import os; os.system("touch x")'`, `python3`, `python3 -`, `node -e 'x'`, `node --eval=x`, `perl -ne 'system q(touch x)'`, `perl -e 1`, `ruby -e 'x'`, `php -r 'x;'`, `echo x | perl`, `pwsh -c x`, `osascript -e x`},
		plain:       []string{`python3 script.py`, `python3 -m pytest -q`, `python3 --version`, `node app.js`, `perl script.pl`},
		throughDeny: []string{`python3 -c 'import os; os.system("rm f")'`, `echo 'rm f' | perl`, `echo 'import os; os.remove("f")' | python3`}},
	"deno": {risky: []string{`deno eval 'x'`, `bun -e 'x'`, `deno`, `bun x pkg`}, plain: []string{`deno run main.ts`, `deno test`}, throughDeny: []string{`deno eval 'Deno.removeSync("f")'`}},
	"tar": {risky: []string{`tar -xf a.tar --to-command='touch x'`, `tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='touch x' .`, `tar -I 'touch x' -cf a.tar .`, `tar --use-compress-program=x -cf a.tar .`, `tar cIf x a.tar .`, `tar -cf a.tar *`, `tar -cf a.tar "$files"`},
		plain: []string{`tar -czf a.tgz src`, `tar -xf a.tar`, `tar tf a.tar`}, throughDeny: []string{`tar -xf a.tar --to-command='rm f'`}},
	"zip":   {risky: []string{`zip a.zip f -T -TT 'touch x'`, `zip a.zip f -T --unzip-command=x`}, plain: []string{`zip -r a.zip src`}, throughDeny: []string{`zip a.zip f -T -TT 'rm f'`}},
	"rsync": {risky: []string{`rsync -e 'touch x' a b:`, `rsync --rsh=x a b:`, `rsync -avze x a b:`, `rsync --rsync-path='touch x' a b:`}, plain: []string{`rsync -av src/ dst/`}, throughDeny: []string{`rsync -e 'rm f' a b:`}},
	"ssh": {risky: []string{`ssh -o ProxyCommand='touch x' h`, `ssh -oLocalCommand=x -oPermitLocalCommand=yes h`, `ssh -F cfg h`, `scp -S prog a h:`, `scp -o ProxyCommand=x a h:`},
		plain: []string{`ssh host uptime`, `scp a host:b`}, throughDeny: []string{`ssh -o ProxyCommand='rm f' h`}},
	"less": {risky: []string{`less '+!touch x' f`, `more +'!touch x' f`, `less -k keys f`}, plain: []string{`less f`, `less -R f`}, throughDeny: []string{`less '+!rm f' f`}},
	"man":  {risky: []string{`man -P 'touch x' ls`, `man --pager=x ls`, `man -H ls`}, plain: []string{`man ls`}, throughDeny: []string{`man -P 'rm f' ls`}},
	"vi":   {risky: []string{`vim -c '!touch x' f`, `vi f`, `emacs --batch --eval x`}, throughDeny: []string{`vim -c '!rm f' -c q f`}},
	"ed":   {risky: []string{`ed f`, `ex f`, `echo '!touch x' | ed`}, throughDeny: []string{`echo '!rm f' | ed`}},
	"make": {risky: []string{`make -f /dev/stdin`, `make -f - all`, `make --eval='x: ; touch x' x`, `make SHELL=/tmp/sh`, `make -f other.mk`, `make -C /tmp`},
		plain: []string{`make`, `make test`, `make -j4 build`}, throughDeny: []string{`echo 'x: ; rm f' | make -f - x`, `make --eval='x: ; rm f' x`}},
	"npx":    {risky: []string{`npx cowsay`, `bunx x`, `pnpx x`}, throughDeny: []string{`npx rimraf f`}},
	"npm":    {risky: []string{`npm exec cowsay`, `npm x cowsay`, `pnpm dlx x`, `npm -c 'touch x' exec`, `npm config set script-shell /tmp/x`, `npm run build --script-shell=/tmp/x`}, plain: []string{`npm run build`, `npm test`, `npm install`}, throughDeny: []string{`npm exec -c 'rm f'`}},
	"go":     {risky: []string{`go generate ./...`, `go test -exec 'touch x' ./...`, `go build -toolexec=x ./...`, `go vet -vettool=x ./...`, `go env -w GOFLAGS=-toolexec=x`, `go tool x`}, plain: []string{`go test ./...`, `go build ./...`, `go run .`, `go env GOPATH`}, throughDeny: []string{`go test -exec 'rm f' ./...`, `go generate ./...`}},
	"docker": {risky: []string{`docker run -v /:/h alpine touch /h/x`, `docker exec c touch x`, `docker build .`, `podman run x`}, plain: []string{`docker ps`, `docker images`, `docker logs c`}, throughDeny: []string{`docker run alpine rm f`}},
	"nc":     {risky: []string{`nc -e /bin/sh h 1`, `ncat --sh-exec 'touch x' h 1`, `nc -c x h 1`}, plain: []string{`nc -z h 80`}, throughDeny: []string{`nc -e /bin/rm h 1`}},
	"sort":   {risky: []string{`sort -o out f`, `sort --compress-program=x f`, `sort -uo out f`, `sort -nro out f`}, plain: []string{`sort -u f`, `sort -k2 -n f`}, throughDeny: []string{`sort --compress-program=rm f`}},
	"rg":     {risky: []string{`rg --pre 'touch' x`, `rg --pre=x y`, `rg --hostname-bin=x y`, `rg -z y`}, plain: []string{`rg -n foo`, `rg --files`}, throughDeny: []string{`rg --pre rm x`}},
	"fd":     {risky: []string{`fd -x touch`, `fd . --exec-batch touch`}, plain: []string{`fd -e go`}, throughDeny: []string{`fd -x rm`}},
	"sqlite3": {risky: []string{`sqlite3 db '.shell touch x'`, `sqlite3 db`, `sqlite3 -cmd '.system x' db 'select 1'`, `sqlite3 db '.output f' 'select 1'`}, plain: []string{`sqlite3 db 'select 1'`},
		throughDeny: []string{`sqlite3 db '.shell rm f'`, `echo '.shell rm f' | sqlite3 db`}},
	"test": {risky: []string{`test -v 'a[$(touch x)]'`, `[ -v 'a[$(touch x)]' ]`, `test "$op" "$x"`, `test $x`, `[ -R "$n" ]`}, plain: []string{`test -f x`, `[ -d . ]`, `test "$x" = y`, `[ -n "$HOME" ]`, `test -v HOME`, `[ "$a" -eq 1 ]`},
		throughDeny: []string{`test -v 'a[$(rm f)]'`}},
	"trap":     {risky: []string{`trap 'touch x' EXIT`, `trap "$C" EXIT`}, plain: []string{`trap - EXIT`, `trap -p`, `trap '' INT`}, throughDeny: []string{`trap 'rm f' EXIT`}},
	"alias":    {risky: []string{`alias x=touch`}, plain: []string{`alias`}, throughDeny: []string{`shopt -s expand_aliases; alias x=rm; x f`}},
	"shopt":    {risky: []string{`shopt -s expand_aliases`, `shopt -s "$o"`}, plain: []string{`shopt -s globstar`, `shopt nullglob`}, throughDeny: []string{"shopt -s expand_aliases\nalias x='rm f'\nx"}},
	"enable":   {risky: []string{`enable -f ./x.so x`}, plain: []string{`enable -n test`}, throughDeny: []string{`enable -f ./rm.so rm`}},
	"complete": {risky: []string{`compgen -C 'touch x' w`, `compgen -F f w`, `complete -C x y`}, plain: []string{`compgen -c ls`}, throughDeny: []string{`compgen -C 'rm f' w`}},
	"mapfile":  {risky: []string{`mapfile -C 'touch x' a < f`, `mapfile 'a[$(touch x)]' < f`, `readarray -t "$n" < f`}, plain: []string{`mapfile -t lines < f`, `readarray -t a < f`}, throughDeny: []string{`mapfile -C 'rm f' -c 1 a < f`}},
	"read":     {risky: []string{`read 'a[$(touch x)]'`, `read -a 'a[$(touch x)]'`, `read "$n"`}, plain: []string{`read -r line`, `read -r -p 'name: ' a b`, `read -ra parts`}, throughDeny: []string{`read 'a[$(rm f)]' <<< 1`}},
	"printf":   {risky: []string{`printf -v 'a[$(touch x)]' x`, `printf -va[$(touch x)] x`, `printf "$o" x`}, plain: []string{`printf -v out '%s' x`, `printf '%s\n' a`, `printf -- '-v %s' x`}, throughDeny: []string{`printf -v 'a[$(rm f)]' x`}},
	"unset":    {risky: []string{`unset 'a[$(touch x)]'`, `getopts ab 'a[$(touch x)]'`, `wait -p 'a[$(touch x)]'`}, plain: []string{`unset x y`, `unset -f f`, `getopts ab opt`}, throughDeny: []string{`unset 'a[$(rm f)]'`}},
	"declare":  {risky: []string{`builtin declare 'a[$(touch x)]=1'`, `command declare -i n=1`, `builtin export PATH=/tmp`}, plain: []string{`builtin declare -x A=1`}, rule: "bash(builtin:*)", extra: []string{"bash(declare:*)"}, throughDeny: []string{`builtin declare 'a[$(rm f)]=1'`}},
	"hash":     {risky: []string{`hash -p /bin/touch ls`}, plain: []string{`hash -r`}, throughDeny: []string{`hash -p /bin/rm ls; ls f`}},
	"fc":       {risky: []string{`fc -s`, `bind -x '"a":touch x'`}, throughDeny: []string{`fc -s rm`}},
	"let":      {risky: []string{`builtin let 'a[$(touch x)]'`, `command let x=1`}, rule: "bash(builtin:*)", throughDeny: []string{`builtin let 'a[$(rm f)]'`}},
}

// programExampleLines are every example, for the fuzz seeds.
func programExampleLines() []string {
	var out []string
	for _, e := range programExamples {
		out = append(append(append(out, e.risky...), e.plain...), e.throughDeny...)
	}
	return out
}

// Each entry of the programs table: a prefix rule of the program does not
// cover its forms that run other programs or write files, does cover its
// plain forms, and a deny rule on rm sees through it (or asks).
func TestEachProgramsTableEntryKeepsPrefixRulesOffItsDangerousForms(t *testing.T) {
	for _, p := range programTable() {
		ex, ok := programExamples[p.names[0]]
		if !ok {
			t.Errorf("programs table entry %v has no examples in programExamples", p.names)
			continue
		}
		t.Run(p.names[0], func(t *testing.T) {
			if len(ex.risky) == 0 || len(ex.throughDeny) == 0 && !ex.writesOnly {
				t.Fatalf("entry %v needs risky and throughDeny examples", p.names)
			}
			for _, line := range append(append(append([]string{}, ex.risky...), ex.plain...), ex.throughDeny...) {
				if _, err := splitCommands(line); err != nil {
					t.Fatalf("example %q does not parse: %v", line, err)
				}
			}
			for _, line := range ex.risky {
				rule := ex.rule
				if rule == "" {
					rule = "bash(" + firstName(line) + ":*)"
				}
				g := mustGate(t, Default, append([]string{rule}, ex.extra...), nil)
				if d, decided := g.Check(bashReq(line)); decided && d.Allow {
					t.Errorf("%q was allowed by %s", line, rule)
				}
			}
			for _, line := range ex.plain {
				rule := ex.rule
				if rule == "" {
					rule = "bash(" + firstName(line) + ":*)"
				}
				g := mustGate(t, Plan, append([]string{rule}, ex.extra...), nil)
				if d, decided := g.Check(bashReq(line)); !decided || !d.Allow {
					t.Errorf("%q was not allowed by %s %v: %s", line, rule, ex.extra, d.Reason)
				}
			}
			for _, line := range ex.throughDeny {
				g := mustGate(t, BypassPermissions, []string{"bash"}, []string{"bash(rm:*)"})
				if d, decided := g.Check(bashReq(line)); decided && d.Allow {
					t.Errorf("%q was allowed with bash(rm:*) denied", line)
				}
			}
		})
	}
}

// Every programExamples entry names a programs table entry, so an example
// cannot stand for a check nobody wrote.
func TestEveryProgramExampleHasAProgramsTableEntry(t *testing.T) {
	for name := range programExamples {
		if _, ok := programIndex.Get()[name]; !ok {
			t.Errorf("programExamples has %q, which the programs table lacks", name)
		}
	}
}

func firstName(line string) string {
	f := strings.Fields(line)
	for len(f) > 1 && (f[0] == "echo" || f[0] == "|") {
		if i := strings.Index(line, "| "); i >= 0 {
			return firstName(line[i+2:])
		}
		break
	}
	return path.Base(f[0])
}

func mustGate(t *testing.T, mode Mode, allowed, denied []string) *Gate {
	t.Helper()
	g, err := NewGate(Options{Mode: mode, Allowed: allowed, Disallowed: denied})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
