#!/usr/bin/env bash
# A generated business of many properties beside the 3-property demo, in
# the same run: startup (process start until /readyz answers, fresh SQLite
# directory), idle memory (RSS two seconds after ready), and through
# BenchmarkScale find_rooms across every property, list_properties and a
# one-property find_rooms (median and p99 latency, answer size). The
# demo is the baseline. Usage:
#   bench/scale.sh [RUNS] [PROPERTIES]    (default 5 runs, 1000 properties)
# Medians across runs are reported; runs alternate demo and generated.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
n=${2:-1000}
tmp="$(mktemp -d /tmp/frontdesk-scale.XXXXXX)"
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/frontdesk" ./cmd/frontdesk
"$tmp/frontdesk" init --demo >"$tmp/demo.toml"
bench/scaleconfig.sh "$tmp/frontdesk" "$n" >"$tmp/scale.toml"
"$tmp/frontdesk" check-config "$tmp/scale.toml" >/dev/null

source bench/startlib.sh

: >"$tmp/starts"
for _ in $(seq 1 "$runs"); do
  echo "demo $(start_once "$tmp/frontdesk" "$tmp/demo.toml")" >>"$tmp/starts"
  echo "scale $(start_once "$tmp/frontdesk" "$tmp/scale.toml")" >>"$tmp/starts"
done

FRONTDESK_SCALE_CONFIG="$tmp/scale.toml" go test ./cmd/frontdesk -run '^$' -bench '^BenchmarkScale$' -benchtime 200x -count "$runs" >"$tmp/bench"
grep '^Benchmark' "$tmp/bench"

awk -v n="$n" '
  function median(list,   k, a, i, j, t) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  FILENAME ~ /starts$/ { start[$1] = start[$1] " " $2; rss[$1] = rss[$1] " " $4; next }
  /^BenchmarkScale\// {
    split($1, p, "/"); biz = p[2]; call = p[3]; sub(/-[0-9]+$/, "", call)
    for (i = 2; i <= NF; i++) {
      if ($(i+1) == "median-ms") med[biz, call] = med[biz, call] " " $i
      if ($(i+1) == "p99-ms") p99[biz, call] = p99[biz, call] " " $i
      if ($(i+1) == "answer-KB") kb[biz, call] = kb[biz, call] " " $i
    }
  }
  END {
    printf "\n%-28s %14s %14s %8s\n", "", "3 (demo)", n " properties", "ratio"
    row("startup ms", median(start["demo"]), median(start["scale"]))
    row("idle RSS MB", median(rss["demo"]) / 1024, median(rss["scale"]) / 1024)
    split("find_rooms_all list_properties find_rooms_one", calls, " ")
    for (c = 1; c <= 3; c++) {
      row(calls[c] " median ms", median(med["demo", calls[c]]), median(med["scale", calls[c]]))
      row(calls[c] " p99 ms", median(p99["demo", calls[c]]), median(p99["scale", calls[c]]))
      row(calls[c] " answer KB", median(kb["demo", calls[c]]), median(kb["scale", calls[c]]))
    }
  }
  function row(name, a, b) { printf "%-28s %14.2f %14.2f %8.2f\n", name, a, b, (a > 0 ? b / a : 0) }
' "$tmp/starts" "$tmp/bench"
