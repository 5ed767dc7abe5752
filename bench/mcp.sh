#!/usr/bin/env bash
# MCP read-tool throughput as a ratio to a bare go-sdk echo tool measured
# in the same run, and the median latency of each call. Each run measures
# the echo baseline and then every call, so baseline and subject runs
# interleave and a drift of the machine hits both. Usage:
#   bench/mcp.sh [COUNT]    (default 5 runs; medians across runs are reported)
# CALLS, a regular expression, picks the calls to run (bench/usp.sh sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
bin=$(mktemp -d)/frontdesk.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./cmd/frontdesk
out=$(cd cmd/frontdesk && for _ in $(seq "$count"); do "$bin" -test.run '^$' -test.bench "MCPCalls/${CALLS:-}" -test.benchtime 2s; done)
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkMCPCalls\// {
    split($1, parts, "/"); name = parts[2]; sub(/-[0-9]+$/, "", name)
    for (i = 2; i <= NF; i++) {
      if ($(i+1) == "calls/s") rate[name] = rate[name] " " $i
      if ($(i+1) == "median-ms") lat[name] = lat[name] " " $i
    }
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    base = median(rate["echo"])
    printf "\n%-34s %10s %8s %10s\n", "call", "calls/s", "ratio", "median ms"
    for (name in rate) printf "%-34s %10.0f %8.2f %10.3f\n", name, median(rate[name]), median(rate[name]) / base, median(lat[name])
  }'
