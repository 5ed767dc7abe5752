#!/usr/bin/env bash
# Chat bookings measured from outside (bench/bookload): a separate process
# books over MCP against `frontdesk serve` (start_booking, the code from
# the guest's mailbox, confirm_booking), the server mailing through SMTP
# with STARTTLS to a sink in the load process, as in production, with
# every chat ceiling at the top of its range and no staff decision. For
# each engine (SQLite, then PostgreSQL):
#  1. flat: FLAT consecutive bookings on one server, p50 of the last
#     tenth over p50 of the first (990 by default: no more fit in an hour
#     without a staff decision, the ceilings' range being 1 to 1000);
#  2. PAIRS rounds in ABBA order of raw single-row commits (through the
#     store, in the load process), bookings one at a time and eight at a
#     time, SECONDS each, each booking run on a fresh server. Reported:
#     the floor (one-at-a-time bookings/s over raw commits/s / 4), the
#     concurrency gain (eight at a time over one at a time) and the ratio
#     of their p50 latencies, as medians of the rounds with their spread,
#     and the server's CPU per booking.
# The server inherits GOGC, GOMAXPROCS and GOMEMLIMIT (serve picks GOGC=400
# when GOGC is unset). Usage:
#   FRONTDESK_TEST_POSTGRES=postgres://... bench/booking.sh [PAIRS] [SECONDS] [FLAT]
#   (default 5 5 990; ENGINES="sqlite postgres" picks the engines;
#   SERVER=bookbase runs the same load against bench/bookbase, the
#   transport's floor; SERVER=bookspec against bench/bookbase with
#   BOOKBASE=spec, the floor of the steps direct-booking.md §8 puts
#   before each answer)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
secs=${2:-5}
flat=${3:-990}
: "${FRONTDESK_TEST_POSTGRES:?set FRONTDESK_TEST_POSTGRES to a PostgreSQL URL}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# SERVER=bookbase measures the transport floor (bench/bookbase) instead
# of frontdesk.
case ${SERVER:-frontdesk} in
  frontdesk) go build -o "$tmp/frontdesk" ./cmd/frontdesk ;;
  bookbase) go build -o "$tmp/frontdesk" ./bench/bookbase ;;
  bookspec) go build -o "$tmp/frontdesk" ./bench/bookbase; export BOOKBASE=spec ;;
  *) echo "SERVER is frontdesk, bookbase or bookspec" >&2; exit 2 ;;
esac
go build -o "$tmp/bookload" ./bench/bookload
export FRONTDESK="$tmp/frontdesk"
for engine in ${ENGINES:-sqlite postgres}; do
  out=$(cd "$tmp" && ENGINE=$engine ./bookload flat "$flat" && ENGINE=$engine ./bookload pairs "$pairs" "$secs")
  echo "$out"
  echo "$out" | awk -v engine="$engine" '
    /^flat/ { for (i = 1; i <= NF; i++) if ($i ~ /^last\/first=/) { split($i, kv, "="); flat = kv[2] } }
    /^pair/ {
      p = $2
      for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if ($4 ~ /^raw/) raw[p] = v["commits/s"]
      else { w = v["workers"]; rate[p, w] = v["bookings/s"]; lat[p, w] = v["p50_ms"]; cpu[p, w] = v["cpu_ms/booking"] }
      if (p + 1 > n) n = p + 1
    }
    function median(list,   m, a, i, j, t) {
      m = split(list, a, " ")
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      lo = a[1]; hi = a[m]
      return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
      for (p = 0; p < n; p++) {
        floor = floor " " rate[p, 1] / (raw[p] / 4); gain = gain " " rate[p, 8] / rate[p, 1]; p50 = p50 " " lat[p, 8] / lat[p, 1]
        r1 = r1 " " rate[p, 1]; r8 = r8 " " rate[p, 8]; rw = rw " " raw[p]; c1 = c1 " " cpu[p, 1]; c8 = c8 " " cpu[p, 8]
        l1 = l1 " " lat[p, 1]; l8 = l8 " " lat[p, 8]
      }
      printf "\n%s: flat (last tenth / first tenth p50): %s\n", engine, flat
      printf "%s: raw commits/s %.0f; bookings/s one at a time %.1f (p50 %.1f ms, cpu %.2f ms/booking), eight at a time %.1f (p50 %.1f ms, cpu %.2f ms/booking)\n", engine, median(rw), median(r1), median(l1), median(c1), median(r8), median(l8), median(c8)
      m = median(floor); printf "%s: floor, one at a time / (raw / 4): %.2f (spread %.2f-%.2f)\n", engine, m, lo, hi
      m = median(gain); printf "%s: concurrency, eight / one: %.2f (spread %.2f-%.2f)\n", engine, m, lo, hi
      m = median(p50); printf "%s: p50, eight / one: %.2f (spread %.2f-%.2f)\n", engine, m, lo, hi
    }'
done
