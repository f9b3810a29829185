#!/usr/bin/env bash
# Runs Atomic's whole test suite on a fresh machine: installs what the tests
# need (tmux for the terminal tests), then vet and the race-enabled tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tmux >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing tmux for the terminal tests"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null
  else
    echo "warning: tmux is missing and cannot be installed here; the terminal tests will be skipped" >&2
  fi
fi

go vet ./...
go test -race -count=1 -timeout 20m ./...
