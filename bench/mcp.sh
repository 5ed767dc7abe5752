#!/usr/bin/env bash
# MCP read-tool throughput as a ratio to a bare go-sdk echo tool measured
# in the same run, the median latency of each call, and its CPU time
# (client and server share the process) with the echo's CPU time per call
# as a ratio to it. Each run measures the echo baseline and then every
# call, so baseline and subject runs interleave and a drift of the machine
# hits both. Usage:
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
      if ($(i+1) == "cpu-µs/call") cpu[name] = cpu[name] " " $i
    }
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    base = median(rate["echo"]); basecpu = median(cpu["echo"])
    printf "\n%-40s %8s %7s %10s %12s %10s\n", "call", "calls/s", "ratio", "median ms", "cpu-µs/call", "cpu ratio"
    for (name in rate) printf "%-40s %8.0f %7.2f %10.3f %12.0f %10.2f\n", name, median(rate[name]), median(rate[name]) / base, median(lat[name]), median(cpu[name]), basecpu / median(cpu[name])
  }'
