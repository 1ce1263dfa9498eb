#!/usr/bin/env bash
# Two replicas on one PostgreSQL at ten times the corpus: starts a throwaway
# PostgreSQL cluster (Debian's server binaries, a temporary data directory,
# a free loopback port), loads the synthetic 10x corpus (tools/scale/gen)
# with `incidentlib import --database-url`, starts two `incidentlib serve`
# on it, then makes 20 writes on the first replica (PUT of a case with a new
# word) and measures, for each, how long until a search on the second
# replica finds the word. Prints the load time, both start-up times and
# the median and largest delay.
# Usage: tools/scale/replicas.sh [TIMES]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
times=${1:-10}
pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | tail -1)")
cache=${SCALE_CACHE:-/tmp/incidentlib-scale}
tmp=$(mktemp -d)
chown postgres "$tmp" 2>/dev/null || true
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }
pids=""
cleanup() { kill ${pids:-} 2>/dev/null || true; as_pg "$pgbin/pg_ctl" -D "$tmp/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
pgport=$(free_port)
as_pg "$pgbin/initdb" -D "$tmp/pg" -A trust -U postgres --no-sync >/dev/null
printf "listen_addresses='127.0.0.1'\nport=%s\nunix_socket_directories='%s'\nmax_connections=100\n" "$pgport" "$tmp" >> "$tmp/pg/postgresql.conf"
as_pg "$pgbin/pg_ctl" -D "$tmp/pg" -l "$tmp/pg.log" -w start >/dev/null
url="postgres://postgres@127.0.0.1:$pgport/postgres?sslmode=disable"
go build -o "$tmp/incidentlib" ./cmd/incidentlib
if [ ! -f "$cache/$times/done" ]; then
  rm -rf "${cache:?}/$times"
  go run ./tools/scale/gen -times "$times" -out "$cache/$times"
  touch "$cache/$times/done"
fi
t0=$(now)
"$tmp/incidentlib" import --database-url "$url" "$cache/$times"/cases-*.jsonl
load=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f s", b-a}')
export INCIDENTLIB_TOKEN=scale-run-write-token-0123456789
ports=()
starts=()
for i in 1 2; do
  p=$(free_port)
  t0=$(now)
  "$tmp/incidentlib" serve --addr "127.0.0.1:$p" --database-url "$url" --rate-limit 0 2>"$tmp/serve$i.log" &
  pids="$pids $!"
  until curl -fs "http://127.0.0.1:$p/readyz" >/dev/null 2>&1; do sleep 0.05; done
  starts+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f s", b-a}')")
  ports+=("$p")
done
one="http://127.0.0.1:${ports[0]}"
two="http://127.0.0.1:${ports[1]}"
total=$(curl -fs "$two/api/cases?fields=id&limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
id=IL-10007
curl -fs "$one/api/cases/$id" > "$tmp/case.json"
: > "$tmp/delays"
for i in $(seq 1 20); do
  word="replicaword$i$RANDOM"
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["summary"]["en"]+=" "+sys.argv[2]; c.pop("url",None); print(json.dumps(c))' "$tmp/case.json" "$word" > "$tmp/put.json"
  t0=$(now)
  curl -fs -o /dev/null -X PUT "$one/api/cases/$id" -H "Authorization: Bearer $INCIDENTLIB_TOKEN" \
    -H 'Content-Type: application/json' --data-binary @"$tmp/put.json"
  until curl -fs "$two/api/cases?q=$word&fields=id" | grep -q "\"$id\""; do
    if awk -v a="$t0" -v b="$(now)" 'BEGIN {exit !(b-a > 10)}'; then echo "write $i not seen on the second replica after 10 s"; exit 1; fi
    sleep 0.01
  done
  awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.3f\n", b-a}' >> "$tmp/delays"
done
med=$(sort -n "$tmp/delays" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
worst=$(sort -n "$tmp/delays" | tail -1)
echo
echo "| replicas | cases | load (import --database-url) | start-up, replica 1 / 2 | write on 1 seen by a search on 2: median / largest of 20 |"
echo "|---|---|---|---|---|"
echo "| 2 on one PostgreSQL | $total | $load | ${starts[0]} / ${starts[1]} | ${med} s / ${worst} s |"
