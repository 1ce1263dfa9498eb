#!/usr/bin/env bash
# Scale run: the real corpus and synthetic ones ten and a hundred times its
# size (tools/scale/gen, cases drawn from the real ones with varied words),
# each loaded with `incidentlib import` into its own SQLite file and served
# by `incidentlib serve`, measured side by side in one run with the same
# load: the judged and unanswerable queries of tools/load/queries as
# GET /api/cases?q=… (510 distinct searches), driven by wrk on loopback.
#
# For each corpus: bulk-load time, start-up time (the process started to
# /readyz answering), the first after the load and a restart, both of which
# load the index's snapshot (the real corpus's first start builds it), per-search p50/p99 on one connection, searches/s and
# p50/p99 on 32 connections, resident memory after the load, the time of
# one write (PUT /api/cases/ID, the median of 20) with nothing else
# running, and in pairs of rounds (two by default) the p50/p99 of searches
# on one connection and on 4, alone and while PUTs ran one at a time for
# the whole round (tools/scale/putter; with how many and their median).
#
# Usage: tools/scale/run.sh [SECONDS] [TIMES...]   (default: 20 s, 1 10 100)
# SCALE_ROUNDS: how many pairs of rounds, alone and beside the writes, on
# each number of connections (default 2).
# The synthetic corpora are kept in $SCALE_CACHE (default /tmp/incidentlib-scale)
# between runs; delete it to draw them again.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-20}
shift || true
sizes=("$@")
rounds=${SCALE_ROUNDS:-2}
[ ${#sizes[@]} -gt 0 ] || sizes=(1 10 100)
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 2; }
cache=${SCALE_CACHE:-/tmp/incidentlib-scale}
mkdir -p "$cache"
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
go build -o "$tmp/incidentlib" ./cmd/incidentlib
go build -o "$tmp/gen" ./tools/scale/gen
go build -o "$tmp/putter" ./tools/scale/putter
go run ./tools/load/queries -out "$tmp"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }
export INCIDENTLIB_TOKEN=scale-run-write-token-0123456789
rows=()
for times in "${sizes[@]}"; do
  db="$tmp/scale$times.db"
  load="-"
  if [ "$times" -gt 1 ]; then
    if [ ! -f "$cache/$times/done" ]; then
      rm -rf "${cache:?}/$times"
      "$tmp/gen" -times "$times" -out "$cache/$times"
      touch "$cache/$times/done"
    fi
    t0=$(now)
    "$tmp/incidentlib" import --db "$db" "$cache/$times"/cases-*.jsonl
    load=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f s", b-a}')
  fi
  port=$(freeport)
  base="http://127.0.0.1:$port"
  # Started twice: the first start after the import (which left the
  # index's snapshot beside the file; the real corpus alone has none and
  # builds it), and a restart, which loads the snapshot.
  starts=()
  for round in build restart; do
    t0=$(now)
    "$tmp/incidentlib" serve --addr "127.0.0.1:$port" --db "$db" --rate-limit 0 2>"$tmp/serve$times-$round.log" &
    pid=$!
    pids+=("$pid")
    until curl -fs "$base/readyz" >/dev/null 2>&1; do
      kill -0 "$pid" 2>/dev/null || { echo "serve stopped:"; cat "$tmp/serve$times-$round.log"; exit 1; }
      sleep 0.05
    done
    starts+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.1f s", b-a}')")
    if [ "$round" = build ]; then
      kill "$pid"
      wait "$pid" 2>/dev/null || true
    fi
  done
  grep -q "index loaded from its snapshot" "$tmp/serve$times-restart.log" || { echo "the restart did not load the snapshot:"; cat "$tmp/serve$times-restart.log"; exit 1; }
  start="${starts[0]} / ${starts[1]}"
  cases=$(curl -fs "$base/api/cases?fields=id&limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
  echo "## ${times}x: $cases cases, loaded in $load, started in $start"
  # Every search path answers 200, which also analyses each page's snippet fields once.
  while IFS= read -r p; do
    code=$(curl -s -o /dev/null -w '%{http_code}' "$base$p")
    [ "$code" = 200 ] || { echo "search $p answered $code"; exit 1; }
  done < "$tmp/paths.txt"
  wrkrun() { # CONNS SECONDS: prints rate p50 p99
    wrk -t"$(( $1 < 2 ? 1 : 2 ))" -c"$1" -d"$2s" --latency -s tools/load/lines.lua "$base" -- "$tmp/paths.txt" GET > "$tmp/wrk.out"
    grep -q 'Non-2xx\|Socket errors' "$tmp/wrk.out" && { cat "$tmp/wrk.out"; echo "errors in the load"; exit 1; }
    echo "$(awk '/Requests\/sec/ {print $2}' "$tmp/wrk.out") $(awk '$1=="50%" {print $2}' "$tmp/wrk.out") $(awk '$1=="99%" {print $2}' "$tmp/wrk.out")"
  }
  read -r _ one50 one99 <<<"$(wrkrun 1 "$secs")"
  read -r rate32 p50_32 p99_32 <<<"$(wrkrun 32 "$secs")"
  rss=$(awk '/VmRSS/ {printf "%.0f MB", $2/1024}' "/proc/$pid/status")
  # Writes beside searches: rounds of searches on one connection and on 4,
  # each alone and then with PUTs one at a time (0.2 s apart) for the
  # whole of the round, so that every search of a "during" round runs
  # while writes come; SCALE_ROUNDS pairs of each, as one round's p99
  # moves by several percent from one round to the next and a difference
  # shows only beside that spread. And the median PUT with nothing else
  # running.
  id=$(sed -n 1p "$tmp/cases.txt" | sed 's#.*/##')
  # The writes come from tools/scale/putter: one kept-alive connection,
  # every body made before the first write, one write at a time with 0.2 s
  # between an answer and the next write; each write adds a word of its
  # own to the case's summary (scalewordN).
  putn=1
  puts() { # putter's flags: "N PUTs, median X ms" in $tmp/put.out
    "$tmp/putter" -base "$base" -id "$id" -every 200ms -start "$putn" "$@" > "$tmp/put.out"
    putn=$((putn + $(cut -d' ' -f1 "$tmp/put.out")))
  }
  puts -n 20
  putalone=$(sed 's/.*median //' "$tmp/put.out")
  beside=()
  for conns in 1 4; do
    r=""
    for round in $(seq "$rounds"); do
      read -r _ a50 a99 <<<"$(wrkrun "$conns" "$secs")"
      wrk -t"$(( conns < 2 ? 1 : 2 ))" -c"$conns" -d"$secs"s --latency -s tools/load/lines.lua "$base" -- "$tmp/paths.txt" GET > "$tmp/wrkw.out" &
      wpid=$!
      puts -for "$((secs - 1))s"
      put=$(cat "$tmp/put.out")
      wait "$wpid"
      grep -q 'Non-2xx\|Socket errors' "$tmp/wrkw.out" && { cat "$tmp/wrkw.out"; echo "errors in the load"; exit 1; }
      w50=$(awk '$1=="50%" {print $2}' "$tmp/wrkw.out")
      w99=$(awk '$1=="99%" {print $2}' "$tmp/wrkw.out")
      r+="${r:+; }$a50 / $w50, $a99 / $w99 ($put)"
    done
    beside+=("$r")
  done
  rows+=("${times}x|$cases|$load|$start|$one50|$one99|$rate32|$p50_32|$p99_32|$rss|$putalone|${beside[0]}|${beside[1]}")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
echo
echo "| corpus | cases | bulk load (with the index) | start-up: first / restart | 1 conn p50 | 1 conn p99 | 32 conns req/s | 32 conns p50 | 32 conns p99 | RSS after | one PUT alone (median of 20) | search on 1 conn, p50 alone / during the PUTs, p99 alone / during (the PUTs), $rounds rounds | the same on 4 conns |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
