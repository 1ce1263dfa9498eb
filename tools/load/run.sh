#!/usr/bin/env bash
# Load run, side by side in one run on one machine: the machine's ceiling (a
# net/http handler answering a fixed 4 KB body, and an MCP server on the same
# SDK with one trivial tool: tools/load/ceiling) and `incidentlib serve`
# (rate limit off), both driven by wrk from a second process on loopback.
# The ceiling runs first and again last. Requests rotate over lists written
# by tools/load/queries: every public case for GET, 510 distinct searches
# (the judged queries and the unanswerable ones, Korean and English, in six
# forms) for the API and for MCP. Prints wrk's figures, the server's resident
# memory, and a table of rates, p50/p99 and ratios to the ceilings.
# Usage: tools/load/run.sh [SECONDS] [CONNECTIONS]
# Extra serve flags come from SERVE_FLAGS (e.g. "--database-url postgres://…").
# serve's bounds on MCP calls in flight (--mcp-slots, 4 per CPU by default,
# and a client's share) are lifted to twice the connections: the load is
# from one address, and it measures throughput, not the 503s and 429s the
# bounds give a server that is full (TestLimitConcurrency and
# TestOneClientTakesOnlyItsShare test those).
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-30}
conns=${2:-32}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 2; }
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
go build -o "$tmp/incidentlib" ./cmd/incidentlib
go build -o "$tmp/ceiling" ./tools/load/ceiling
go run ./tools/load/queries -out "$tmp"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(freeport)
cport=$(freeport)
# shellcheck disable=SC2086
"$tmp/incidentlib" serve --addr "127.0.0.1:$port" --db "$tmp/load.db" --rate-limit 0 --mcp-slots "$((conns * 2))" --mcp-per-client 1000 ${SERVE_FLAGS:-} 2>"$tmp/serve.log" &
pid=$!
pids+=("$pid")
"$tmp/ceiling" -addr "127.0.0.1:$cport" 2>"$tmp/ceiling.log" &
pids+=("$!")
base="http://127.0.0.1:$port"
cbase="http://127.0.0.1:$cport"
ready=
for _ in $(seq 1 200); do
  if curl -fs "$base/readyz" >/dev/null 2>&1 && curl -fs "$cbase/fixed" >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.1
done
[ -n "$ready" ] || { echo "servers did not start"; cat "$tmp/serve.log" "$tmp/ceiling.log"; exit 1; }
# Every MCP body must answer with cases or an empty result, never an error.
n=0
while IFS= read -r body; do
  out=$(curl -fs -X POST "$base/mcp" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-06-18' -d "$body")
  case "$out" in
    *'"isError":true'*|*'"error":'*) echo "MCP call failed: $body -> $out"; exit 1 ;;
    *'"result"'*) n=$((n + 1)) ;;
    *) echo "MCP call gave no result: $body -> $out"; exit 1 ;;
  esac
done < "$tmp/mcp.txt"
echo "$n MCP bodies answered with results"
# Every search path must answer 200.
while IFS= read -r p; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base$p")
  [ "$code" = 200 ] || { echo "search $p answered $code"; exit 1; }
done < "$tmp/paths.txt"
rss() { awk '/VmRSS/ {print $2/1024 " MB"}' "/proc/$pid/status"; }
summary=()
run() {
  local name=$1; shift
  echo "### $name (incidentlib rss before: $(rss))"
  wrk -t2 -c"$conns" -d"${secs}s" --latency "$@" > "$tmp/wrk.out"
  sed -n '/Latency/,$p' "$tmp/wrk.out"
  local rate p50 p99 bad
  rate=$(awk '/Requests\/sec/ {print $2}' "$tmp/wrk.out")
  p50=$(awk '$1=="50%" {print $2}' "$tmp/wrk.out")
  p99=$(awk '$1=="99%" {print $2}' "$tmp/wrk.out")
  bad=$(awk '/Non-2xx/ {print $NF} /Socket errors/ {print "socket errors"}' "$tmp/wrk.out" | paste -sd' ' -)
  summary+=("$name|$rate|$p50|$p99|${bad:-none}")
}
run "ceiling: net/http, fixed 4 KB" "$cbase/fixed"
run "GET one case (every case in turn)" -s tools/load/lines.lua "$base" -- "$tmp/cases.txt" GET
run "search (510 distinct)" -s tools/load/lines.lua "$base" -- "$tmp/paths.txt" GET
run "ceiling: MCP SDK, one trivial tool" -s tools/load/lines.lua "$cbase/mcp" -- "$tmp/mcp.txt" POST
run "MCP tools/call search_incidents (510 distinct)" -s tools/load/lines.lua "$base/mcp" -- "$tmp/mcp.txt" POST
run "ceiling: net/http, fixed 4 KB (again)" "$cbase/fixed"
echo "incidentlib rss after: $(rss)"
echo
echo "| load | req/s | p50 | p99 | errors | ratio |"
echo "|---|---|---|---|---|---|"
http_ceiling=$(echo "${summary[0]}" | cut -d'|' -f2)
http_ceiling2=$(echo "${summary[5]}" | cut -d'|' -f2)
mcp_ceiling=$(echo "${summary[3]}" | cut -d'|' -f2)
for i in "${!summary[@]}"; do
  IFS='|' read -r name rate p50 p99 bad <<<"${summary[$i]}"
  case $i in
    1|2) ratio=$(awk -v r="$rate" -v a="$http_ceiling" -v b="$http_ceiling2" 'BEGIN {printf "%.2f× of the net/http ceiling (mean of both runs)", r/((a+b)/2)}') ;;
    4) ratio=$(awk -v r="$rate" -v a="$mcp_ceiling" 'BEGIN {printf "%.2f× of the trivial SDK tool", r/a}') ;;
    *) ratio="ceiling" ;;
  esac
  echo "| $name | $rate | $p50 | $p99 | $bad | $ratio |"
done
