#!/usr/bin/env bash
# USP availability queries measured from outside: wrk (Debian's package)
# drives MCP `tools/call` requests at a bare go-sdk echo server
# (bench/mcpecho) and at `frontdesk serve` (the demo config), each in its
# own process on loopback, so that no client's JSON decoding is counted
# in the server's time. One MCP session per server is opened with curl
# (protocol 2025-11-25, as the in-process benchmark uses); wrk then posts
# the same call on it: `echo` on the bare server, usp_availability_query
# (the airport shuttle, 14 days from tomorrow, default page of 50 slots)
# on /usp/mcp. Runs interleave in ABBA order (echo then the query, then
# the query then the echo), COUNT runs of each, both servers with the
# same runtime settings (bench/mcplib.sh).
# Reported: requests/s, the ratio of each pair, their median, and CPU
# microseconds per request of each server (from /proc).
#
# With CALL=create the USP call is usp_bookings_create as the demo
# platform: its API key as a bearer token, its profile (served here over
# HTTPS with a throwaway certificate, trusted by frontdesk through
# SSL_CERT_FILE) in _meta.usp.profile, a fresh idempotency key per
# request, and each request a different airport-shuttle slot (one seat
# each) from the whole booking window, so that every request can create a
# booking. frontdesk restarts on a fresh data directory before each run,
# so the window is free again; an answer without a booking fails the run.
# Usage:
#   bench/usp-wrk.sh [COUNT] [SECONDS] [CONNECTIONS] [CALL]
#   (default 5 5 8 query; CALL is query or create). With create, keep
#   SECONDS short enough that a run does not ask for more slots than the
#   window holds (about 16,000): the run fails if it does.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
secs=${2:-5}
conns=${3:-8}
call=${4:-query}
case $call in query | create) ;; *) echo "CALL must be query or create, not $call" >&2; exit 2 ;; esac
threads=2
proto=2025-11-25
. bench/mcplib.sh
go build -o "$work/frontdesk" ./cmd/frontdesk
go build -o "$work/mcpecho" ./bench/mcpecho


"$work/frontdesk" init --demo > "$work/bench.toml"
# The booking window at its widest (1,000 days, the demo has 550): about
# 16,000 shuttle departures, enough one-seat bookings for a run of
# several seconds.
[ "$call" = query ] || sed -i 's/^advance_days = .*/advance_days = 1000/' "$work/bench.toml"
fd_port=$(free_port)
runs=0
# start_frontdesk: serve the demo on a fresh data directory; sets fd_pid.
start_frontdesk() {
  runs=$((runs + 1))
  "$work/frontdesk" serve --config "$work/bench.toml" --addr "127.0.0.1:$fd_port" --data "$work/data$runs" >"$work/serve$runs.log" 2>&1 &
  fd_pid=$!; pids+=("$fd_pid")
  wait_up "http://127.0.0.1:$fd_port/healthz"
}
stop_frontdesk() { kill "$fd_pid"; wait "$fd_pid" 2>/dev/null || true; rm -rf "$work/data$runs"; }
if [ "$call" = create ]; then
  # The platform's profile over HTTPS, as .ci/run serves it to usp-check.
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=127.0.0.1 -addext "subjectAltName=IP:127.0.0.1" \
    -keyout "$work/profile-key.pem" -out "$work/profile-cert.pem" 2>/dev/null
  export SSL_CERT_FILE="$work/profile-cert.pem"
  profile_port=$(free_port)
  python3 bench/usp-profile.py "127.0.0.1:$profile_port" "$work/profile-cert.pem" "$work/profile-key.pem" &
  pids+=("$!")
  profile="https://127.0.0.1:$profile_port/platform.json"
  wait_up "$profile"
fi
start_frontdesk
echo_port=$(free_port)
"$work/mcpecho" "127.0.0.1:$echo_port" &
echo_pid=$!; pids+=("$echo_pid")
wait_up "http://127.0.0.1:$echo_port/"

# lua_create SESSION SLOTS FILE: the wrk script creating one booking per
# request. Request k of thread t (of $threads) takes slot number
# (k-1)*threads + t of SLOTS (one id a line), so no two requests of a run
# ask for the same seat; the idempotency key (a UUID) holds a random part, the thread
# and the counter. response() counts answers carrying a booking and,
# for the others, the first error code (messages[] or JSON-RPC error).
lua_create() {
  {
    echo "local slots = {"
    sed 's/.*/"&",/' "$2"
    echo "}"
    cat <<LUA
local threads, n = {}, 0
created, overrun = 0, 0 -- globals, so that done() can read them from each thread
refused = "" -- "code code ...": the first error code of each answer without a booking
function setup(thread) table.insert(threads, thread); thread:set("tid", #threads) end
function init() math.randomseed(os.time() * 100 + tid) end
function response(status, headers, body)
  if body:find('"structuredContent":{', 1, true) and body:find('"booking":{"id":"', 1, true) then
    created = created + 1
  else
    refused = refused .. " " .. (body:match('"type":"error","code":"([%w_]+)"') or body:match('"error":{"code":[-%d]+,"message":"([%w_]+)"') or ("http_" .. status))
  end
end
function done(summary, latency, requests)
  local made, over, codes = 0, 0, {}
  for _, t in ipairs(threads) do
    made, over = made + t:get("created"), over + t:get("overrun")
    for c in t:get("refused"):gmatch("%S+") do codes[c] = (codes[c] or 0) + 1 end
  end
  io.write("Created: ", made, "\n")
  io.write("Failed answers: ", summary.requests - made, "\n")
  io.write("Requests past the last free slot: ", over, "\n")
  for c, k in pairs(codes) do io.write("Refused: ", c, " ", k, "\n") end
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Authorization"] = "Bearer demo-platform-key"
wrk.headers["Mcp-Session-Id"] = "$1"
wrk.headers["MCP-Protocol-Version"] = "$proto"
function request()
  n = n + 1
  local i = (n - 1) * $threads + tid
  if i > #slots then overrun = overrun + 1; i = #slots end
  local key = string.format("%08x-%04x-4000-8000-%012x", math.random(0, 0x7fffffff), tid, n)
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. tid * 1000000000 + n ..
    ',"method":"tools/call","params":{"name":"usp_bookings_create","arguments":{"service_id":"svc_airport_shuttle","slot_id":"' ..
    slots[i] .. '","buyer":{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"},' ..
    '"_meta":{"usp":{"profile":"$profile","idempotency_key":"' .. key .. '"}}}}}')
end
LUA
  } >"$3"
}
# shuttle_slots SESSION FILE: every free shuttle slot of the booking
# window, one id a line, read 31 days (the widest query) at a time until
# a query answers none.
shuttle_slots() {
  local from to out k=0 d=1
  : >"$2"
  while :; do
    from=$(date -u -d "+$d days" +%F); to=$(date -u -d "+$((d + 30)) days" +%F)
    out=$(curl -sS -H 'Content-Type: application/json' -H "$accept" -H "Mcp-Session-Id: $1" -H "MCP-Protocol-Version: $proto" "$usp_url" \
      -d "$(call_body usp_availability_query '{"service_id":"svc_airport_shuttle","start_date":"'"$from"'","end_date":"'"$to"'","limit":500}')")
    k=$({ grep -o '"id":"slot_airport_shuttle_[0-9TZ]*"' <<<"$out" | cut -d'"' -f4 | tee -a "$2" || true; } | wc -l)
    [ "$k" -gt 0 ] || break
    d=$((d + 31))
  done
  echo "$(wc -l <"$2") free shuttle slots from $(head -1 "$2") to $(tail -1 "$2")" >&2
}

echo_url="http://127.0.0.1:$echo_port/"
usp_url="http://127.0.0.1:$fd_port/usp/mcp"
echo_body=$(call_body echo '{"text":"hello"}')
echo_sid=$(session "$echo_url")
check "$echo_url" "$echo_sid" "$echo_body"
lua "$echo_sid" "$echo_body" "$work/echo.lua"
if [ "$call" = query ]; then
  name=usp_query
  start=$(date -u -d tomorrow +%F)
  end=$(date -u -d '+14 days' +%F)
  usp_body=$(call_body usp_availability_query '{"service_id":"svc_airport_shuttle","start_date":"'"$start"'","end_date":"'"$end"'"}')
  usp_sid=$(session "$usp_url")
  check "$usp_url" "$usp_sid" "$usp_body"
  lua "$usp_sid" "$usp_body" "$work/usp.lua"
else
  name=usp_create
  usp_sid=$(session "$usp_url")
  shuttle_slots "$usp_sid" "$work/slots"
  # One booking through the same script, on a server thrown away after.
  lua_create "$usp_sid" "$work/slots" "$work/usp.lua"
  out=$(wrk -t1 -c1 -d1s -s "$work/usp.lua" "$usp_url")
  grep -q '^Failed answers: 0$' <<<"$out" || { echo "usp_bookings_create did not book: $out" >&2; exit 1; }
  echo "checked $usp_url: $(grep '^Created' <<<"$out") in a 1-second trial" >&2
  stop_frontdesk
fi
results=""
for i in $(seq "$count"); do
  echo_run() { results+="$(measure echo "$echo_url" "$echo_pid" "$work/echo.lua" "$threads" "$conns" "$secs")"$'\n'; }
  usp_run() {
    if [ "$call" = create ]; then # a fresh data directory: every slot free again
      start_frontdesk
      lua_create "$(session "$usp_url")" "$work/slots" "$work/usp.lua"
    fi
    results+="$(measure "$name" "$usp_url" "$fd_pid" "$work/usp.lua" "$threads" "$conns" "$secs")"$'\n'
    [ "$call" = query ] || stop_frontdesk
  }
  # ABBA: the echo first in odd runs, the USP call first in even ones.
  if ((i % 2)); then echo_run; usp_run; else usp_run; echo_run; fi
done
echo "$results" | awk -v name="$name" '
  NF == 6 {
    cpu = ($5 - $4) * 1e6 / $3
    printf "%-10s %12.0f req/s %10d requests %8.1f cpu-µs/request %d non-2xx or failed\n", $1, $2, $3, cpu, $6
    rate[$1] = rate[$1] " " $2; cpus[$1] = cpus[$1] " " cpu
    bad += $6
    n[$1]++; r[$1, n[$1]] = $2
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (k = 1; k <= n["echo"]; k++) pairs = pairs " " r[name, k] / r["echo", k]
    printf "\n%-10s %12s %16s\n", "server", "req/s", "cpu-µs/request"
    printf "%-10s %12.0f %16.1f\n", "echo", median(rate["echo"]), median(cpus["echo"])
    printf "%-10s %12.0f %16.1f\n", name, median(rate[name]), median(cpus[name])
    printf "\nratio %s / echo, median of the pairs: %.2f (pairs:%s)\n", name, median(pairs), pairs
    printf "cpu ratio echo / %s (medians): %.2f\n", name, median(cpus["echo"]) / median(cpus[name])
    if (bad > 0) { printf "FAIL: %d answers not 2xx or not a result\n", bad; exit 1 }
  }'
