#!/usr/bin/env bash
# USP availability queries over MCP (/usp/mcp, 14 days of the demo's
# airport shuttle) and bookings (usp_bookings_create as the demo platform,
# a new shuttle slot each call) as a ratio to a bare go-sdk echo tool,
# both measured from outside by bench/usp-wrk.sh (ABBA, equal runtime
# settings, CPU per request); then the go-sdk's JSON work for one answer of the echo and of the
# query, split into the server's encoding and the client's decoding
# (BenchmarkMCPAnswer), which shows what an answer's size costs apart from
# the business logic. Usage:
#   bench/usp.sh [COUNT]    (default 5 runs; medians across runs are reported)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
bench/usp-wrk.sh "$count" 5 8 query
bench/usp-wrk.sh "$count" 3 8 create
out=$(go test ./cmd/frontdesk -run '^$' -bench MCPAnswer -benchmem -count "$count")
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkMCPAnswer\// {
    split($1, parts, "/"); sub(/-[0-9]+$/, "", parts[3]); name = parts[3] ", " parts[2]
    ns[name] = ns[name] " " $3
    for (i = 2; i <= NF; i++) if ($(i+1) == "wire-bytes") size[name] = $i
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "\n%-48s %10s %10s\n", "answer, side", "wire bytes", "median µs"
    for (name in ns) printf "%-48s %10d %10.1f\n", name, size[name], median(ns[name]) / 1000
  }' | { read -r; echo; read -r header; echo "$header"; sort; }
