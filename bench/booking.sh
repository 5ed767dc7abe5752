#!/usr/bin/env bash
# Bookings on SQLite and PostgreSQL, one at a time, with the dev mailbox
# and the shipped mail and pending ceilings (staff confirm each booking
# outside the time measured):
#  1. confirmed bookings per second (start with its code email, then
#     confirm with its hold and notices) as a ratio to one raw single-row
#     commit on the same engine, interleaved in the same run, with the store
#     calls and commits a booking makes;
#  2. flat with history: the median time of the last tenth of 2,000
#     consecutive bookings on one store against that of the first tenth;
#  3. on PostgreSQL, bookings by different guests at the three properties
#     eight at a time against one at a time, each pair run back to back,
#     with the process's CPU per wall second and the transactions refused
#     by contention per booking.
# Every figure is the median over COUNT runs.
# Usage: FRONTDESK_TEST_POSTGRES=postgres://... bench/booking.sh [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
: "${FRONTDESK_TEST_POSTGRES:?set FRONTDESK_TEST_POSTGRES to a PostgreSQL URL}"
out=$(go test ./booking -run '^$' -bench 'ConfirmedBookings' -benchtime 300x -count "$count"
	go test ./booking -run '^$' -bench 'History' -benchtime 1x -count "$count" -timeout 60m)
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  /^Benchmark(ConfirmedBookings|History)\// {
    split($1, parts, "/"); engine = parts[2]; kind = parts[3]; sub(/-[0-9]+$/, "", engine); sub(/-[0-9]+$/, "", kind)
    if ($1 ~ /^BenchmarkHistory/) kind = "history"
    for (i = 2; i < NF; i++) v[engine "/" kind "/" $(i+1)] = v[engine "/" kind "/" $(i+1)] " " $i
    engines[engine] = 1
  }
  END {
    printf "\n%-10s %14s %12s %8s %16s %14s\n", "engine", "raw commits/s", "bookings/s", "ratio", "commits/booking", "calls/booking"
    for (e in engines) {
      raw = median(v[e "/raw_commit/commits/s"]); b = median(v[e "/booking/bookings/s"])
      if (raw > 0) printf "%-10s %14.0f %12.1f %8.3f %16.1f %14.1f\n", e, raw, b, b / raw, median(v[e "/booking/commits/booking"]), median(v[e "/booking/calls/booking"])
    }
    printf "\n%-10s %16s %16s %12s\n", "engine", "first tenth ms", "last tenth ms", "last/first"
    for (e in engines) if (v[e "/history/last/first"] != "")
      printf "%-10s %16.2f %16.2f %12.3f\n", e, median(v[e "/history/first_ms"]), median(v[e "/history/last_ms"]), median(v[e "/history/last/first"])
  }'
for _ in $(seq "$count"); do
	go test ./booking -run '^$' -bench 'ParallelBookings' -benchtime 200x -count 1 | grep '^Benchmark'
done | awk '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { print }
  /\/1-/ { one = $5; onecpu = onecpu " " $9 }
  /\/8-/ { ratios = ratios " " $5 / one; eight = eight " " $5; cpu = cpu " " $9; conflicts = conflicts " " $7 }
  END {
    printf "\npostgres 8 at a time / 1 at a time: %.2f (8 at a time %.1f bookings/s, cpu/wall %.2f against %.2f, %.3f conflicts/booking)\n",
      median(ratios), median(eight), median(cpu), median(onecpu), median(conflicts)
  }'
