#!/usr/bin/env bash
# What a chat booking costs PostgreSQL, counted by the server itself:
# WAL flushes (pg_stat_wal.wal_sync, one per durable commit), WAL records
# and transactions (pg_stat_database.xact_commit: every statement run
# outside a transaction counts as one) per booking. bench/bookload makes
# SMALL and then LARGE bookings one after another, each on a fresh server
# and schema; the difference of the two runs' counts, over LARGE - SMALL
# bookings, leaves out what a server's start and stop cost. The counters
# are the whole server's: nothing else may use the PostgreSQL server
# meanwhile. Usage:
#   FRONTDESK_TEST_POSTGRES=postgres://... bench/pgcommits.sh [REV ...] [-- SMALL LARGE]
# Each REV (a commit; the work tree when none) is built and counted, in
# the order given (default 50 250).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${FRONTDESK_TEST_POSTGRES:?set FRONTDESK_TEST_POSTGRES to a PostgreSQL URL}"
revs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do revs+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
small=${1:-50}
large=${2:-250}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; git worktree prune' EXIT
go build -o "$tmp/bookload" ./bench/bookload
build() { # build REV OUT: the binary of REV, or of the work tree for "."
  if [ "$1" = . ]; then go build -o "$2" ./cmd/frontdesk; return; fi
  git worktree add -q --detach "$tmp/src" "$1"
  (cd "$tmp/src" && go build -o "$2" ./cmd/frontdesk)
  git worktree remove --force "$tmp/src"
}
counts() {
  psql "$FRONTDESK_TEST_POSTGRES" -At -c "SELECT wal_sync, wal_records, (SELECT sum(xact_commit) FROM pg_stat_database) FROM pg_stat_wal" | tr '|' ' '
}
# used N: the counts' growth over N bookings on a fresh server.
used() {
  local b a
  read -r -a b <<<"$(counts)"
  (cd "$tmp" && FRONTDESK="$tmp/frontdesk" ENGINE=postgres ./bookload flat "$1" >/dev/null)
  sleep 1 # the statistics collector reports within a second
  read -r -a a <<<"$(counts)"
  echo "$((a[0] - b[0])) $((a[1] - b[1])) $((a[2] - b[2]))"
}
[ ${#revs[@]} -eq 0 ] && revs=(.)
for rev in "${revs[@]}"; do
  build "$rev" "$tmp/frontdesk"
  read -r s0 s1 s2 <<<"$(used "$small")"
  read -r l0 l1 l2 <<<"$(used "$large")"
  awk -v rev="$rev" -v n=$((large - small)) -v d0=$((l0 - s0)) -v d1=$((l1 - s1)) -v d2=$((l2 - s2)) 'BEGIN {
    printf "%s: per booking, WAL flushes %.2f, WAL records %.1f, transactions %.1f\n", rev, d0 / n, d1 / n, d2 / n }'
done
