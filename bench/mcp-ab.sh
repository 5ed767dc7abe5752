#!/usr/bin/env bash
# frontdesk at two revisions, side by side, on one MCP read tool: what a
# change did to a call's CPU. Both serve the demo on their own SQLite
# files, are loaded from outside with wrk over streamable HTTP, in ABBA
# rounds, with the same runtime settings (mcplib.sh); CPU per call from
# /proc. Usage:
#   bench/mcp-ab.sh REV_A REV_B [CONNS] [ROUNDS] [SECONDS] [TOOL]
# TOOL is find_rooms (default), quote_stay or property_info.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/mcp-ab.sh REV_A REV_B [CONNS] [ROUNDS] [SECONDS] [TOOL]" >&2; exit 2; }
revs=("$1" "$2")
conns=${3:-16}
rounds=${4:-8}
secs=${5:-3}
tool=${6:-find_rooms}
proto=2025-11-25
. bench/mcplib.sh
# The servers, and the worktree a build may leave behind, go at exit.
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  git worktree remove --force "$work/tree" 2>/dev/null || true
  rm -rf "$work"
}
for i in 0 1; do
  git worktree add -q --detach "$work/tree" "${revs[$i]}"
  (cd "$work/tree" && go build -o "$work/frontdesk$i" ./cmd/frontdesk)
  git worktree remove --force "$work/tree"
done
"$work/frontdesk1" init --demo > "$work/bench.toml"
in=$(date -u -d '+29 days' +%F); out=$(date -u -d '+32 days' +%F)
case $tool in
  find_rooms) args='{"property":"riverside","checkin":"'"$in"'","checkout":"'"$out"'"}' ;;
  quote_stay) args='{"property":"riverside","roomtype":"double","checkin":"'"$in"'","checkout":"'"$out"'"}' ;;
  property_info) args='{"property":"riverside"}' ;;
  *) echo "unknown tool $tool" >&2; exit 2 ;;
esac
urls=(); spids=()
for i in 0 1; do
  port=$(free_port)
  "$work/frontdesk$i" serve --config "$work/bench.toml" --addr "127.0.0.1:$port" --data "$work/data$i" >"$work/serve$i.log" 2>&1 &
  spids+=($!); pids+=($!)
  urls+=("http://127.0.0.1:$port/mcp")
  wait_up "http://127.0.0.1:$port/healthz"
  sid=$(session "${urls[$i]}"); body=$(call_body "$tool" "$args")
  check "${urls[$i]}" "$sid" "$body"; lua "$sid" "$body" "$work/call$i.lua"
done
threads=$((conns < 2 ? 1 : 2))
results=""
for r in $(seq "$rounds"); do
  order=(0 1); ((r % 2 == 0)) && order=(1 0)
  for i in "${order[@]}"; do
    results+="$r $(measure "$i" "${urls[$i]}" "${spids[$i]}" "$work/call$i.lua" "$threads" "$conns" "$secs")"$'\n'
  done
done
echo "$results" | awk -v a="${revs[0]}" -v b="${revs[1]}" -v tool="$tool" -v conns="$conns" '
  NF == 7 {
    cpu = ($6 - $5) * 1e6 / $4; c[$1, $2] = cpu; cpus[$2] = cpus[$2] " " cpu; bad += $7
    printf "round %d %-12s %8.1f cpu-µs/call\n", $1, ($2 == 0 ? a : b), cpu
    if ($1 > rounds) rounds = $1
  }
  function median(list,   n, x, i, j, t) {
    n = split(list, x, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] + 0 < x[i] + 0) { t = x[i]; x[i] = x[j]; x[j] = t }
    return (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
  }
  END {
    for (r = 1; r <= rounds; r++) ratios = ratios " " c[r, 1] / c[r, 0]
    printf "\n%s at %d connections, median of %d rounds: %s %.1f, %s %.1f cpu-µs a call; %s ÷ %s %.3f\n", tool, conns, rounds, a, median(cpus[0]), b, median(cpus[1]), b, a, median(ratios)
    if (bad > 0) { printf "FAIL: %d answers not 2xx or not a result\n", bad; exit 1 }
  }'
