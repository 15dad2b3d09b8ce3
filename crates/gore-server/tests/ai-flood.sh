#!/usr/bin/env bash
# The innocent game's first-move latency under a flood of top-level AI games
# (docs/BENCHMARKS.md, "AI flood"). Not a test: a measurement, run by hand
# against a `gore serve` already running.
#
#   ai-flood.sh URL GAMES [ADDRESSES]
#
# URL        the server on loopback, started with --rate-limit 0 (the flood
#            is not what the rate limit is measured on)
# GAMES      top-level games the flood creates at once, each with the AI
#            to move first (LEVEL=n in the environment for another level;
#            the top is 12, gore-ai's MAX_LEVEL)
# ADDRESSES  how many client addresses the flood comes from: curl binds
#            127.1.x.y (all of 127/8 is loopback on Linux); default 1
#
# Prints the flood's answers by HTTP status, then the time from the
# innocent's create request (level 1, from 127.0.0.77, the AI to move
# first) until its game shows the AI's first action (polled every 20 ms).
set -euo pipefail
url=${1:?URL}
games=${2:?GAMES}
addrs=${3:-1}
level=${LEVEL:-12}
codes=$(mktemp)
trap 'rm -f "$codes"' EXIT

for i in $(seq 0 $((games - 1))); do
  a=$((i % addrs))
  curl -s -o /dev/null -w '%{http_code}\n' \
    --interface "127.1.$((a / 256)).$((a % 256 + 1))" \
    -H 'content-type: application/json' \
    -d "{\"mode\":\"ai\",\"level\":$level,\"colour\":\"B\"}" "$url/api/games" >>"$codes" &
done
wait
echo "flood of $games level-$level games from $addrs address(es):"
sort "$codes" | uniq -c | sed 's/^/  HTTP /'

start=$(date +%s%N)
id=$(curl -s --interface 127.0.0.77 -H 'content-type: application/json' \
  -d '{"mode":"ai","level":1,"colour":"B"}' "$url/api/games" | jq -r .id)
while :; do
  ply=$(curl -s "$url/api/games/$id" | jq '.ply // .head.ply // 0')
  [ "$ply" -ge 1 ] && break
  sleep 0.02
done
end=$(date +%s%N)
echo "innocent level-1 game $id: first AI move after $(((end - start) / 1000000)) ms"
