#!/usr/bin/env bash
# Load run on two replicas sharing one PostgreSQL: starts a throwaway
# PostgreSQL cluster (Debian's server binaries, temporary data directory,
# free loopback port), two `incidentlib serve` processes on it, and drives
# both at once with wrk (half the connections each), for GET one case, a
# search and an MCP tools/call, rotating over the lists of tools/load/queries. Usage: tools/load/replicas.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-30}
conns=${2:-32}
half=$(( conns / 2 ))
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 2; }
pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | tail -1)")
tmp=$(mktemp -d)
chown postgres "$tmp" 2>/dev/null || true
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pgport=$(free_port)
cleanup() { kill ${pids:-} 2>/dev/null || true; as_pg "$pgbin/pg_ctl" -D "$tmp/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
as_pg "$pgbin/initdb" -D "$tmp/pg" -A trust -U postgres --no-sync >/dev/null
printf "listen_addresses='127.0.0.1'\nport=%s\nunix_socket_directories='%s'\nmax_connections=100\n" "$pgport" "$tmp" >> "$tmp/pg/postgresql.conf"
as_pg "$pgbin/pg_ctl" -D "$tmp/pg" -l "$tmp/pg.log" -w start >/dev/null
url="postgres://postgres@127.0.0.1:$pgport/postgres?sslmode=disable"
go build -o "$tmp/incidentlib" ./cmd/incidentlib
go run ./tools/load/queries -out "$tmp"
pids=""
ports=()
for i in 1 2; do
  p=$(free_port)
  "$tmp/incidentlib" serve --addr "127.0.0.1:$p" --database-url "$url" --rate-limit 0 --mcp-slots "$((conns * 2))" --mcp-per-client 1000 2>"$tmp/serve$i.log" &
  pids="$pids $!"
  ports+=("$p")
done
for p in "${ports[@]}"; do
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$p/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
done
rss() { for pid in $pids; do awk '/VmRSS/ {printf "%.0f MB ", $2/1024}' "/proc/$pid/status"; done; }
both() {
  local name=$1 list=$2 method=$3
  echo "### $name, two replicas (rss before: $(rss))"
  wrk -t1 -c"$half" -d"${secs}s" --latency -s tools/load/lines.lua "http://127.0.0.1:${ports[0]}$path" -- "$tmp/$list" "$method" > "$tmp/a.txt" &
  local w1=$!
  wrk -t1 -c"$half" -d"${secs}s" --latency -s tools/load/lines.lua "http://127.0.0.1:${ports[1]}$path" -- "$tmp/$list" "$method" > "$tmp/b.txt" &
  local w2=$!
  wait $w1 $w2
  for f in a b; do echo "-- replica $f"; sed -n '/Latency Distribution/,$p' "$tmp/$f.txt"; done
  awk '/Requests\/sec/ {s+=$2} END {printf "combined: %.0f requests/s\n", s}' "$tmp/a.txt" "$tmp/b.txt"
  echo "rss after: $(rss)"
}
path="" both "GET one case (every case in turn)" cases.txt GET
path="" both "search (510 distinct)" paths.txt GET
path=/mcp both "MCP tools/call search_incidents (510 distinct)" mcp.txt POST
