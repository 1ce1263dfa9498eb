#!/usr/bin/env bash
# Checks the MCP server with a real third-party client: the MCP Inspector CLI
# (npm @modelcontextprotocol/inspector 0.15.0, the newest that runs on
# Node 20). It starts `incidentlib serve` on a fresh database, lists the
# tools and calls two of them, and fails on any missing tool or error result.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${INCIDENTLIB_CACHE:-/var/cache/incidentlib}
insp="$cache/mcp-inspector-0.15.0"
# "install" only installs the Inspector (.ci/run does it in the background
# from the start, while the network is all the step waits on).
if [ ! -x "$insp/node_modules/.bin/mcp-inspector" ]; then
  mkdir -p "$insp"
  npm install --prefix "$insp" --no-audit --no-fund @modelcontextprotocol/inspector@0.15.0 >/dev/null
fi
[ "${1:-}" = install ] && exit 0
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

# The tools and their example calls come from the tool registry
# (tools/mcpexamples), never from a list kept here.
# The lister the caller built ($MCPEXAMPLES_BIN, as .ci/run does), or go run.
list_examples() { if [ -n "${MCPEXAMPLES_BIN:-}" ]; then "$MCPEXAMPLES_BIN" "$@"; else go run ./tools/mcpexamples "$@"; fi; }
mapfile -t tools < <(list_examples -names)
mapfile -t examples < <(list_examples)
[ ${#tools[@]} -gt 0 ] && [ ${#examples[@]} -ge ${#tools[@]} ] || { echo "mcp-inspector: the registry gave no tools or examples"; exit 1; }
out=$(cli --method tools/list)
for tool in "${tools[@]}"; do
  if ! grep -q "\"$tool\"" <<<"$out"; then
    echo "mcp-inspector: tools/list lacks $tool"; head -40 <<<"$out"; exit 1
  fi
done
grep -q '"readOnlyHint": true' <<<"$out" || { echo "mcp-inspector: tools are not marked read-only"; exit 1; }

# Each example: the tool, then what its answer must hold, then one
# --tool-arg per argument (a string as it is, anything else as JSON). The
# Inspector exits 0 even for an isError result: read its output. Each call
# starts node anew (about a second of processor time), so two run at once;
# every call's output is kept and a failure shows its own.
run_example() { # $1: the example's number, $2: the example
  local parts targs a out
  mapfile -t parts < <(python3 -c '
import json, sys
e = json.loads(sys.argv[1])
print(e["tool"]); print(e["want"])
for k, v in e["args"].items():
    print("%s=%s" % (k, v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)))
' "$2")
  targs=()
  for a in "${parts[@]:2}"; do targs+=(--tool-arg "$a"); done
  out=$(cli --method tools/call --tool-name "${parts[0]}" "${targs[@]}")
  if grep -q '"isError": true' <<<"$out" || ! grep -qF -- "${parts[1]}" <<<"$out"; then
    echo "mcp-inspector: ${parts[0]} $2: the answer is an error or lacks ${parts[1]}:"; head -40 <<<"$out"; return 1
  fi
  echo "${parts[0]}" >"$tmp/called.$1"
}
running=() failed=0 n=0
for ex in "${examples[@]}"; do
  run_example "$n" "$ex" >"$tmp/example.$n.log" 2>&1 &
  running+=($!) n=$((n + 1))
  if [ ${#running[@]} -ge 2 ]; then wait "${running[0]}" || failed=1; running=("${running[@]:1}"); fi
done
for p in "${running[@]}"; do wait "$p" || failed=1; done
if [ "$failed" != 0 ]; then cat "$tmp"/example.*.log; exit 1; fi
called=()
for ((i = 0; i < n; i++)); do
  [ -f "$tmp/called.$i" ] || { echo "mcp-inspector: example $i left no answer"; cat "$tmp/example.$i.log"; exit 1; }
  called+=("$(cat "$tmp/called.$i")")
done
for tool in "${tools[@]}"; do
  printf '%s\n' "${called[@]}" | grep -qx "$tool" || { echo "mcp-inspector: no example calls $tool"; exit 1; }
done
out=$(cli --method tools/call --tool-name get_incident --tool-arg id=IL-9999)
grep -q '"isError": true' <<<"$out" || { echo "mcp-inspector: an unknown id did not give an error result"; exit 1; }
out=$(cli --method resources/read --uri 'incident://IL-0049?lang=ko')
if ! grep -q 'IL-0049' <<<"$out" || ! grep -q 'conntrack' <<<"$out"; then
  echo "mcp-inspector: resources/read incident://IL-0049 failed:"; head -40 <<<"$out"; exit 1
fi
out=$(cli --method prompts/get --prompt-name investigate_error --prompt-args 'error=OOMKilled')
if ! grep -q 'search_incidents' <<<"$out"; then
  echo "mcp-inspector: prompts/get investigate_error failed:"; head -40 <<<"$out"; exit 1
fi
echo "mcp-inspector: ${#tools[@]} tools listed, ${#examples[@]} example calls checked (every tool, from the registry), an unknown id, a resource read and a prompt got: ok"
