#!/usr/bin/env bash
# Bookings on SQLite and PostgreSQL with the dev mailbox and the shipped
# mail and pending ceilings (staff confirm each booking outside the time
# measured):
#  1. confirmed bookings per second (start with its code email, then
#     confirm with its hold and notices) as a ratio to one raw single-row
#     commit on the same engine, interleaved in the same run (the ratio
#     is the median of the runs' ratios), with the store calls and commits
#     a booking makes;
#  2. flat with history: the median time of the last tenth of 2,000
#     consecutive bookings on one store against that of the first tenth;
#  3. on PostgreSQL, bookings by different guests at the three properties
#     eight at a time against one at a time, each pair run back to back,
#     with the process's CPU per wall second and the transactions refused
#     by contention per booking.
# Every figure is the median over COUNT runs. With BASE set to another
# checkout of this module (the baseline, say `git worktree add /tmp/base
# main`), each run is made for both trees, alternating which goes first,
# and the medians of both are printed side by side.
# Each test binary is built once and run COUNT times, one process per run,
# so no run inherits the memory or the connections of the one before.
# PARTS picks among the three parts (default "bookings history parallel").
# Usage: FRONTDESK_TEST_POSTGRES=postgres://... [BASE=dir] [PARTS=...] bench/booking.sh [COUNT]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
parts=" ${PARTS:-bookings history parallel} "
: "${FRONTDESK_TEST_POSTGRES:?set FRONTDESK_TEST_POSTGRES to a PostgreSQL URL}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

trees=(new)
go test -c -o "$tmp/new.test" ./booking
if [[ -n "${BASE:-}" ]]; then
	trees=(base new)
	(cd "$BASE" && go test -c -o "$tmp/base.test" ./booking)
fi

# run TREE ARGS... runs one benchmark process of TREE in booking/ (where
# the tests expect to run) and tags every result line with the tree. A
# failed benchmark is reported and leaves out its line, not the run.
run() {
	local tree=$1
	shift
	(cd booking && "$tmp/$tree.test" -test.run '^$' "$@" || echo "$tree $* failed" >&2) |
		{ grep '^Benchmark' || true; } | { grep -v -- '--- FAIL' || true; } | sed "s/^/$tree /"
}

for i in $(seq "$count"); do
	order=("${trees[@]}")
	if ((i % 2 == 0)) && ((${#trees[@]} == 2)); then order=(new base); fi
	if [[ $parts == *" bookings "* ]]; then
		for tree in "${order[@]}"; do run "$tree" -test.bench 'ConfirmedBookings' -test.benchtime 300x; done
	fi
	if [[ $parts == *" history "* ]]; then
		for tree in "${order[@]}"; do run "$tree" -test.bench 'History' -test.benchtime 1x -test.timeout 60m; done
	fi
	if [[ $parts == *" parallel "* ]]; then
		for tree in "${order[@]}"; do run "$tree" -test.bench 'ParallelBookings' -test.benchtime 200x; done
	fi
done | tee "$tmp/out"

awk '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  # add appends the value before each unit on the line to v[tree/name/unit].
  function add(tree, name,   i) { for (i = 4; i < NF; i++) if ($(i+1) !~ /^[0-9.]+$/ && $i ~ /^[0-9.]+$/) v[tree "/" name "/" $(i+1)] = v[tree "/" name "/" $(i+1)] " " $i }
  {
    tree = $1; trees[tree] = 1
    split($2, parts, "/"); sub(/-[0-9]+$/, "", parts[2]); sub(/-[0-9]+$/, "", parts[3])
    if ($2 ~ /^BenchmarkConfirmedBookings/) {
      add(tree, parts[2] "/" parts[3]); engines[parts[2]] = 1
      # The ratio is taken within each run, whose raw commits ran just before its bookings.
      if (parts[3] == "raw_commit") rawc[tree "/" parts[2]] = $6
      if (parts[3] == "booking") share[tree "/" parts[2]] = share[tree "/" parts[2]] " " $6 / rawc[tree "/" parts[2]]
    }
    if ($2 ~ /^BenchmarkHistory/) add(tree, parts[2] "/history")
    if ($2 ~ /^BenchmarkParallelBookings/) {
      add(tree, "parallel/" parts[3])
      if (parts[3] == "1") one[tree] = $6
      if (parts[3] == "8") ratios[tree] = ratios[tree] " " $6 / one[tree]
    }
  }
  END {
    printf "\n%-5s %-10s %14s %12s %8s %16s %14s\n", "tree", "engine", "raw commits/s", "bookings/s", "ratio", "commits/booking", "calls/booking"
    for (t in trees) for (e in engines) {
      raw = median(v[t "/" e "/raw_commit/commits/s"]); b = median(v[t "/" e "/booking/bookings/s"])
      if (raw > 0) printf "%-5s %-10s %14.0f %12.1f %8.3f %16.1f %14.1f\n", t, e, raw, b, median(share[t "/" e]), median(v[t "/" e "/booking/commits/booking"]), median(v[t "/" e "/booking/calls/booking"])
    }
    printf "\n%-5s %-10s %16s %16s %12s\n", "tree", "engine", "first tenth ms", "last tenth ms", "last/first"
    for (t in trees) for (e in engines) if (v[t "/" e "/history/last/first"] != "")
      printf "%-5s %-10s %16.2f %16.2f %12.3f\n", t, e, median(v[t "/" e "/history/first_ms"]), median(v[t "/" e "/history/last_ms"]), median(v[t "/" e "/history/last/first"])
    printf "\n%-5s %-28s %12s %12s %10s %10s %18s\n", "tree", "postgres 8 at a time / 1", "1: book/s", "8: book/s", "1: cpu", "8: cpu", "8: conflicts/book"
    for (t in trees) if (ratios[t] != "")
      printf "%-5s %-28.2f %12.1f %12.1f %10.2f %10.2f %18.3f\n", t, median(ratios[t]), median(v[t "/parallel/1/bookings/s"]), median(v[t "/parallel/8/bookings/s"]),
        median(v[t "/parallel/1/cpu/wall"]), median(v[t "/parallel/8/cpu/wall"]), median(v[t "/parallel/8/conflicts/booking"])
  }' "$tmp/out"
