#!/usr/bin/env bash
# The MCP read tools against three baselines over streamable HTTP, loaded
# from outside with wrk: the bare go-sdk echo (bench/mcpecho); the
# same-bytes replay (bench/mcpreplay), a go-sdk server answering each
# tool with the exact answer frontdesk gave it, doing no work of its own;
# and that replay again holding a live heap like frontdesk's
# (MCPREPLAY_LIVE_MB, REPLAY_HEAP_MB megabytes, 6 by default: about 7 MB
# the collector scans, as frontdesk's catalogue, page templates and ORP
# schemas are). The replay shows what the SDK and the transport cost for
# answers of these sizes; frontdesk ÷ replay is what frontdesk's own work
# leaves of it (issue 33's target). replay ÷ heap is what the live heap
# alone costs the same code, and heap ÷ frontdesk what frontdesk's own
# per-call work costs beyond the SDK, the transport and the heap.
# Rounds alternate their order (ABBA); every server runs with the same
# runtime settings (mcplib.sh). Usage:
#   bench/replay.sh [ROUNDS] [SECONDS]    (default 5 rounds of 5 s)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
secs=${2:-5}
proto=2025-11-25
. bench/mcplib.sh
demo_frontdesk
go build -o "$work/mcpecho" ./bench/mcpecho
go build -o "$work/mcpreplay" ./bench/mcpreplay
"$work/frontdesk" serve --config "$work/bench.toml" --addr "127.0.0.1:$fd_port" --data "$work/data" >"$work/serve.log" 2>&1 &
fd_pid=$!; pids+=("$fd_pid")
echo_port=$(free_port)
"$work/mcpecho" "127.0.0.1:$echo_port" &
echo_pid=$!; pids+=("$echo_pid")
wait_up "http://127.0.0.1:$fd_port/healthz"
wait_up "http://127.0.0.1:$echo_port/"
echo_url="http://127.0.0.1:$echo_port/"
fd_url="http://127.0.0.1:$fd_port/mcp"
in=$(date -u -d '+29 days' +%F); out=$(date -u -d '+32 days' +%F); month=$(date -u -d '+59 days' +%F)
names=(find_rooms quote_stay property_info find_rooms_3x30)
declare -A tools=([find_rooms]=find_rooms [quote_stay]=quote_stay [property_info]=property_info [find_rooms_3x30]=find_rooms)
declare -A args=(
  [find_rooms]='{"property":"riverside","checkin":"'"$in"'","checkout":"'"$out"'"}'
  [quote_stay]='{"property":"riverside","roomtype":"double","checkin":"'"$in"'","checkout":"'"$out"'"}'
  [property_info]='{"property":"riverside"}'
  [find_rooms_3x30]='{"checkin":"'"$in"'","checkout":"'"$month"'"}'
)
: >"$work/calls"
for n in "${names[@]}"; do echo "$n ${tools[$n]} ${args[$n]}" >>"$work/calls"; done
replay_port=$(free_port)
env -u MCPREPLAY_LIVE_MB "$work/mcpreplay" "127.0.0.1:$replay_port" "$fd_url" "$work/calls" &
replay_pid=$!; pids+=("$replay_pid")
wait_up "http://127.0.0.1:$replay_port/"
replay_url="http://127.0.0.1:$replay_port/"
heap_port=$(free_port)
MCPREPLAY_LIVE_MB=${REPLAY_HEAP_MB:-6} "$work/mcpreplay" "127.0.0.1:$heap_port" "$fd_url" "$work/calls" &
heap_pid=$!; pids+=("$heap_pid")
wait_up "http://127.0.0.1:$heap_port/"
heap_url="http://127.0.0.1:$heap_port/"

results=""
for conns in 1 16; do
  threads=$((conns < 2 ? 1 : 2))
  sid=$(session "$echo_url"); body=$(call_body echo '{"text":"hello"}')
  check "$echo_url" "$sid" "$body"; lua "$sid" "$body" "$work/echo$conns.lua"
  for n in "${names[@]}"; do
    sid=$(session "$fd_url"); body=$(call_body "${tools[$n]}" "${args[$n]}")
    check "$fd_url" "$sid" "$body"; lua "$sid" "$body" "$work/fd_$n$conns.lua"
    sid=$(session "$replay_url"); body=$(call_body "$n" "${args[$n]}")
    check "$replay_url" "$sid" "$body"; lua "$sid" "$body" "$work/replay_$n$conns.lua"
    sid=$(session "$heap_url")
    check "$heap_url" "$sid" "$body"; lua "$sid" "$body" "$work/heap_$n$conns.lua"
  done
  for r in $(seq "$rounds"); do
    for n in "${names[@]}"; do
      order=(echo "replay_$n" "heap_$n" "fd_$n")
      ((r % 2 == 0)) && order=("fd_$n" "heap_$n" "replay_$n" echo)
      for m in "${order[@]}"; do
        case $m in
          echo) url=$echo_url pid=$echo_pid ;;
          replay_*) url=$replay_url pid=$replay_pid ;;
          heap_*) url=$heap_url pid=$heap_pid ;;
          fd_*) url=$fd_url pid=$fd_pid ;;
        esac
        results+="$conns $r $n $(measure "$m" "$url" "$pid" "$work/$m$conns.lua" "$threads" "$conns" "$secs")"$'\n'
      done
    done
  done
done
echo "$results" | awk '
  NF == 9 {
    c = $1; r = $2; call = $3; who = $4; sub(/_.*/, "", who)
    cpu = ($8 - $7) * 1e6 / $6
    printf "%2d conns round %d %-16s %-7s %9.0f req/s %8.1f cpu-µs/request %d failed\n", c, r, call, who, $5, cpu, $9
    rate[c, r, call, who] = $5; cpus[c, r, call, who] = cpu; bad += $9
    calls[call] = 1; conns[c] = 1; if (r > rounds) rounds = r
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    # CPU ratios are baseline ÷ frontdesk (or replay ÷ heap): the share of
    # CPU a request of the heavier server that the lighter one needs.
    printf "\n%-6s %-16s %9s %9s %9s %9s %11s %11s %11s %11s %11s %11s\n", "conns", "call", "fd req/s", "replay", "heap", "echo", "fd cpu-µs", "replay cpu", "heap cpu", "replay÷fd", "replay÷heap", "heap÷fd"
    for (c in conns) for (call in calls) {
      f = ""; p = ""; h = ""; e = ""; fc = ""; pc = ""; hc = ""; rf = ""; rh = ""; hf = ""
      for (r = 1; r <= rounds; r++) {
        f = f " " rate[c, r, call, "fd"]; p = p " " rate[c, r, call, "replay"]; h = h " " rate[c, r, call, "heap"]; e = e " " rate[c, r, call, "echo"]
        fc = fc " " cpus[c, r, call, "fd"]; pc = pc " " cpus[c, r, call, "replay"]; hc = hc " " cpus[c, r, call, "heap"]
        rf = rf " " cpus[c, r, call, "replay"] / cpus[c, r, call, "fd"]
        rh = rh " " cpus[c, r, call, "replay"] / cpus[c, r, call, "heap"]
        hf = hf " " cpus[c, r, call, "heap"] / cpus[c, r, call, "fd"]
      }
      printf "%-6d %-16s %9.0f %9.0f %9.0f %9.0f %11.1f %11.1f %11.1f %11.2f %11.2f %11.2f\n", c, call, median(f), median(p), median(h), median(e), median(fc), median(pc), median(hc), median(rf), median(rh), median(hf)
    }
    if (bad > 0) { printf "FAIL: %d answers not 2xx or not a result\n", bad; exit 1 }
  }'
