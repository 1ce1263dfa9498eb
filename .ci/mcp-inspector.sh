#!/usr/bin/env bash
# Checks the MCP server with a real third-party client: the MCP Inspector CLI
# (npm @modelcontextprotocol/inspector 0.15.0, the newest that runs on
# Node 20). It starts `incidentlib serve` on a fresh database, lists the
# tools and calls two of them, and fails on any missing tool or error result.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${INCIDENTLIB_CACHE:-/var/cache/incidentlib}
insp="$cache/mcp-inspector-0.15.0"
if [ ! -x "$insp/node_modules/.bin/mcp-inspector" ]; then
  mkdir -p "$insp"
  npm install --prefix "$insp" --no-audit --no-fund @modelcontextprotocol/inspector@0.15.0 >/dev/null
fi
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
# The binary the caller built ($INCIDENTLIB_BIN, as .ci/run does), or a
# fresh build.
if [ -n "${INCIDENTLIB_BIN:-}" ]; then cp "$INCIDENTLIB_BIN" "$tmp/incidentlib"; else go build -o "$tmp/incidentlib" ./cmd/incidentlib; fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$tmp/incidentlib" serve --addr "127.0.0.1:$port" --db "$tmp/i.db" --rate-limit 0 2>"$tmp/serve.log" &
pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
cli() { "$insp/node_modules/.bin/mcp-inspector" --cli "http://127.0.0.1:$port/mcp" "$@"; }

out=$(cli --method tools/list)
for tool in search_incidents get_incident list_incidents get_topic vocab similar_incidents; do
  if ! grep -q "\"$tool\"" <<<"$out"; then
    echo "mcp-inspector: tools/list lacks $tool"; head -40 <<<"$out"; exit 1
  fi
done
grep -q '"readOnlyHint": true' <<<"$out" || { echo "mcp-inspector: tools are not marked read-only"; exit 1; }

# The Inspector exits 0 even for an isError result: read its output.
out=$(cli --method tools/call --tool-name search_incidents --tool-arg query="kube-proxy conntrack DNS" --tool-arg limit=3)
if grep -q '"isError": true' <<<"$out" || ! grep -q 'IL-0049' <<<"$out"; then
  echo "mcp-inspector: search_incidents did not find IL-0049:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method tools/call --tool-name get_incident --tool-arg id=IL-0195 --tool-arg lang=ko)
if grep -q '"isError": true' <<<"$out" || ! grep -q 'cilium' <<<"$out"; then
  echo "mcp-inspector: get_incident IL-0195 failed:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method tools/call --tool-name get_incident --tool-arg id=IL-9999)
grep -q '"isError": true' <<<"$out" || { echo "mcp-inspector: an unknown id did not give an error result"; exit 1; }
# Filters: two values of one field mean either (a case has one severity).
out=$(cli --method tools/call --tool-name list_incidents --tool-arg 'filters={"severity":["critical","major"]}' --tool-arg limit=5)
if grep -q '"isError": true' <<<"$out" || ! grep -q '"total": [1-9]' <<<"$out"; then
  echo "mcp-inspector: list_incidents with two severities found nothing:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method tools/call --tool-name search_incidents --tool-arg query=OOMKilled --tool-arg 'filters={"domain":["kubernetes"]}' --tool-arg limit=3)
if grep -q '"isError": true' <<<"$out" || ! grep -q 'oom-kills' <<<"$out"; then
  echo "mcp-inspector: search_incidents with an alias and a filter failed:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method tools/call --tool-name get_topic --tool-arg term=config-change --tool-arg limit=2 --tool-arg offset=2)
if grep -q '"isError": true' <<<"$out" || ! grep -q '"next_offset": 4' <<<"$out"; then
  echo "mcp-inspector: get_topic paging failed:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method tools/call --tool-name similar_incidents --tool-arg id=IL-0049 --tool-arg limit=3)
if grep -q '"isError": true' <<<"$out" || ! grep -q '"reason"' <<<"$out"; then
  echo "mcp-inspector: similar_incidents failed:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method tools/call --tool-name vocab --tool-arg vocab=root_cause)
if grep -q '"isError": true' <<<"$out" || ! grep -q 'config-change' <<<"$out"; then
  echo "mcp-inspector: vocab failed:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method resources/read --uri 'incident://IL-0049?lang=ko')
if ! grep -q 'IL-0049' <<<"$out" || ! grep -q 'conntrack' <<<"$out"; then
  echo "mcp-inspector: resources/read incident://IL-0049 failed:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method prompts/get --prompt-name investigate_error --prompt-args 'error=OOMKilled')
if ! grep -q 'search_incidents' <<<"$out"; then
  echo "mcp-inspector: prompts/get investigate_error failed:"; head -40 <<<"$out"; exit 1
fi
echo "mcp-inspector: 6 tools listed, 8 calls checked (every tool, with filters and paging), a resource read and a prompt got: ok"
