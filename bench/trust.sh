#!/usr/bin/env bash
# USP trust checks as ratios to their baselines, each pair measured
# interleaved in every round: a proof-of-possession check (with its jti
# record) against one raw single-row SQLite commit, and reading a proof's
# key (weak-point check included) against one Ed25519 verification.
# Usage: bench/trust.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
out=""
for _ in $(seq "$rounds"); do
  out+=$(go test ./usp/pop -run '^$' -bench 'ProofVerify' -benchtime 300x -count 1 | grep '^Benchmark')$'\n'
  out+=$(go test ./internal/jwk -run '^$' -bench 'ParseEd25519' -benchtime 2000x -count 1 | grep '^Benchmark')$'\n'
done
echo "$out"
echo "$out" | awk '
  /^Benchmark/ { name = $1; sub(/-[0-9]+$/, "", name); ns[name] = ns[name] " " $3 }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    printf "\n%-36s %14s %14s %8s\n", "measured / baseline", "median us", "baseline us", "ratio"
    m = median(ns["BenchmarkProofVerify/verify"]); base = median(ns["BenchmarkProofVerify/raw_commit"])
    printf "%-36s %14.1f %14.1f %8.2f\n", "proof check / raw commit", m / 1000, base / 1000, m / base
    m = median(ns["BenchmarkParseEd25519/parse"]); base = median(ns["BenchmarkParseEd25519/ed25519_verify"])
    printf "%-36s %14.1f %14.1f %8.2f\n", "key read / ed25519 verify", m / 1000, base / 1000, m / base
  }'
