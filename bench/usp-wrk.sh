#!/usr/bin/env bash
# USP availability queries measured from outside: wrk (Debian's package)
# drives MCP `tools/call` requests at a bare go-sdk echo server
# (bench/mcpecho) and at `frontdesk serve` (the demo config), each in its
# own process on loopback, so that no client's JSON decoding is counted
# in the server's time. One MCP session per server is opened with curl
# (protocol 2025-11-25, as the in-process benchmark uses); wrk then posts
# the same call on it: `echo` on the bare server, usp_availability_query
# (the airport shuttle, 14 days from tomorrow, default page of 50 slots)
# on /usp/mcp. Runs interleave: echo, then the query, COUNT times.
# Reported: requests/s, the ratio of each pair, their median, and CPU
# microseconds per request of each server (from /proc). Usage:
#   bench/usp-wrk.sh [COUNT] [SECONDS] [CONNECTIONS]   (default 5 10 8)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
secs=${2:-10}
conns=${3:-8}
proto=2025-11-25
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/frontdesk" ./cmd/frontdesk
go build -o "$work/mcpecho" ./bench/mcpecho
go build -o "$work/orpbench" ./bench/orpbench

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { for _ in $(seq 100); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }

"$work/frontdesk" init --demo > "$work/bench.toml"
fd_port=$(free_port)
"$work/frontdesk" serve --config "$work/bench.toml" --addr "127.0.0.1:$fd_port" --data "$work/data" >"$work/serve.log" 2>&1 &
fd_pid=$!; pids+=("$fd_pid")
echo_port=$(free_port)
"$work/mcpecho" "127.0.0.1:$echo_port" &
echo_pid=$!; pids+=("$echo_pid")
wait_up "http://127.0.0.1:$fd_port/healthz"
wait_up "http://127.0.0.1:$echo_port/"

accept='Accept: application/json, text/event-stream'
# session URL: initialize, read Mcp-Session-Id, send notifications/initialized.
session() {
  local id
  id=$(curl -sS -D - -o /dev/null -H 'Content-Type: application/json' -H "$accept" "$1" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"'"$proto"'","capabilities":{},"clientInfo":{"name":"usp-wrk","version":"1"}}}' |
    awk 'tolower($1) == "mcp-session-id:" {print $2}' | tr -d '\r')
  [ -n "$id" ] || { echo "no session from $1" >&2; exit 1; }
  curl -sS -o /dev/null -H 'Content-Type: application/json' -H "$accept" -H "Mcp-Session-Id: $id" -H "MCP-Protocol-Version: $proto" "$1" \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "$id"
}
call_body() { echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"'"$1"'","arguments":'"$2"'}}'; }
# check URL SESSION BODY: one call must answer a result that is not an error.
check() {
  local out
  out=$(curl -sS -H 'Content-Type: application/json' -H "$accept" -H "Mcp-Session-Id: $2" -H "MCP-Protocol-Version: $proto" "$1" -d "$3")
  if ! grep -q '"result"' <<<"$out" || grep -q '"isError":true' <<<"$out"; then echo "not a result from $1: ${out:0:400}" >&2; exit 1; fi
  echo "checked $1: ${#out} bytes, $(grep -o '"slots":\[' <<<"$out" | wc -l) slot list(s): ${out:0:160}..." >&2
}
# lua SESSION BODY FILE: the wrk script posting BODY on the session. The
# SDK refuses a request id already in flight on a session, so each
# request gets its own id (thread number, then a counter); the rest of
# the body is fixed for the run.
lua() {
  local head=${2%%'"id":2,'*} tail=${2#*'"id":2,'}
  cat >"$3" <<LUA
local threads, n = {}, 0
bad = 0 -- global, so that done() can read it from each thread
function setup(thread) table.insert(threads, thread); thread:set("tid", #threads) end
function init() n = tid * 1000000000 end
-- An answer that is not a result, or a tool error, would make the rate
-- meaningless: count them (wrk counts only HTTP statuses).
function response(status, headers, body)
  if not body:find('"result"', 1, true) or body:find('"isError":true', 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + t:get("bad") end
  io.write("Failed answers: ", total, "\n")
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Mcp-Session-Id"] = "$1"
wrk.headers["MCP-Protocol-Version"] = "$proto"
function request()
  n = n + 1
  return wrk.format(nil, nil, nil, [[$head"id":]] .. n .. [[,$tail]])
end
LUA
}

start=$(date -u -d tomorrow +%F)
end=$(date -u -d '+14 days' +%F)
echo_url="http://127.0.0.1:$echo_port/"
usp_url="http://127.0.0.1:$fd_port/usp/mcp"
echo_body=$(call_body echo '{"text":"hello"}')
usp_body=$(call_body usp_availability_query '{"service_id":"svc_airport_shuttle","start_date":"'"$start"'","end_date":"'"$end"'"}')
echo_sid=$(session "$echo_url")
usp_sid=$(session "$usp_url")
check "$echo_url" "$echo_sid" "$echo_body"
check "$usp_url" "$usp_sid" "$usp_body"
lua "$echo_sid" "$echo_body" "$work/echo.lua"
lua "$usp_sid" "$usp_body" "$work/usp.lua"

measure() { # name url pid lua
  local before after out reqs non failed
  before=$("$work/orpbench" cpu "$3")
  out=$(wrk -t2 -c"$conns" -d"${secs}s" -s "$4" "$2")
  after=$("$work/orpbench" cpu "$3")
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  non=$(echo "$out" | awk '/Non-2xx or 3xx/ {print $NF}')
  failed=$(echo "$out" | awk '/^Failed answers:/ {print $3}')
  echo "$1 $(echo "$out" | awk '/^Requests\/sec/ {print $2}') $reqs $before $after $((${non:-0} + ${failed:-1}))"
}
results=""
for i in $(seq "$count"); do
  results+="$(measure echo "$echo_url" "$echo_pid" "$work/echo.lua")"$'\n'
  results+="$(measure usp_query "$usp_url" "$fd_pid" "$work/usp.lua")"$'\n'
done
echo "$results" | awk '
  NF == 6 {
    cpu = ($5 - $4) * 1e6 / $3
    printf "%-10s %12.0f req/s %10d requests %8.1f cpu-µs/request %d non-2xx or failed\n", $1, $2, $3, cpu, $6
    rate[$1] = rate[$1] " " $2; cpus[$1] = cpus[$1] " " cpu
    bad += $6
    if ($1 == "echo") last = $2; else pairs = pairs " " $2 / last
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "\n%-10s %12s %16s\n", "server", "req/s", "cpu-µs/request"
    printf "%-10s %12.0f %16.1f\n", "echo", median(rate["echo"]), median(cpus["echo"])
    printf "%-10s %12.0f %16.1f\n", "usp_query", median(rate["usp_query"]), median(cpus["usp_query"])
    printf "\nratio usp_query / echo, median of the pairs: %.2f (pairs:%s)\n", median(pairs), pairs
    printf "cpu ratio echo / usp_query (medians): %.2f\n", median(cpus["echo"]) / median(cpus["usp_query"])
    if (bad > 0) { printf "FAIL: %d answers not 2xx or not a result\n", bad; exit 1 }
  }'
