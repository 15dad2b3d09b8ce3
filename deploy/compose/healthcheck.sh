#!/bin/bash
# gore-healthcheck [PATH [PORT [HOST]]]: exits 0 when a Goré server (or
# worker) answers `200` to `GET PATH` on HOST:PORT (defaults: /healthz,
# 8080, 127.0.0.1), 1 otherwise. The image's HEALTHCHECK and compose.yaml
# use it; it speaks HTTP through bash's /dev/tcp so that the image needs
# no curl (`gore` has no HTTP client of its own).
set -u
path=${1:-/healthz}
port=${2:-8080}
host=${3:-127.0.0.1}
# bash's own message for a refused connection is dropped: one line of ours.
{ exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || {
  echo "gore-healthcheck: nothing answers on $host:$port" >&2
  exit 1
}
printf 'GET %s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n\r\n' "$path" "$host" "$port" >&3
# The status line only, e.g. "HTTP/1.1 200 OK"; a server that says nothing
# within 5 s is not healthy.
IFS=' ' read -r -t 5 _ status _ <&3 || {
  echo "gore-healthcheck: no answer from $host:$port within 5 s" >&2
  exit 1
}
[ "$status" = 200 ] || {
  echo "gore-healthcheck: GET $path answered $status" >&2
  exit 1
}
