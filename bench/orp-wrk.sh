#!/usr/bin/env bash
# Tracked-link redirects measured from outside: wrk (Debian's package)
# drives a bare net/http 302 handler, the durable baseline (the same 302
# sent once its click is written and fdatasynced to a file in the same
# directory, clicks arriving together sharing one write and sync), the
# fronted baseline (the durable one behind the front every answer of
# serve passes: headers, request id, metric, route, deadlines, host
# check) and `frontdesk serve` (SQLite, batched click writes), each in
# its own process on loopback, with a browser's User-Agent and Referer.
# All run with the same runtime settings (bench/runtime.sh). Runs
# interleave in ABCDDCBA order, COUNT rounds. After the
# last run the server stops cleanly and every redirect it answered must
# have its click stored. Reported: requests/s and CPU microseconds per
# request of each server (from /proc), and the medians and spread of the
# pairs' ratios by both, frontdesk's against each baseline and the
# durable and fronted baselines' against the bare one. Then a crash check: orpbench's own client
# (which, unlike wrk, reads each Location) loads the link, the server
# gets SIGKILL under that load, restarts and stops cleanly, and every
# 302 with a click id the client saw must have its click stored. Usage:
#   bench/orp-wrk.sh [COUNT] [SECONDS] [CONNECTIONS]   (default 5 5 32)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
secs=${2:-5}
conns=${3:-32}
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
. bench/runtime.sh
go build -o "$work/frontdesk" ./cmd/frontdesk
go build -o "$work/orpbench" ./bench/orpbench

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 100); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

# The demo business with its click limit per address lifted (one load
# generator is one address) and the benchmark's destination as a site.
"$work/frontdesk" init --demo | sed '/^\[orp\]/a clicks_per_minute = 1000000000\nsites = ["acmenotes.example"]' > "$work/bench.toml"
fd_port=$(free_port)
serve() { "$work/frontdesk" serve --config "$work/bench.toml" --addr "127.0.0.1:$fd_port" --data "$work/data" >>"$work/serve.log" 2>&1 & fd_pid=$!; pids+=("$fd_pid"); }
serve
bare_port=$(free_port)
"$work/orpbench" bare "127.0.0.1:$bare_port" &
bare_pid=$!; pids+=("$bare_pid")
durable_port=$(free_port)
"$work/orpbench" durable "127.0.0.1:$durable_port" "$work/durable.clicks" &
durable_pid=$!; pids+=("$durable_pid")
fronted_port=$(free_port)
"$work/orpbench" fronted "127.0.0.1:$fronted_port" "$work/fronted.clicks" &
fronted_pid=$!; pids+=("$fronted_pid")
wait_up "http://127.0.0.1:$fd_port/healthz"
wait_up "http://127.0.0.1:$bare_port/"
wait_up "http://127.0.0.1:$durable_port/"
wait_up "http://127.0.0.1:$fronted_port/"
link=$("$work/orpbench" setup "http://127.0.0.1:$fd_port")
token=${link##*/}

ua='Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
ref='https://news.example/posts/tools-we-use'
measure() { # name url pid
  local before after out reqs
  before=$("$work/orpbench" cpu "$3")
  out=$(wrk -t2 -c"$conns" -d"${secs}s" -H "User-Agent: $ua" -H "Referer: $ref" "$2")
  after=$("$work/orpbench" cpu "$3")
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  non=$(echo "$out" | awk '/Non-2xx or 3xx/ {print $NF}')
  echo "$1 $(echo "$out" | awk '/^Requests\/sec/ {print $2}') $reqs $before $after ${non:-0}"
}
results=""
for i in $(seq "$count"); do
  bare_run() { results+="$i $(measure bare "http://127.0.0.1:$bare_port/go/x" "$bare_pid")"$'\n'; }
  durable_run() { results+="$i $(measure durable "http://127.0.0.1:$durable_port/go/x" "$durable_pid")"$'\n'; }
  fronted_run() { results+="$i $(measure fronted "http://127.0.0.1:$fronted_port/go/x" "$fronted_pid")"$'\n'; }
  fd_run() { results+="$i $(measure frontdesk "$link" "$fd_pid")"$'\n'; }
  if ((i % 2)); then bare_run; durable_run; fronted_run; fd_run; else fd_run; fronted_run; durable_run; bare_run; fi
done
kill -TERM "$fd_pid"; wait "$fd_pid" 2>/dev/null || true
stored=$("$work/orpbench" count "$work/data" "$token")
echo "$results" | awk -v stored="$stored" '
  NF == 7 {
    run = $1; name = $2; cpu = ($6 - $5) * 1e6 / $4
    printf "%-3d %-10s %12.0f req/s %10d requests %8.1f cpu-µs/request\n", run, name, $3, $4, cpu
    rate[name] = rate[name] " " $3; cpus[name] = cpus[name] " " cpu
    r[run, name] = $3; c[run, name] = cpu
    if ($7 + 0 > 0) bad += $7
    if (name == "frontdesk") sent += $4
    if (run > runs) runs = run
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    lo = a[1]; hi = a[n]
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (i = 1; i <= runs; i++) {
      pairs = pairs " " sprintf("%.2f", r[i, "frontdesk"] / r[i, "bare"])
      cpupairs = cpupairs " " sprintf("%.2f", c[i, "bare"] / c[i, "frontdesk"])
      durpairs = durpairs " " sprintf("%.2f", c[i, "bare"] / c[i, "durable"])
      fddurpairs = fddurpairs " " sprintf("%.2f", c[i, "durable"] / c[i, "frontdesk"])
      frontpairs = frontpairs " " sprintf("%.2f", c[i, "bare"] / c[i, "fronted"])
      fdfrontpairs = fdfrontpairs " " sprintf("%.2f", c[i, "fronted"] / c[i, "frontdesk"])
    }
    printf "\n%-10s %12s %16s\n", "server", "req/s", "cpu-µs/request"
    printf "%-10s %12.0f %16.1f\n", "bare", median(rate["bare"]), median(cpus["bare"])
    printf "%-10s %12.0f %16.1f\n", "durable", median(rate["durable"]), median(cpus["durable"])
    printf "%-10s %12.0f %16.1f\n", "fronted", median(rate["fronted"]), median(cpus["fronted"])
    printf "%-10s %12.0f %16.1f\n", "frontdesk", median(rate["frontdesk"]), median(cpus["frontdesk"])
    m = median(pairs); printf "\nrequests/s, frontdesk / bare, median of the pairs: %.2f (spread %.2f to %.2f; pairs:%s)\n", m, lo, hi, pairs
    m = median(cpupairs); printf "CPU per request, bare / frontdesk, median of the pairs: %.2f (spread %.2f to %.2f; pairs:%s)\n", m, lo, hi, cpupairs
    m = median(durpairs); printf "CPU per request, bare / durable baseline, median: %.2f (spread %.2f to %.2f; pairs:%s)\n", m, lo, hi, durpairs
    m = median(fddurpairs); printf "CPU per request, durable baseline / frontdesk, median: %.2f (spread %.2f to %.2f; pairs:%s)\n", m, lo, hi, fddurpairs
    m = median(frontpairs); printf "CPU per request, bare / fronted baseline, median: %.2f (spread %.2f to %.2f; pairs:%s)\n", m, lo, hi, frontpairs
    m = median(fdfrontpairs); printf "CPU per request, fronted baseline / frontdesk, median: %.2f (spread %.2f to %.2f; pairs:%s)\n", m, lo, hi, fdfrontpairs
    printf "redirects wrk counted from frontdesk: %d; clicks stored: %d (the rest were answered as wrk stopped); non-3xx answers: %d\n", sent, stored, bad
    if (stored < sent || bad > 0) { print "FAIL: not every redirect stored its click"; exit 1 }
  }'

# The crash check: SIGKILL under load, restart, clean stop, compare.
serve
wait_up "http://127.0.0.1:$fd_port/healthz"
"$work/orpbench" load "$link" 8 "$conns" "$work/ids" &
load_pid=$!
sleep 3
kill -KILL "$fd_pid"; wait "$fd_pid" 2>/dev/null || true
wait "$load_pid"
serve
wait_up "http://127.0.0.1:$fd_port/healthz"
kill -TERM "$fd_pid"; wait "$fd_pid" 2>/dev/null || true
lost=$("$work/orpbench" missing "$work/data" "$token" "$work/ids")
echo "after SIGKILL under load: $(wc -l <"$work/ids") redirects with a click id seen, $lost of their clicks not stored"
if [ "$lost" != 0 ]; then echo "FAIL: acknowledged clicks lost"; exit 1; fi
