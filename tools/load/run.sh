#!/usr/bin/env bash
# Load run: starts `incidentlib serve` (rate limit off) and drives it from a
# second process with wrk on loopback, side by side in one run: GET one
# case, a search, an MCP tools/call. Prints wrk's figures and the server's
# resident memory every 10 s. Usage: tools/load/run.sh [SECONDS] [CONNECTIONS]
# Extra serve flags come from SERVE_FLAGS (e.g. "--database-url postgres://…").
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-30}
conns=${2:-32}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 2; }
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/incidentlib" ./cmd/incidentlib
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# shellcheck disable=SC2086
"$tmp/incidentlib" serve --addr "127.0.0.1:$port" --db "$tmp/load.db" --rate-limit 0 ${SERVE_FLAGS:-} 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
base="http://127.0.0.1:$port"
# The MCP answer must be a result, not an error.
curl -fs -X POST "$base/mcp" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H 'MCP-Protocol-Version: 2025-06-18' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_incidents","arguments":{"query":"conntrack","limit":5}}}' \
  | grep -q '"IL-' || { echo "MCP call did not answer with cases"; exit 1; }
rss() { awk '/VmRSS/ {print $2/1024 " MB"}' "/proc/$pid/status"; }
run() {
  local name=$1; shift
  echo "### $name (rss before: $(rss))"
  ( for t in $(seq 10 10 "$secs"); do sleep 10; echo "  rss at ${t}s: $(rss)"; done ) &
  local mon=$!
  wrk -t2 -c"$conns" -d"${secs}s" --latency "$@" | sed -n '/Latency/,$p'
  kill $mon 2>/dev/null || true; wait $mon 2>/dev/null || true
}
run "GET one case" "$base/api/cases/IL-0049"
run "search" -s tools/load/search.lua "$base"
run "MCP tools/call search_incidents" -s tools/load/mcp_call.lua "$base/mcp"
echo "rss after: $(rss)"
