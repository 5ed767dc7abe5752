# Shared by the MCP load scripts (sourced, not run): MCP over streamable
# HTTP for wrk. They set $proto first. Each gets a fresh directory, $work,
# and a list of the servers it starts, $pids; both go when it exits.
# Every server runs with the same runtime settings (bench/runtime.sh).
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 1; }
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
. bench/runtime.sh

accept='Accept: application/json, text/event-stream'
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# demo_frontdesk: build frontdesk into $work, write the demo business to
# $work/bench.toml and pick $fd_port for it to serve on.
demo_frontdesk() {
  go build -o "$work/frontdesk" ./cmd/frontdesk
  "$work/frontdesk" init --demo > "$work/bench.toml"
  fd_port=$(free_port)
}
wait_up() { for _ in $(seq 100); do curl -sk -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; exit 1; }
# session URL: initialize, read Mcp-Session-Id, send notifications/initialized.
session() {
  local id
  id=$(curl -sS -D - -o /dev/null -H 'Content-Type: application/json' -H "$accept" "$1" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"'"$proto"'","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}' |
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
  echo "checked $1: ${#out} bytes: ${out:0:160}..." >&2
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
# cpu PID: the process's user and system CPU seconds so far.
cpu() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat"; }
# measure NAME URL PID LUA THREADS CONNS SECS: one wrk run; prints
# "NAME req/s requests cpu_before cpu_after failed".
measure() {
  local before after out reqs non failed
  before=$(cpu "$3")
  out=$(wrk -t"$5" -c"$6" -d"$7s" -s "$4" "$2")
  after=$(cpu "$3")
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  non=$(echo "$out" | awk '/Non-2xx or 3xx/ {print $NF}')
  failed=$(echo "$out" | awk '/^Failed answers:/ {print $3}')
  grep -E '^(Refused|Requests past the last free slot: [1-9])' <<<"$out" | sed "s/^/$1: /" >&2 || true
  echo "$1 $(echo "$out" | awk '/^Requests\/sec/ {print $2}') $reqs $before $after $((${failed:-1} > ${non:-0} ? ${failed:-1} : ${non:-0}))"
}
