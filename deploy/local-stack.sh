#!/usr/bin/env bash
# Goré's whole stack on this machine, without Docker: what compose.yaml
# starts (PostgreSQL, two `gore serve`, one `gore worker`, nginx in front),
# from a built `gore` binary, Debian's PostgreSQL and nginx, on loopback
# ports. docs/DEPLOY.md, "The whole stack in one command"; CI runs it
# (crates/gore-cli/tests/stack.rs). `deploy/local-stack.sh --help` says how.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: deploy/local-stack.sh [OPTIONS] [-- SERVE_ARGS...]

Starts Goré's whole stack on loopback: PostgreSQL, the web servers, the AI
workers and nginx in front (the nginx configuration is compose.yaml's own,
deploy/compose/nginx.conf, with loopback addresses). Waits until every
server's /readyz answers 200 and nginx serves, prints the site's address and
every /metrics address, then runs until Ctrl-C or SIGTERM, or until one of
its processes dies; it then stops them all (servers drain) and exits
(0 when asked to stop, 1 when something failed).

Options:
  --gore PATH      the gore binary (default: $GORE_BIN, else `gore` on the
                   PATH, else target/release/gore of this checkout)
  --db URL         an existing PostgreSQL database, postgres://... (default:
                   $GORE_STACK_DB; without either, a throwaway cluster is
                   made with initdb under the stack's directory and removed
                   at the end)
  --port N         nginx's port on 127.0.0.1, the site's (default 8080;
                   0: a free one)
  --servers N      web servers (default 2)
  --workers N      AI workers, `gore worker` (default 1); 0: each server
                   plays its AI games' turns and runs its analyses itself
                   (--ai-threads 1 --analysis-threads 1)
  --worker-threads N  search threads per worker (default 1)
  --dir DIR        where the configuration, logs and a throwaway database
                   go (kept; default: a new temporary directory, removed)
  --timeout SECS   how long everything may take to be ready (default 120)
  --nginx PATH     the nginx binary (default /usr/sbin/nginx)
  -h, --help       this help
Arguments after `--` are given to every `gore serve`, e.g. -- --rate-limit 0

What it prints once ready (one item a line, for people and scripts alike):
  site: http://127.0.0.1:PORT/
  server N: http://127.0.0.1:PORT/ pid PID
  metrics server N: http://127.0.0.1:PORT/metrics
  worker N: pid PID
  metrics worker N: http://127.0.0.1:PORT/metrics
  nginx: pid PID
  postgres: pid PID          (the throwaway cluster's, if made)
  database: postgres://USER:***@HOST:PORT/DB
  logs: DIR
  ready
EOF
}

# A failure keeps the stack's directory, for its logs.
die() {
  echo "local-stack: $*" >&2
  keep=yes
  exit 1
}

# Options.
keep=yes
gore=${GORE_BIN:-}
db=${GORE_STACK_DB:-}
port=8080
servers=2
workers=1
worker_threads=1
dir=
timeout=120
nginx=/usr/sbin/nginx
serve_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --gore) gore=${2:?--gore needs a path}; shift 2 ;;
    --db) db=${2:?--db needs a URL}; shift 2 ;;
    --port) port=${2:?--port needs a number}; shift 2 ;;
    --servers) servers=${2:?--servers needs a number}; shift 2 ;;
    --workers) workers=${2:?--workers needs a number}; shift 2 ;;
    --worker-threads) worker_threads=${2:?--worker-threads needs a number}; shift 2 ;;
    --dir) dir=${2:?--dir needs a directory}; shift 2 ;;
    --timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
    --nginx) nginx=${2:?--nginx needs a path}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; serve_args=("$@"); break ;;
    *) usage >&2; die "unknown option $1" ;;
  esac
done
for n in "$port" "$servers" "$workers" "$worker_threads" "$timeout"; do
  [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
done
[ "$servers" -ge 1 ] || die "--servers must be at least 1"
[ "$worker_threads" -ge 1 ] || die "--worker-threads must be at least 1"

here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$gore" ]; then
  gore=$(command -v gore || true)
  [ -n "$gore" ] || gore="$here/../target/release/gore"
fi
[ -x "$gore" ] || die "no gore binary at $gore (cargo build --release, or --gore PATH)"
[ -x "$nginx" ] || die "no nginx at $nginx (apt-get install nginx, or --nginx PATH)"
if [ "$workers" -gt 0 ] && ! "$gore" worker --help >/dev/null 2>&1; then
  die "$gore has no \`worker\` command: use --workers 0 (the servers play the AI)"
fi

# The stack's directory: configuration, logs, a throwaway database.
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/gore-stack.XXXXXX")
  keep=no
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# Every process started, by name, for the stop; the throwaway cluster's
# data directory, if any.
declare -A pids=()
pg_data=
stopping=no

# Runs PostgreSQL's server tools as `postgres` when root (it refuses to run
# as root), as the caller otherwise.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Stops every process, nginx first (no new traffic), then the servers and
# workers together (each drains within its --drain-seconds), then the
# throwaway database; SIGKILL for any still there after 30 s.
stop_all() {
  [ "$stopping" = no ] || return 0
  stopping=yes
  local name pid deadline
  for phase in nginx gore; do
    for name in "${!pids[@]}"; do
      case $phase:$name in nginx:nginx | gore:server* | gore:worker*) ;; *) continue ;; esac
      kill -TERM "${pids[$name]}" 2>/dev/null || true
    done
    deadline=$((SECONDS + 30))
    for name in "${!pids[@]}"; do
      case $phase:$name in nginx:nginx | gore:server* | gore:worker*) ;; *) continue ;; esac
      pid=${pids[$name]}
      while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then
        echo "local-stack: $name (pid $pid) did not stop in 30 s: killed" >&2
        kill -KILL "$pid" 2>/dev/null || true
      fi
      wait "$pid" 2>/dev/null || true
    done
  done
  if [ -n "$pg_data" ]; then
    as_pg "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  if [ "$keep" = no ]; then rm -rf "$dir"; fi
}
on_exit() {
  local status=$?
  stop_all
  exit "$status"
}
trap on_exit EXIT
# Asked to stop: a clean stop is a success.
trap 'echo "local-stack: stopping" >&2; stop_all; echo "stopped"; exit 0' INT TERM

# A port on 127.0.0.1 where nothing listens now, outside the kernel's
# ephemeral range (where the servers' own --port 0 ports come from).
free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  die "no free port found"
}

deadline=$((SECONDS + timeout))
# Waits until `cmd...` succeeds, checking that process `name` still runs;
# fails with `what` at the overall deadline.
wait_for() {
  local name=$1 what=$2
  shift 2
  until "$@"; do
    if [ -n "$name" ] && ! kill -0 "${pids[$name]}" 2>/dev/null; then
      die "$name exited before $what (its log: $dir/$name.log)"
    fi
    [ "$SECONDS" -lt "$deadline" ] || die "$what: not within ${timeout} s"
    sleep 0.2
  done
}

# PostgreSQL: the database given, or a throwaway cluster of our own.
if [ -z "$db" ]; then
  pg_bin=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -1)
  [ -n "$pg_bin" ] || pg_bin=$(dirname "$(command -v initdb || echo /nonexistent/initdb)")
  [ -x "$pg_bin/initdb" ] || die "no --db and no PostgreSQL to make one (apt-get install postgresql)"
  pg_data="$dir/postgres"
  mkdir -p "$pg_data"
  # As root, PostgreSQL runs as its own user, who must reach its directory.
  if [ "$(id -u)" = 0 ]; then
    chmod 755 "$dir"
    chown postgres: "$pg_data"
  fi
  # Trust on loopback and the directory's socket only: a throwaway for
  # this machine, never reachable from another.
  as_pg "$pg_bin/initdb" -D "$pg_data" -U gore --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
    || die "initdb failed: $dir/initdb.log"
  started=no
  for _ in 1 2 3 4 5; do
    pg_port=$(free_port)
    if as_pg "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_data/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pg_data" start >/dev/null 2>&1; then
      started=yes
      break
    fi
  done
  [ "$started" = yes ] || die "PostgreSQL did not start: $pg_data/server.log"
  as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U gore gore \
    || die "createdb failed"
  db="postgres://gore@127.0.0.1:$pg_port/gore"
  # Its first line is the postmaster's pid.
  pg_pid=$(head -n 1 "$pg_data/postmaster.pid")
fi
case $db in postgres://* | postgresql://*) ;; *) die "--db must be a postgres:// URL: $db" ;; esac

# nginx's port, known before the servers start: their --public-url.
[ "$port" != 0 ] || port=$(free_port)
site="http://127.0.0.1:$port"

# The servers: no AI (nor analysis board) of their own when workers do it.
ai_threads=0 analysis_threads=0
[ "$workers" -gt 0 ] || { ai_threads=1; analysis_threads=1; }
# The address line `gore serve` prints on stdout once it serves.
printed() { grep -q "^$2" "$dir/$1.out" 2>/dev/null; }
declare -a server_urls=() server_metrics=()
for i in $(seq 1 "$servers"); do
  # The URL goes through the environment (GORE_DB): a password on the
  # command line would be in the process list.
  GORE_DB=$db "$gore" serve --addr 127.0.0.1 --port 0 \
    --trust-proxy 127.0.0.1 --public-url "$site" \
    --metrics-addr 127.0.0.1:0 --ai-threads "$ai_threads" \
    --analysis-threads "$analysis_threads" --drain-seconds 5 \
    "${serve_args[@]}" </dev/null >"$dir/server$i.out" 2>"$dir/server$i.log" &
  pids[server$i]=$!
done
for i in $(seq 1 "$servers"); do
  wait_for "server$i" "server $i's start" printed "server$i" "Metrics: "
  server_urls[i]=$(sed -n 's|^Goré is ready: open \(http://[^ ]*\)/$|\1|p' "$dir/server$i.out")
  server_metrics[i]=$(sed -n 's|^Metrics: ||p' "$dir/server$i.out")
done

# The workers.
declare -a worker_metrics=()
for i in $(seq 1 "$workers"); do
  GORE_DB=$db "$gore" worker --threads "$worker_threads" \
    --metrics-addr 127.0.0.1:0 --drain-seconds 5 </dev/null >"$dir/worker$i.out" 2>"$dir/worker$i.log" &
  pids[worker$i]=$!
done
for i in $(seq 1 "$workers"); do
  wait_for "worker$i" "worker $i's start" printed "worker$i" "Metrics: "
  worker_metrics[i]=$(sed -n 's|^Metrics: ||p' "$dir/worker$i.out")
done

# nginx, with compose.yaml's configuration: its three `local-stack:` lines
# rewritten for loopback (each must be found, or the two have drifted).
mkdir -p "$dir/nginx/gore"
cp "$here/nginx/nginx-test.conf" "$dir/nginx/nginx-test.conf"
cp "$here/nginx/gore/proxy.conf" "$dir/nginx/gore/proxy.conf"
upstreams=
for i in $(seq 1 "$servers"); do
  upstreams+="    server ${server_urls[i]#http://} max_fails=3 fail_timeout=10s;"$'\n'
done
awk -v listen="    listen 127.0.0.1:$port;" -v upstreams="$upstreams" '
  /# local-stack: dropped$/ { found["dropped"] = 1; next }
  /# local-stack: one line per server$/ { found["servers"] = 1; printf "%s", upstreams; next }
  /# local-stack: 127\.0\.0\.1:PORT$/ { found["listen"] = 1; print listen; next }
  { print }
  END { exit (length(found) == 3 ? 0 : 1) }
' "$here/compose/nginx.conf" >"$dir/nginx/gore-local.conf" \
  || die "deploy/compose/nginx.conf lacks one of its three local-stack: lines"
"$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx-test.conf" -t >"$dir/nginx.log" 2>&1 \
  || die "nginx -t failed: $dir/nginx.log"
"$nginx" -p "$dir/nginx" -c "$dir/nginx/nginx-test.conf" </dev/null >>"$dir/nginx.log" 2>&1 &
pids[nginx]=$!

# Ready: every server's /readyz, then nginx's own answer (its /healthz
# reaches a server).
# The image's health check, silent while nothing answers yet.
check() { "$here/compose/healthcheck.sh" "$@" 2>/dev/null; }
for i in $(seq 1 "$servers"); do
  p=${server_urls[i]##*:}
  wait_for "server$i" "server $i's /readyz" check /readyz "$p"
done
wait_for nginx "nginx's /healthz on port $port (another process on it?)" check /healthz "$port"
# Every process still there (nginx may have lost its port to another
# server, which then answered for it).
for name in "${!pids[@]}"; do
  kill -0 "${pids[$name]}" 2>/dev/null || die "$name exited during the start (logs: $dir)"
done

echo "site: $site/"
for i in $(seq 1 "$servers"); do
  echo "server $i: ${server_urls[i]}/ pid ${pids[server$i]}"
  echo "metrics server $i: ${server_metrics[i]}"
done
for i in $(seq 1 "$workers"); do
  echo "worker $i: pid ${pids[worker$i]}"
  echo "metrics worker $i: ${worker_metrics[i]}"
done
echo "nginx: pid ${pids[nginx]}"
# The database's address without its password.
[ -z "$pg_data" ] || echo "postgres: pid $pg_pid"
echo "database: $(sed -E 's|//([^:/@]*):[^@]*@|//\1:***@|' <<<"$db")"
echo "logs: $dir"
echo "ready"

# Runs until one process exits (a failure: everything is stopped) or a
# signal says to stop (the trap above).
while true; do
  wait -n || true
  for name in "${!pids[@]}"; do
    if ! kill -0 "${pids[$name]}" 2>/dev/null; then
      [ "$stopping" = no ] || exit 0
      echo "local-stack: $name exited; stopping everything (logs: $dir)" >&2
      keep=yes
      exit 1
    fi
  done
done
