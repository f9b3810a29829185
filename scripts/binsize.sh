#!/usr/bin/env bash
# Prints what each module costs in the atomic binary (CGO_ENABLED=0), largest
# first, with the unstripped and stripped (-ldflags='-s -w') totals.
#   bash scripts/binsize.sh               # top 30 modules
#   bash scripts/binsize.sh -n 0          # every module
#   bash scripts/binsize.sh -packages     # per package instead
# Columns: stripped = text + data + pcln (the pclntab and funcdata, spread by
# code size: an estimate); unstripped adds the symbol-table entries. DWARF and
# type descriptors/strings (no symbols of their own) are totals only.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export CGO_ENABLED=0
go build -o "$dir/atomic" ./cmd/atomic
go build -ldflags='-s -w' -o "$dir/atomic-stripped" ./cmd/atomic
go list -deps -f '{{.ImportPath}} {{if .Module}}{{.Module.Path}}{{else}}std{{end}}' ./cmd/atomic >"$dir/pkgs"
go run ./scripts/binsize -bin "$dir/atomic" -stripped "$dir/atomic-stripped" -pkgs "$dir/pkgs" \
  -main "$(go list -m)" "$@"
