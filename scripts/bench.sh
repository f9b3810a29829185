#!/usr/bin/env bash
# Runs the budgeted benchmarks and prints each figure beside its budget.
# Exits 1 when any figure is over budget (after printing them all).
set -euo pipefail
cd "$(dirname "$0")/.."
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(mktemp)
bin=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$bin"' EXIT

# The Claude Code figures need the CLI: ATOMIC_TEST_CLAUDE, else the copy
# .ci/run installs, if there.
cli="${XDG_CACHE_HOME:-$HOME/.cache}/atomic-ci/claude-code-2.1.330/node_modules/.bin/claude"
if [ -z "${ATOMIC_TEST_CLAUDE:-}" ] && [ -x "$cli" ]; then export ATOMIC_TEST_CLAUDE="$cli"; fi
# The Codex figures need the pinned CLI (.ci/run installs it there).
codex_bin="${XDG_CACHE_HOME:-$HOME/.cache}/atomic-ci/codex-0.169.0/node_modules/.bin/codex"
if [ -z "${ATOMIC_TEST_CODEX:-}" ] && [ -x "$codex_bin" ]; then export ATOMIC_TEST_CODEX="$codex_bin"; fi

go test -run '^$' -bench 'EncodeStreamJSON' ./internal/event >>"$out"
go test -run '^$' -bench 'CodexAdapterThroughBus' ./internal/backend/codex >>"$out"
go test -run '^$' -bench 'Reducer' ./internal/lifecycle >>"$out"
go test -run '^$' -bench 'BusThroughput' ./internal/bus >>"$out"
go test -run '^$' -bench 'AppendEvents' -benchtime 100000x ./internal/store >>"$out"
go test -run '^$' -bench '^BenchmarkFirstRunIntoANewStore$' -benchtime 200x ./internal/store >>"$out"
go test -run '^$' -bench 'ClaudeAdapter' ./internal/backend/claudecode >>"$out"
go test -run '^$' -bench 'WorktreeCreate' -benchtime 10x ./internal/worktree >>"$out"
# Every backend on the same one-answer prompt (those whose CLI is installed;
# .ci/run installs them all).
oc_bin="${XDG_CACHE_HOME:-$HOME/.cache}/atomic-ci/opencode-1.18.33/node_modules/.bin/opencode"
if [ -z "${ATOMIC_TEST_OPENCODE:-}" ] && [ -x "$oc_bin" ]; then export ATOMIC_TEST_OPENCODE="$oc_bin"; fi
cp_bin="${XDG_CACHE_HOME:-$HOME/.cache}/atomic-ci/copilot-1.0.102/node_modules/.bin/copilot"
if [ -z "${ATOMIC_TEST_COPILOT:-}" ] && [ -x "$cp_bin" ]; then export ATOMIC_TEST_COPILOT="$cp_bin"; fi
# Memory and CPU are each atomic process's own, measured through a small
# shim that starts it (internal/testkit/peakrss): a child of the test
# process would read the test process's own high-water mark.
# Issue 22's one-answer figures (S1): medians of 21 runs.
go test -run '^$' -bench '^Benchmark(OneAnswer|OneAnswerFloor|OneAnswerOpenAI|RunHelp)$' -benchtime 21x ./e2e >>"$out"
# The fan-outs take seconds each: medians of 3 runs.
go test -run '^$' -bench '^Benchmark(FanOut3x2s|100Subagents|1000Subagents|Nested1000As10x100|NATSFanOut1000x1s)$' -benchtime 3x ./e2e >>"$out"
go test -run '^$' -bench . -skip 'OneAnswer|RunHelp|FanOut3x2s|100Subagents|1000Subagents|Nested1000As10x100|NATSFanOut1000x1s|ClaudeOverhead|CodexAddedWallTime|StoreStartCost' -benchtime 5x ./e2e >>"$out"
# The stripped binary's size.
CGO_ENABLED=0 go build -ldflags='-s -w' -o "$bin/atomic" ./cmd/atomic
echo "BenchmarkStrippedBinary 1 $(stat -c %s "$bin/atomic" | awk '{ printf "%.1f", $1 / 1048576 }') MB-stripped" >>"$out"
# The added wall time over a CLI alone is the median of back-to-back pairs
# whose CLI runs vary by hundreds of ms: 11 pairs, not 5.
go test -run '^$' -bench '^Benchmark(ClaudeOverhead|CodexAddedWallTime)$' -benchtime 11x ./e2e >>"$out"
# The session store's start cost is a fraction of a ms beside a 12 ms start:
# the median of 41 alternating pairs.
go test -run '^$' -bench '^BenchmarkStoreStartCost$' -benchtime 41x ./e2e >>"$out"
# Three stdio MCP servers against none: the median of 21 back-to-back pairs.
go test -run '^$' -bench '^BenchmarkMCPStartCost$' -benchtime 21x ./internal/runtime >>"$out"
go test -run '^$' -bench 'Bash(Sandboxed|Unsandboxed|SandboxCost)$' -benchtime 500x ./internal/tools >>"$out"
go test -run '^$' -bench '^BenchmarkGateBashCall$' ./internal/permission >>"$out"
# Compaction of a 185k-token history on the loopback: medians of 21 turns.
go test -run '^$' -bench '^BenchmarkCompactionAddedTime$' -benchtime 21x ./internal/backend/native >>"$out"
go test -run '^$' -bench '^BenchmarkGitGuardCheck$' ./internal/sandbox >>"$out"
go test -run '^$' -bench . ./internal/ui >>"$out" 2>/dev/null || echo "(ui benchmarks unavailable)" >&2

# figure NAME UNIT OP BUDGET LABEL: prints the metric UNIT of benchmark NAME
# (ms/frame is read from ns/op) beside its budget.
figure() {
  local name=$1 unit=$2 op=$3 budget=$4 label=$5
  local v src=$unit scale=1
  if [ "$unit" = ms/frame ]; then src=ns/op; scale=1000000; fi
  v=$(awk -v n="^Benchmark$name(-[0-9]+)?\$" -v u="$src" -v k="$scale" '$1 ~ n { for (i = 2; i < NF; i++) if ($(i+1) == u) printf "%.3f\n", $i / k }' "$out" | tail -1)
  if [ -z "$v" ]; then printf '%-58s %14s\n' "$label" "not measured"; return; fi
  local ok
  ok=$(awk -v v="$v" -v b="$budget" -v op="$op" 'BEGIN { print ((op == "<" && v < b) || (op == ">" && v > b)) ? "ok" : "OVER BUDGET" }')
  printf '%-58s %14s %-10s budget %s %s  %s\n' "$label" "$v" "$unit" "$op" "$budget" "$ok"
  if [ "$ok" != ok ]; then over=$((over + 1)); fi
}

# info NAME UNIT LABEL: prints a figure that has no budget.
info() {
  local v
  v=$(awk -v n="^Benchmark$1(-[0-9]+)?\$" -v u="$2" '$1 ~ n { for (i = 2; i < NF; i++) if ($(i+1) == u) printf "%.1f\n", $i }' "$out" | tail -1)
  printf '%-58s %14s %s\n' "$3" "${v:-not measured}" "$2"
}

over=0

echo
echo "Load average (1, 5, 15 min) at the start: $load_start; at the end: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
echo
echo "Issue 22's table (S1: one headless answer, as a user starts it; medians)"
figure OneAnswer ms-wall '<' 25 "S1 (one answer) wall"
figure OneAnswer ms-to-first-request '<' 15 "S1 start to first model request"
figure OneAnswer MB-peak-tree-RSS '<' 25 "S1 peak RSS, whole process tree"
info OneAnswerFloor MB-peak-tree-RSS "  its floor: the same request by the Anthropic SDK alone"
info OneAnswerOpenAI ms-wall "  S1 on OpenAI (its SDK in atomic-openai): wall"
info OneAnswerOpenAI MB-peak-tree-RSS "  S1 on OpenAI: peak RSS, atomic and atomic-openai"
figure RunHelp ms-wall '<' 8 "atomic run --help"
figure OneAnswer ms-exit-after-answer '<' 5 "S1 exit after the last answer"
figure 100Subagents s-wall '<' 1.1 "100 sub-agents x 1 s: whole run"
figure 100Subagents MB-peak-RSS '<' 40 "100 sub-agents x 1 s: peak RSS (Atomic's process)"
figure 1000Subagents s-wall '<' 1.6 "1,000 sub-agents x 1 s, in process: whole run"
figure 1000Subagents MB-peak-RSS '<' 160 "1,000 sub-agents x 1 s: peak RSS (Atomic's process)"
figure 1000Subagents ms-CPU-per-agent '<' 0.8 "CPU per sub-agent (1,000-agent run, whole tree)"
# Issue 24: nesting and shells within 10% of the flat runs' budgets.
figure Nested1000As10x100 s-wall '<' 1.815 "1,000 agents as 10 parents x 100 children, 1 s: whole run"
info Nested1000As10x100 MB-peak-RSS "  its peak RSS (Atomic's process)"
info Nested1000As10x100 ms-CPU-per-agent "  its CPU per agent, whole tree (ms)"
figure BackgroundShells100x1s ms-wake-latency '<' 50 "a background shell's end to its agent's woken request"
figure BackgroundShells100x1s s-wall '<' 1.21 "100 background shells (sleep 1): whole run (s)"
info BackgroundShells100x1s MB-peak-RSS "100 background shells: peak RSS (Atomic's process)"
info BackgroundShells100x1s ms-CPU-per-shell "100 background shells: CPU per shell, whole tree (ms)"
info StrippedBinary MB-stripped "binary, stripped (each module's cost: scripts/binsize.sh; its resident memory at start: scripts/startcost.sh)"
figure FanOut3x2s KB-sent '<' 70 "bytes sent to the model, S2 fan-out (3 sub-agents)"
info OneAnswer KB-sent "bytes sent to the model, S1"
info 100Subagents KB-sent "bytes sent to the model, 100 sub-agents"
info 1000Subagents KB-sent "bytes sent to the model, 1,000 sub-agents"

echo
echo "Issue 23's table (3 sub-agents x 10 turns on the loopback, claude-sonnet-4-5 prices; caching off: ATOMIC_NO_PROMPT_CACHE=1)"
figure PromptCacheFanOut3x10 pct-input-from-cache '>' 80 "3x10 fan-out: share of input tokens read from cache (%)"
info PromptCacheFanOut3x10 pct-cost-of-uncached "3x10 fan-out: cost with caching, % of the same run without"
info PromptCacheFanOut3x10 mUSD-cached "3x10 fan-out: cost with caching (thousandths of a USD)"
info PromptCacheFanOut3x10 mUSD-uncached "3x10 fan-out: cost without caching (thousandths of a USD)"

echo
echo "Atomic benchmark figures"
figure OneAnswer MB-peak-RSS '<' 40 "S1: peak RSS of Atomic's largest process"
info 100Subagents MB-peak-tree-RSS "100 sub-agents: peak RSS, whole process tree"
info 1000Subagents MB-peak-tree-RSS "1,000 sub-agents: peak RSS, whole process tree"
figure EncodeStreamJSON events/s '>' 200000 "stream-json events encoded per second"
figure Reducer events/s '>' 1000000 "lifecycle reducer throughput"
info BusThroughput events/s "bus: events/s to 5 subscribers, each on its own queue"
figure FanOut3x2s s-wall '<' 2.2 "3 sub-agents answering after 2 s: whole run"
figure NATSFanOut1000x1s s-wall '<' 2.5 "1,000 sub-agents on 4 NATS workers, 1 s each: whole run"
figure NATSFanOut1000x1s MB-lead-peak-RSS '<' 150 "1,000 sub-agents on NATS workers: lead peak RSS (its own)"
figure NATSDispatchLatency ms-added-median '<' 5 "dispatch latency a NATS worker adds per task (median)"
figure ClaudeAdapterThroughBus events/s '>' 100000 "Claude Code adapter: captured stream through the bus"
figure ClaudeOverhead ms-added '<' 30 "Claude Code 3x2s fan-out: wall time Atomic adds (ms)"
figure ClaudeOverhead pct-added '<' 5 "Claude Code 3x2s fan-out: wall time Atomic adds (%)"
figure Tree50Agents/expanded=false ms/frame '<' 1 "render the agents tree with 50 agents (compact)"
figure Tree50Agents/expanded=true ms/frame '<' 1 "render the agents tree with 50 agents (expanded)"
figure Frame500Messages ms/frame '<' 5 "full frame of a 500-message transcript"
figure StartToFirstFrame ms/frame '<' 100 "UI model start to first frame (in process)"
figure CodexAdapterThroughBus events/s '>' 100000 "codex adapter events/s into the bus (v1 capture)"
figure CodexAddedWallTime ms-added '<' 30 "codex fan-out: atomic's added wall time over codex exec"
figure CodexAddedWallTime pct-added '<' 5 "codex fan-out: added wall time, percent"
figure AppendEvents events/s '>' 50000 "session store: events appended per second (sustained)"
figure StoreStartCost ms-added '<' 2 "session store on vs off: added start to first request"
figure MCPStartCost ms-added-over-handshake '<' 5 "3 stdio MCP servers: start to first request, added beyond the slowest handshake"
info MCPStartCost ms-to-first-request-none "MCP: start to first request, no server"
info MCPStartCost ms-to-first-request-3-stdio "MCP: start to first request, 3 stdio servers"
info MCPStartCost ms-slowest-handshake "MCP: the slowest server's own handshake"
figure WorktreeCreate ms/create '<' 150 "git worktree for an isolated sub-agent (this repository)"
info WorktreeCreate ms/filled "  the same, with its files written (during the first request)"
figure BashSandboxCost ms-added '<' 2 "bash call in the kernel sandbox vs unconfined: added time"
figure GateBashCall ms/call '<' 1 "permission gate: one 200-character bash call"
figure CompactionAddedTime ms-compaction '<' 20 "compaction step of the turn it triggers (185k tokens, loopback)"
info CompactionAddedTime ms-added-net "  that turn against the same turn not compacting (net)"
figure GitGuardCheck ms/check '<' 1 "git guard after each command (Atomic not root: no mount shields)"
info BashSandboxed ns/op "bash call running true, sandboxed"
info BashUnsandboxed ns/op "bash call running true, unsandboxed"
info AppendEvents KB-per-1000-events "session store: size per 1,000 events"
info FirstRunIntoANewStore ms/run "session store, first run: from a new store to the answer committed"

info ClaudeBackendOwnTime ms-to-cli-spawn "Claude Code backend, Atomic's own time: start to the CLI's spawn"
info ClaudeBackendOwnTime ms-answer-to-exit "Claude Code backend, Atomic's own time: answer to exit"

echo
echo "Backends on one prompt (no budget): time to first model request, peak RSS of the process tree"
for b in native claude-code codex opencode copilot; do
  info "BackendStart/$b" ms-to-first-request "$b: start to first model request"
  info "BackendStart/$b" MB-peak-tree-RSS "$b: peak RSS, Atomic and the CLI's whole tree"
done

if [ "$over" -gt 0 ]; then
  echo "$over figure(s) over budget" >&2
  exit 1
fi
