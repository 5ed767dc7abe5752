#!/usr/bin/env bash
# What the garbage collector costs each find_rooms call: frontdesk, the
# same-bytes replay and the heap replay (see replay.sh), each run with
# GODEBUG=gctrace=1 and loaded from outside with wrk at one connection, in
# ABBA rounds, with the same runtime settings (mcplib.sh). From the trace
# lines of each run: collections a thousand calls, the collector's CPU a
# call (all its phases, idle marking included: it is CPU the process
# burns), megabytes allocated a call (heap at a collection's start less
# the live heap the one before left; whole megabytes, so an average over
# many collections), the live heap after a collection; beside them the
# whole CPU a call from /proc. Usage:
#   bench/replay-gc.sh [ROUNDS] [SECONDS] [CONNS]   (default 5 rounds of 5 s, 1 connection)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
secs=${2:-5}
conns=${3:-1}
proto=2025-11-25
. bench/mcplib.sh
demo_frontdesk
go build -o "$work/mcpreplay" ./bench/mcpreplay
GODEBUG=gctrace=1 "$work/frontdesk" serve --config "$work/bench.toml" --addr "127.0.0.1:$fd_port" --data "$work/data" >"$work/serve.log" 2>"$work/fd.gc" &
fd_pid=$!; pids+=("$fd_pid")
wait_up "http://127.0.0.1:$fd_port/healthz"
fd_url="http://127.0.0.1:$fd_port/mcp"
in=$(date -u -d '+29 days' +%F); out=$(date -u -d '+32 days' +%F)
args='{"property":"riverside","checkin":"'"$in"'","checkout":"'"$out"'"}'
echo "find_rooms find_rooms $args" >"$work/calls"
replay_port=$(free_port)
env -u MCPREPLAY_LIVE_MB GODEBUG=gctrace=1 "$work/mcpreplay" "127.0.0.1:$replay_port" "$fd_url" "$work/calls" 2>"$work/replay.gc" &
replay_pid=$!; pids+=("$replay_pid")
heap_port=$(free_port)
MCPREPLAY_LIVE_MB=${REPLAY_HEAP_MB:-6} GODEBUG=gctrace=1 "$work/mcpreplay" "127.0.0.1:$heap_port" "$fd_url" "$work/calls" 2>"$work/heap.gc" &
heap_pid=$!; pids+=("$heap_pid")
wait_up "http://127.0.0.1:$replay_port/"
wait_up "http://127.0.0.1:$heap_port/"
declare -A urls=([fd]=$fd_url [replay]="http://127.0.0.1:$replay_port/" [heap]="http://127.0.0.1:$heap_port/")
declare -A server_pids=([fd]=$fd_pid [replay]=$replay_pid [heap]=$heap_pid)
body=$(call_body find_rooms "$args")
for who in fd replay heap; do
  sid=$(session "${urls[$who]}"); check "${urls[$who]}" "$sid" "$body"; lua "$sid" "$body" "$work/$who.lua"
done
threads=$((conns < 2 ? 1 : 2))
results=""
for r in $(seq "$rounds"); do
  order=(replay heap fd)
  ((r % 2 == 0)) && order=(fd heap replay)
  for who in "${order[@]}"; do
    from=$(grep -c '^gc ' "$work/$who.gc" || true)
    line=$(measure "$who" "${urls[$who]}" "${server_pids[$who]}" "$work/$who.lua" "$threads" "$conns" "$secs")
    # The collections that began during the run; the one before the first
    # gives the live heap the first one's allocation is counted from.
    gc=$(grep '^gc ' "$work/$who.gc" | sed -n "$((from > 0 ? from : 1)),\$p" | awk -v skip=$((from > 0 ? 1 : 0)) '
      { split($0, f, " ms cpu, "); split(f[1], c, "clock, "); n = split(c[2], p, /[+\/]/)
        cpu = 0; for (i = 1; i <= n; i++) cpu += p[i]
        split(f[2], h, /->| MB/); start = h[1]; live = h[3] }
      NR > skip { cycles++; ms += cpu; if (prev != "") alloc += start - prev }
      { prev = live }
      END { printf "%d %.3f %d %d", cycles, ms, alloc, live }')
    results+="$r $line $gc"$'\n'
  done
done
echo "$results" | awk '
  NF == 11 {
    who = $2; n = $4; cpu = ($6 - $5) * 1e6 / n
    gcper = $9 * 1000 / n; per1k = $8 * 1000 / n; kb = $10 * 1024 / n
    printf "round %d %-7s %7.0f req/s %7.1f cpu-µs/call %6.1f GC-µs/call %5.2f GCs/1000 calls %6.0f KB/call %3d MB live %d failed\n", $1, who, $3, cpu, gcper, per1k, kb, $11, $7
    cpus[who] = cpus[who] " " cpu; gcs[who] = gcs[who] " " gcper; rates[who] = rates[who] " " per1k; kbs[who] = kbs[who] " " kb; lives[who] = lives[who] " " $11; bad += $7
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "\n%-7s %12s %11s %15s %8s %8s\n", "server", "cpu-µs/call", "GC-µs/call", "GCs/1000 calls", "KB/call", "MB live"
    for (who in cpus) printf "%-7s %12.1f %11.1f %15.2f %8.0f %8d\n", who, median(cpus[who]), median(gcs[who]), median(rates[who]), median(kbs[who]), median(lives[who])
    if (bad > 0) { printf "FAIL: %d answers not 2xx or not a result\n", bad; exit 1 }
  }'
