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

# generate N writes the demo's business, limits, mail and deployment with
# N generated properties of three room types each, in four time zones.
generate() {
  awk -v n="$1" '
    /^\[\[locations\]\]/ && !done { skipping = 1 }
    /^\[limits\]/ && skipping && !done {
      split("America/Denver America/New_York Europe/Paris Asia/Tokyo", zones, " ")
      for (i = 1; i <= n; i++) {
        k = i - 1
        prefix = "P" sprintf("%c%c%c", 65 + int(k / 676) % 26, 65 + int(k / 26) % 26, 65 + k % 26)
        printf "[[locations]]\nslug = \"p%04d\"\nname = \"Property %04d\"\nphone = \"+1 303 555 %04d\"\n", i, i, i % 10000
        printf "time_zone = \"%s\"\nreference_prefix = \"%s\"\n\n", zones[1 + k % 4], prefix
        printf "[[locations.units]]\ntype = \"single\"\ncount = 3\nnightly_rate = \"89.00\"\nweekly_rate = \"540.00\"\nmin_nights = 1\n\n"
        printf "[[locations.units]]\ntype = \"double\"\ncount = 2\nnightly_rate = \"119.00\"\nmin_nights = 1\n\n"
        printf "[[locations.units]]\ntype = \"studio\"\ncount = 1\nweekly_rate = \"560.00\"\nmin_nights = 7\n\n"
      }
      skipping = 0; done = 1
    }
    !skipping { print }
  ' "$tmp/demo.toml"
}
generate "$n" >"$tmp/scale.toml"
"$tmp/frontdesk" check-config "$tmp/scale.toml" >/dev/null

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# start_once CONFIG prints "startup_ms rss_kb" for one start.
start_once() {
  local port data t0 t1
  port="$(free_port)"
  data="$(mktemp -d "$tmp/data.XXXXXX")"
  t0=$(date +%s%N)
  "$tmp/frontdesk" serve --config "$1" --data "$data" --addr "127.0.0.1:$port" >/dev/null 2>&1 &
  pid=$!
  until curl -fs -o /dev/null "http://127.0.0.1:$port/readyz"; do
    kill -0 "$pid" 2>/dev/null || { echo "server exited" >&2; exit 1; }
    sleep 0.002
  done
  t1=$(date +%s%N)
  sleep 2
  echo "$(((t1 - t0) / 1000000)) $(awk '/^VmRSS/ { print $2 }' /proc/$pid/status)"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  rm -rf "$data"
}

: >"$tmp/starts"
for _ in $(seq 1 "$runs"); do
  echo "demo $(start_once "$tmp/demo.toml")" >>"$tmp/starts"
  echo "scale $(start_once "$tmp/scale.toml")" >>"$tmp/starts"
done

FRONTDESK_SCALE_CONFIG="$tmp/scale.toml" go test ./cmd/frontdesk -run '^$' -bench '^BenchmarkScale$' -benchtime 200x -count "$runs" >"$tmp/bench"
grep '^Benchmark' "$tmp/bench"

awk -v n="$n" '
  function median(list,   k, a, i, j, t) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  FILENAME ~ /starts$/ { start[$1] = start[$1] " " $2; rss[$1] = rss[$1] " " $3; next }
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
