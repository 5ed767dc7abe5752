#!/usr/bin/env bash
# Tracked-link redirects per second through /go/{token} on the real server
# (SQLite, batched click writes, every click checked as stored) as a ratio
# to a bare net/http handler answering the same 302, measured in the same
# run over loopback by the same parallel Go load generator. Each run
# measures the bare handler and then frontdesk, so the pairs interleave
# and a drift of the machine hits both. Usage:
#   bench/orp.sh [COUNT]    (default 5 runs; medians across runs are reported)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-5}
bin=$(mktemp -d)/frontdesk.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./cmd/frontdesk
out=$(cd cmd/frontdesk && for _ in $(seq "$count"); do "$bin" -test.run '^$' -test.bench 'Redirects' -test.benchtime 2s; done)
echo "$out" | grep '^Benchmark'
echo "$out" | awk '
  /^BenchmarkRedirects\// {
    split($1, parts, "/"); name = parts[2]; sub(/-[0-9]+$/, "", name)
    for (i = 2; i <= NF; i++) {
      if ($(i+1) == "redirects/s") { rate[name] = rate[name] " " $i; last[name] = $i }
      if ($(i+1) == "cpu-µs/redirect") cpu[name] = cpu[name] " " $i
    }
    if (name == "frontdesk") pairs = pairs " " last["frontdesk"] / last["bare"]
  }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    base = median(rate["bare"]); basecpu = median(cpu["bare"])
    printf "\n%-12s %14s %8s %16s %10s\n", "handler", "redirects/s", "ratio", "cpu-µs/redirect", "cpu ratio"
    printf "%-12s %14.0f %8.2f %16.1f %10.2f\n", "bare", base, 1, basecpu, 1
    printf "%-12s %14.0f %8.2f %16.1f %10.2f\n", "frontdesk", median(rate["frontdesk"]), median(rate["frontdesk"]) / base, median(cpu["frontdesk"]), basecpu / median(cpu["frontdesk"])
    printf "\nmedian of the runs%s own ratios (frontdesk / bare of the same run): %.2f\n", "\047", median(pairs)
  }'
