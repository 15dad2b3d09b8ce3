#!/usr/bin/env bash
# The load and scale benchmark of docs/BENCHMARKS.md (issue 9): one server
# on SQLite, one on PostgreSQL, two on one PostgreSQL database, each driven
# by gore-load with GAMES concurrent games at a pace of one action per game
# every THINK_MS on average.
#
#   crates/gore-load/scale.sh CONFIG THINK_MS [GAMES] [ACTIONS] [SEED]
#   CONFIG: sqlite | pg1 | pg2
#
# Needs the release binaries (cargo build --release -p gore-cli -p gore-load)
# and, for pg1/pg2, PostgreSQL at $GORE_BENCH_PG (a database URL whose role
# may create databases; default postgres://gore:gore@127.0.0.1/gore_test).
# Each run gets a fresh database. With pg2 the games are spread over both
# servers and each is also watched from the other server (--watch-elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../.."
config=${1:?sqlite, pg1 or pg2}
think=${2:?mean milliseconds between two actions of a game}
games=${3:-1000}
actions=${4:-20}
seed=${5:-1}
bin=target/release
pg=${GORE_BENCH_PG:-postgres://gore:gore@127.0.0.1/gore_test}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Limits per address raised: every game comes from this one address.
flags=(--rate-limit 0 --max-conns-per-ip 1000000 --max-sockets-per-ip 1000000)

start() { # db port -> waits for the ready line
  "$bin/gore" serve --port "$2" --db "$1" "${flags[@]}" >"$work/out.$2" 2>"$work/err.$2" &
  pids+=($!)
  for _ in $(seq 1 100); do
    grep -q "is ready" "$work/out.$2" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "server on port $2 did not start:" >&2
  cat "$work/err.$2" >&2
  exit 1
}

fresh_pg() {
  local name=gore_bench
  psql -q "$pg" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" -c "CREATE DATABASE $name"
  echo "${pg%/*}/$name"
}

case $config in
  sqlite)
    start "$work/bench.sqlite3" 18091
    urls=http://127.0.0.1:18091
    extra=()
    ;;
  pg1)
    db=$(fresh_pg)
    start "$db" 18091
    urls=http://127.0.0.1:18091
    extra=()
    ;;
  pg2)
    db=$(fresh_pg)
    start "$db" 18091
    start "$db" 18092
    urls=http://127.0.0.1:18091,http://127.0.0.1:18092
    extra=(--watch-elsewhere)
    ;;
  *) echo "unknown CONFIG $config" >&2; exit 2 ;;
esac

echo "== $config, $games games, think $think ms, $actions actions, seed $seed ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
"$bin/gore-load" --url "$urls" --games "$games" --actions "$actions" \
  --think-ms "$think" --seed "$seed" --duration 300 "${extra[@]}"
