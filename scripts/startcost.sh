#!/usr/bin/env bash
# Prints what each third-party module costs every atomic process at start:
# the resident memory its packages' init code pages in (Go runs the init of
# every linked package in every process, and each first touch of the binary
# maps 64 KB or more of it). Measured leave-one-out: a program importing
# every third-party package Atomic's own packages import, and nothing else,
# against the same program without one module's packages. Peak RSS through
# the peakrss shim (its own ru_maxrss is a few MB: a child's is its own);
# medians of 15 runs each. Differences under ~1 MB are noise on a busy
# machine (a module can read as negative): run it idle.
#   bash scripts/startcost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
probe=./startcost-probe.tmp
trap 'rm -rf "$dir" "$probe"' EXIT
main=$(go list -m)
go build -o "$dir/shim" ./internal/testkit/peakrss/shim

# The third-party packages Atomic's own packages (those linked into atomic)
# import directly, with their modules.
go list -deps -f '{{if .Module}}{{if eq .Module.Path "'"$main"'"}}{{join .Imports "\n"}}{{end}}{{end}}' ./cmd/atomic |
  sort -u >"$dir/imports"
go list -f '{{if .Module}}{{if ne .Module.Path "'"$main"'"}}{{.ImportPath}} {{.Module.Path}}{{end}}{{end}}' $(cat "$dir/imports") >"$dir/third"

# peak IMPORT... prints the median peak RSS (KB) of a program importing them.
peak() {
  mkdir -p "$probe"
  { echo 'package main'; echo 'import ('; for p in "$@"; do echo "	_ \"$p\""; done; echo ')'; echo 'func main() {}'; } >"$probe/main.go"
  go build -o "$dir/probe" "$probe" >&2
  for _ in $(seq 15); do
    "$dir/shim" -out "$dir/r.json" -- "$dir/probe"
    grep -o '"max_rss_kb":[0-9]*' "$dir/r.json" | cut -d: -f2
  done | sort -n | sed -n 8p
}

all=$(awk '{print $1}' "$dir/third")
base=$(peak)
full=$(peak $all)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k / 1024 }'; }
printf '%-50s %9s\n' "an empty Go program" "$(mb "$base")"
printf '%-50s %9s\n' "every third-party package atomic imports" "$(mb "$full")"
echo "each module's cost (the full set's peak less the peak without it):"
for mod in $(awk '{print $2}' "$dir/third" | sort -u); do
  rest=$(awk -v m="$mod" '$2 != m {print $1}' "$dir/third")
  without=$(peak $rest)
  printf '  %-48s %9s\n' "$mod" "$(mb $((full - without)))"
done | sort -k2 -rn
