#!/usr/bin/env bash
# MCP read tools measured from outside: wrk (Debian's package) drives MCP
# `tools/call` requests at a bare go-sdk echo server (bench/mcpecho) and
# at `frontdesk serve` (the demo), each in its own process on loopback,
# both with the same runtime settings (bench/mcplib.sh). One session per
# server and connection count; the calls: find_rooms (one property, three
# nights), quote_stay, property_info, and find_rooms across the three
# properties for 30 nights. At each connection count (1 and 16) a round
# runs the echo and every call, SECONDS each, in ABBA order (echo first,
# then the calls; the next round the calls reversed, then the echo), and
# each call's ratio to the echo is taken within its round. Reported per
# call: the median requests/s ratio with its spread, and the CPU per
# request of the call and of the echo, and the echo's over the call's. Usage:
#   bench/mcp.sh [ROUNDS] [SECONDS]    (default 5 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
secs=${2:-5}
proto=2025-11-25
. bench/mcplib.sh
demo_frontdesk
go build -o "$work/mcpecho" ./bench/mcpecho
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
declare -A bodies=(
  [find_rooms]=$(call_body find_rooms '{"property":"riverside","checkin":"'"$in"'","checkout":"'"$out"'"}')
  [quote_stay]=$(call_body quote_stay '{"property":"riverside","roomtype":"double","checkin":"'"$in"'","checkout":"'"$out"'"}')
  [property_info]=$(call_body property_info '{"property":"riverside"}')
  [find_rooms_3x30]=$(call_body find_rooms '{"checkin":"'"$in"'","checkout":"'"$month"'"}')
)
results=""
for conns in 1 16; do
  threads=$((conns < 2 ? 1 : 2))
  sid=$(session "$echo_url"); body=$(call_body echo '{"text":"hello"}')
  check "$echo_url" "$sid" "$body"; lua "$sid" "$body" "$work/echo$conns.lua"
  for n in "${names[@]}"; do
    sid=$(session "$fd_url"); check "$fd_url" "$sid" "${bodies[$n]}"; lua "$sid" "${bodies[$n]}" "$work/$n$conns.lua"
  done
  for r in $(seq "$rounds"); do
    order=(echo "${names[@]}")
    if ((r % 2 == 0)); then order=(); for ((k = ${#names[@]} - 1; k >= 0; k--)); do order+=("${names[k]}"); done; order+=(echo); fi
    for n in "${order[@]}"; do
      if [ "$n" = echo ]; then
        results+="$conns $r $(measure echo "$echo_url" "$echo_pid" "$work/echo$conns.lua" "$threads" "$conns" "$secs")"$'\n'
      else
        results+="$conns $r $(measure "$n" "$fd_url" "$fd_pid" "$work/$n$conns.lua" "$threads" "$conns" "$secs")"$'\n'
      fi
    done
  done
done
echo "$results" | awk '
  NF == 8 {
    c = $1; r = $2; name = $3; cpu = ($7 - $6) * 1e6 / $5
    printf "%2d conns round %d %-16s %9.0f req/s %8.1f cpu-µs/request %d failed\n", c, r, name, $4, cpu, $8
    rate[c, r, name] = $4; cpus[c, r, name] = cpu; bad += $8
    if (name != "echo") seen[name] = 1
    conns[c] = 1; if (r > rounds) rounds = r
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    lo = a[1]; hi = a[n]
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "\n%-6s %-16s %10s %10s %22s %12s %12s %12s\n", "conns", "call", "req/s", "echo req/s", "ratio (spread)", "cpu-µs/req", "echo cpu-µs", "cpu ratio"
    for (c in conns) for (name in seen) {
      rs = ""; cs = ""; own = ""; er = ""; ec = ""; oc = ""
      for (r = 1; r <= rounds; r++) {
        rs = rs " " rate[c, r, name] / rate[c, r, "echo"]; cs = cs " " cpus[c, r, "echo"] / cpus[c, r, name]
        own = own " " rate[c, r, name]; er = er " " rate[c, r, "echo"]; oc = oc " " cpus[c, r, name]; ec = ec " " cpus[c, r, "echo"]
      }
      m = median(rs); l = lo; h = hi
      printf "%-6d %-16s %10.0f %10.0f %8.2f (%.2f-%.2f) %12.1f %12.1f %12.2f\n", c, name, median(own), median(er), m, l, h, median(oc), median(ec), median(cs)
    }
    if (bad > 0) { printf "FAIL: %d answers not 2xx or not a result\n", bad; exit 1 }
  }'
