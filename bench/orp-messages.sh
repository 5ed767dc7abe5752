#!/usr/bin/env bash
# ORP messages per second through POST /orp on the real server over
# loopback HTTP (offer and accept, each a fresh id: validated, hashed and
# stored for idempotency), on SQLite and PostgreSQL, as a ratio to one raw
# single-row commit on the same engine in the same run. Usage:
#   FRONTDESK_TEST_POSTGRES=postgres://... bench/orp-messages.sh [COUNT]
#   (default 5 runs; medians across runs are reported)
# Each run measures the raw commit and then the messages on each engine,
# so baseline and subject runs interleave.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
: "${FRONTDESK_TEST_POSTGRES:?set FRONTDESK_TEST_POSTGRES to a PostgreSQL URL}"
bin=$(mktemp -d)/frontdesk.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./cmd/frontdesk
out=$(cd cmd/frontdesk && for _ in $(seq "$count"); do "$bin" -test.run '^$' -test.bench 'ORPMessages' -test.benchtime 2s; done)
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkORPMessages\// {
    split($1, parts, "/"); engine = parts[2]; kind = parts[3]; sub(/-[0-9]+$/, "", kind)
    for (i = 2; i <= NF; i++) if ($(i+1) == "commits/s" || $(i+1) == "msgs/s") rate[engine "/" kind] = rate[engine "/" kind] " " $i
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "\n%-10s %14s %10s %8s\n", "engine", "raw commits/s", "msgs/s", "ratio"
    for (e in rate) {
      split(e, p, "/"); if (p[2] != "offer_accept") continue
      raw = median(rate[p[1] "/raw_commit"]); m = median(rate[e])
      printf "%-10s %14.0f %10.1f %8.3f\n", p[1], raw, m, m / raw
    }
  }'
