#!/usr/bin/env bash
# The web servers' action latency during an AI flood, with the AI on a
# worker or inside the servers (docs/BENCHMARKS.md, "AI flood with
# workers"). Not a test: a measurement, run by hand.
#
#   ai-workers-bench.sh BIN_DIR PG_URL MODE FLOOD [SEED]
#
# BIN_DIR  where the release `gore` and `gore-load` are (target/release)
# PG_URL   a PostgreSQL database URL whose role may create databases; a
#          fresh database gore_aibench is made next to it for each run
# GAMES    in the environment: gore-load's games (default 200)
# MODE     workers: two `gore serve --ai-threads 0` and one `gore worker
#          --threads 1`; inline: two `gore serve --ai-threads 1`, no worker
# FLOOD    top-level AI games created at once (from as many addresses,
#          127.1.0.x) just before the load starts; 0 for none
#
# The web servers, gore-load and PostgreSQL (every postgres process, for
# the run; put back on every core after) are pinned to core 0 and the
# worker to core 1 (taskset), as if the worker were a machine of its own.
# Prints gore-load's report (the action latency over GAMES games, from the
# environment, 200 by default, of 20 actions across both servers, sockets
# on the other server).
set -euo pipefail
bin=${1:?BIN_DIR}
pg=${2:?PG_URL}
mode=${3:?MODE}
flood=${4:?FLOOD}
seed=${5:-1}
db="${pg%/*}/gore_aibench"
psql "$pg" -qc "DROP DATABASE IF EXISTS gore_aibench" -c "CREATE DATABASE gore_aibench"

export RUST_LOG=${RUST_LOG:-warn}
pin_postgres() { for p in $(pgrep -x postgres); do taskset -a -p -c "$1" "$p" >/dev/null; done; }
pin_postgres 0
pids=()
out=$(mktemp -d)
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$out"; pin_postgres 0-1' EXIT
threads=0
[ "$mode" = inline ] && threads=1
for port in 18281 18282; do
  taskset -c 0 "$bin/gore" serve --port "$port" --rate-limit 0 --ai-threads "$threads" \
    --max-conns-per-ip 100000 --max-sockets-per-ip 100000 --db "$db" >"$out/$port" &
  pids+=($!)
done
if [ "$mode" = workers ]; then
  taskset -c 1 "$bin/gore" worker --threads 1 --db "$db" >"$out/worker" &
  pids+=($!)
fi
# Ready once each has printed its first line.
for f in 18281 18282 $([ "$mode" = workers ] && echo worker); do
  for _ in $(seq 1 300); do [ -s "$out/$f" ] && break; sleep 0.1; done
  [ -s "$out/$f" ] || { echo "$f did not start" >&2; exit 1; }
done

if [ "$flood" -gt 0 ]; then
  for i in $(seq 1 "$flood"); do
    curl -s -o /dev/null --interface "127.1.0.$i" -H 'content-type: application/json' \
      -d '{"mode":"ai","level":12,"colour":"B"}' http://127.0.0.1:18281/api/games &
  done
  wait_for_curls() { for p in $(jobs -p); do case " ${pids[*]} " in *" $p "*) ;; *) wait "$p";; esac; done; }
  wait_for_curls
  echo "flood: $flood level-12 games created"
fi
taskset -c 0 "$bin/gore-load" --url http://127.0.0.1:18281,http://127.0.0.1:18282 \
  --socket-elsewhere --games "${GAMES:-200}" --actions 20 --think-ms 200 --seed "$seed"
