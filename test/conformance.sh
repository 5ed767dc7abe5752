#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package-lock.json) in server mode against a started frontdesk
# server, and compares the outcome with conformance-expected-failures.txt.
#
#   bash test/conformance.sh URL [LABEL]
#
# URL is an MCP endpoint (http://127.0.0.1:PORT/mcp, or a location's
# /locations/SLUG/mcp); a bare base URL gets /mcp appended. The suite must talk
# to a localhost URL (its dns-rebinding-protection scenario says so).
# Runs the suite's default "active" set of server scenarios. Fails when a
# scenario that is not listed fails, or when a listed one passes.
# CONFORMANCE_RESULTS=DIR keeps the per-scenario checks.json files there.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
url="${1:?usage: conformance.sh URL [LABEL]}"
label="${2:-}"
case "$url" in
  */mcp) ;;
  *) url="${url%/}/mcp" ;;
esac

suite="$here/node_modules/.bin/conformance"
if [[ ! -x "$suite" ]]; then
  echo "conformance.sh: $suite is missing; run 'npm ci' in $here first" >&2
  exit 2
fi
version="$(node -p "require('$here/node_modules/@modelcontextprotocol/conformance/package.json').version")"

if [[ -n "${CONFORMANCE_RESULTS:-}" ]]; then
  out="$CONFORMANCE_RESULTS"
  mkdir -p "$out"
  cleanup() { :; }
else
  out="$(mktemp -d)"
  cleanup() { rm -rf "$out"; }
fi
trap cleanup EXIT

echo "${label:+[$label] }conformance $version: server scenarios against $url"
# The suite's own exit status only says whether something failed; the
# comparison below decides. Its full output stays in $out/suite.log.
set +e
timeout 300 "$suite" server --url "$url" -o "$out" >"$out/suite.log" 2>&1
suite_rc=$?
set -e
if [[ $suite_rc -eq 124 ]]; then
  echo "${label:+[$label] }conformance suite timed out after 300 s; last lines:"
  tail -n 30 "$out/suite.log"
  echo "conformance: 0 passed, 1 failed"
  exit 1
fi

set +e
node "$here/conformance-compare.mjs" "$out/suite.log" "$out" "$here/conformance-expected-failures.txt" "$label"
rc=$?
set -e
exit "$rc"
