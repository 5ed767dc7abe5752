#!/usr/bin/env bash
# Confirmed bookings per second (start with its code email, then confirm
# with its hold and notices, dev mailbox) on SQLite and PostgreSQL, as a
# ratio to one raw single-row commit on the same engine in the same run.
# Each run measures the raw commit and then the bookings, so baseline and
# subject runs interleave.
# Usage: FRONTDESK_TEST_POSTGRES=postgres://... bench/booking.sh [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
: "${FRONTDESK_TEST_POSTGRES:?set FRONTDESK_TEST_POSTGRES to a PostgreSQL URL}"
bin=$(mktemp -d)/booking.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./booking
out=$(cd booking && for _ in $(seq "$count"); do "$bin" -test.run '^$' -test.bench 'ConfirmedBookings' -test.benchtime 300x; done)
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkConfirmedBookings\// {
    split($1, parts, "/"); engine = parts[2]; kind = parts[3]; sub(/-[0-9]+$/, "", kind)
    for (i = 2; i <= NF; i++) if ($(i+1) == "commits/s" || $(i+1) == "bookings/s") rate[engine "/" kind] = rate[engine "/" kind] " " $i
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "\n%-10s %14s %12s %8s\n", "engine", "raw commits/s", "bookings/s", "ratio"
    for (e in rate) {
      split(e, p, "/"); if (p[2] != "booking") continue
      raw = median(rate[p[1] "/raw_commit"]); b = median(rate[e])
      printf "%-10s %14.0f %12.1f %8.3f\n", p[1], raw, b, b / raw
    }
  }'
