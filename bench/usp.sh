#!/usr/bin/env bash
# USP availability queries over MCP (/usp/mcp, 14 days of the demo's
# airport shuttle) and bookings (usp_bookings_create as the demo platform,
# a new shuttle slot each call) as a ratio to a bare go-sdk echo tool
# measured in the same run, with the median latency of each call. Usage:
#   bench/usp.sh [COUNT]    (default 5 runs; medians across runs are reported)
exec env CALLS='^(echo|usp_.*)$' "$(dirname "$0")/mcp.sh" "$@"
