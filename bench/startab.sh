#!/usr/bin/env bash
# Start and idle memory of two builds of frontdesk on one business, in
# interleaved pairs (ABBA): start is process start until /readyz answers
# on a fresh SQLite directory, CPU the process's (/proc/PID/stat) at that
# moment, idle RSS VmRSS two seconds later. Both run as serve sets them
# (GOGC and memory limit its own). Usage:
#   bench/startab.sh BEFORE_BINARY AFTER_BINARY [PAIRS] [PROPERTIES]
# (default 5 pairs, 10000 properties; 0 properties is the demo).
# Prints each start and the medians; load average beside each pair.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: bench/startab.sh BEFORE AFTER [PAIRS] [PROPERTIES]}
after=${2:?usage: bench/startab.sh BEFORE AFTER [PAIRS] [PROPERTIES]}
pairs=${3:-5}
n=${4:-10000}
tmp="$(mktemp -d /tmp/frontdesk-startab.XXXXXX)"
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if [[ "$n" == 0 ]]; then
  "$after" init --demo >"$tmp/business.toml"
else
  bench/scaleconfig.sh "$after" "$n" >"$tmp/business.toml"
fi
"$after" check-config "$tmp/business.toml" >/dev/null

source bench/startlib.sh

: >"$tmp/starts"
for i in $(seq 1 "$pairs"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  if ((i % 2)); then order="before after"; else order="after before"; fi
  for which in $order; do
    bin=$before; [[ $which == after ]] && bin=$after
    line="$which $(start_once "$bin" "$tmp/business.toml") $load"
    echo "$line"
    echo "$line" >>"$tmp/starts"
  done
done

awk '
  function median(list,   k, a, i, j, t) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  { start[$1] = start[$1] " " $2; cpu[$1] = cpu[$1] " " $3; rss[$1] = rss[$1] " " $4 }
  END {
    printf "\n%-10s %10s %10s %12s\n", "", "start ms", "cpu ms", "idle RSS MB"
    split("before after", w, " ")
    for (i = 1; i <= 2; i++) printf "%-10s %10.0f %10.0f %12.1f\n", w[i], median(start[w[i]]), median(cpu[w[i]]), median(rss[w[i]]) / 1024
  }
' "$tmp/starts"
