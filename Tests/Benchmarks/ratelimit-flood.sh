#!/usr/bin/env bash
# The rate limiter's memory under a flood of distinct client addresses. See Tests/Benchmarks/README.md.
#
# Starts the release server with limits on and X-Forwarded-For trusted, then sends requests that
# each come from a new address (GET /v1/tags/ranked without a session: counted per address),
# SOOM_BENCH_FLOOD_ADDRESSES of them (default 1,000,000), and samples the server's resident
# memory throughout. Prints requests/s, the peak RSS and the RSS at the end.
#
#   SOOM_BENCH_FLOOD_ADDRESSES=1000000  SOOM_BENCH_PORT=8186  SOOM_BENCH_CONNECTIONS=32  SOOM_BENCH_THREADS=2
#   SOOM_BENCH_SKIP_BUILD=0   1: use the existing .build-release binary
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ADDRESSES=${SOOM_BENCH_FLOOD_ADDRESSES:-1000000}
PORT=${SOOM_BENCH_PORT:-8186}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-flood-bench.XXXXXX)
chmod 755 "$WORK"  # the embedded cluster runs as postgres when this runs as root
BIN="$ROOT/.build-release/release/soom"
SERVER_PID=""
MONITOR_PID=""

BENCH_NAME=ratelimit-flood.sh
. "$HERE/common.sh"
cleanup() {
    [ -n "$MONITOR_PID" ] && kill "$MONITOR_PID" 2>/dev/null || true
    stop_server
    release_lock
    rm -rf "$WORK"
}
trap cleanup EXIT

install_and_build
take_lock

SOOM_TRUST_FORWARDED_FOR=true SOOM_RATE_LIMIT=on "$BIN" serve --port "$PORT" --data-directory "$WORK/data" >>"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_ready
say "server up; RSS $(( $(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status) / 1024 )) MiB before the flood"

# Peak RSS, sampled every 200 ms.
( peak=0; while kill -0 "$SERVER_PID" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss && echo "$peak" >"$WORK/peak"
    sleep 0.2
  done ) &
MONITOR_PID=$!

# Each wrk thread walks its own part of 10.0.0.0/8 and beyond: a new address per request.
cat >"$WORK/flood.lua" <<LUA
local counter = 0
local offset = tonumber(os.getenv("ROUND") or "0") * 50000000
local thread_id = 0
local threads = 0
setup = function(thread) thread:set("id", threads); threads = threads + 1 end
init = function() thread_id = id end
request = function()
    counter = counter + 1
    local n = offset + counter * $THREADS + thread_id
    local address = string.format("%d.%d.%d.%d", 10 + math.floor(n / 16777216) % 200, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
    return wrk.format("GET", "/v1/tags/ranked", {["X-Forwarded-For"] = address})
end
done = function(summary, latency, requests)
    io.write(string.format("RESULT %d %.0f %.2f %d\n", summary.requests, summary.requests / (summary.duration / 1e6),
        latency:percentile(99) / 1000, summary.errors.status))
end
LUA
say "flooding with $ADDRESSES distinct addresses"
# Run until the address count is reached: wrk runs by time, so in rounds of 20 s.
sent=0
round=0
while [ "$sent" -lt "$ADDRESSES" ]; do
    round=$((round + 1))
    line=$(ROUND=$round wrk -t"$THREADS" -c"$CONNECTIONS" -d20s --latency -s "$WORK/flood.lua" "$URL/v1/tags/ranked" | grep '^RESULT')
    set -- $line
    sent=$((sent + $2))
    say "sent $sent requests ($3 req/s, p99 $4 ms, non-2xx $5); RSS $(( $(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status) / 1024 )) MiB"
done
printf 'addresses: %s   peak RSS: %s MiB   RSS at the end: %s MiB\n' "$sent" \
    "$(( $(cat "$WORK/peak") / 1024 ))" "$(( $(awk '/VmRSS/ {print $2}' /proc/$SERVER_PID/status) / 1024 ))"
