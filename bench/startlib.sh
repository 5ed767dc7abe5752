# Sourced by bench/scale.sh and bench/startab.sh. The caller sets tmp (a
# scratch directory) and pid (empty), and kills "$pid" on exit.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# start_once BINARY CONFIG prints "start_ms cpu_ms rss_kb" for one start
# of serve on a fresh data directory: start is process start until
# /readyz answers, CPU the process's at that moment, RSS VmRSS two
# seconds later.
start_once() {
  local port data t0 t1 cpu
  port="$(free_port)"
  data="$(mktemp -d "$tmp/data.XXXXXX")"
  t0=$(date +%s%N)
  "$1" serve --config "$2" --data "$data" --addr "127.0.0.1:$port" >/dev/null 2>&1 &
  pid=$!
  until curl -fs -o /dev/null "http://127.0.0.1:$port/readyz"; do
    kill -0 "$pid" 2>/dev/null || { echo "server exited" >&2; exit 1; }
    sleep 0.002
  done
  t1=$(date +%s%N)
  cpu=$(awk -v t="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / t }' /proc/$pid/stat)
  sleep 2
  echo "$(((t1 - t0) / 1000000)) $cpu $(awk '/^VmRSS/ { print $2 }' /proc/$pid/status)"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  rm -rf "$data"
}
