#!/usr/bin/env bash
# What the rate limiter costs. See Tests/Benchmarks/README.md.
#
# Starts the release server twice on a fresh embedded database, first with SOOM_RATE_LIMIT=off,
# then with the limiter on and limits too large to be reached, and loads the same routes both
# times: GET /v1/me with one token (one counter, the worst case for its lock), GET /v1/me with 32
# tokens (counters spread over the shards, as real traffic is), GET /v1/tags/ranked without a
# session (counted per client address: every request on one counter), and /healthz (not limited).
#
#   SOOM_BENCH_PORT=8185  SOOM_BENCH_DURATION=15  SOOM_BENCH_CONNECTIONS=32  SOOM_BENCH_THREADS=2
#   SOOM_BENCH_SKIP_BUILD=0   1: use the existing .build-release binary
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PORT=${SOOM_BENCH_PORT:-8185}
DURATION=${SOOM_BENCH_DURATION:-15}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-ratelimit-bench.XXXXXX)
chmod 755 "$WORK"  # the embedded cluster runs as postgres when this runs as root
BIN="$ROOT/.build-release/release/soom"
SERVER_PID=""

BENCH_NAME=ratelimit.sh
. "$HERE/common.sh"
cleanup() {
    stop_server
    release_lock
    rm -rf "$WORK"
}
trap cleanup EXIT

install_and_build
take_lock

start_server() {  # $1: extra environment for the server, e.g. SOOM_RATE_LIMIT=off
    env $1 "$BIN" serve --port "$PORT" --data-directory "$WORK/data" >>"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready
}

cat >"$WORK/tokens.lua" <<LUA
local tokens = {}
for line in io.lines("$WORK/tokens") do tokens[#tokens + 1] = line end
local mode = os.getenv("MODE")
local counter = 0
request = function()
    counter = counter + 1
    local token = mode == "one" and tokens[1] or tokens[(counter % #tokens) + 1]
    return wrk.format("GET", "/v1/me", {["Authorization"] = "Bearer " .. token})
end
local failures = 0
response = function(status) if status ~= 200 then failures = failures + 1 end end
done = function(summary, latency, requests)
    io.write(string.format("RESULT %.0f %.2f %.2f %d\n", summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
LUA
cat >"$WORK/plain.lua" <<'LUA'
done = function(summary, latency, requests)
    io.write(string.format("RESULT %.0f %.2f %.2f %d\n", summary.requests / (summary.duration / 1e6),
        latency:percentile(50) / 1000, latency:percentile(99) / 1000, summary.errors.status))
end
LUA

run() {  # $1 label, $2 script, $3 path, $4 MODE
    local line
    line=$(MODE="$4" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$2" "$URL$3" | grep '^RESULT')
    set -- "$1" $line
    printf '%-34s %8s req/s   p50 %6s ms   p99 %6s ms   non-2xx %s\n' "$1" "$3" "$4" "$5" "$6"
}

say "registering $CONNECTIONS devices"
start_server "SOOM_RATE_LIMIT=off"
python3 "$HERE/register.py" "$URL" "$WORK/tokens" "$CONNECTIONS"

for setting in "SOOM_RATE_LIMIT=off" "SOOM_RATE_LIMIT_DEFAULT=1000000000/300"; do
    stop_server
    start_server "$setting"
    echo "== $setting"
    run "healthz (never limited)" "$WORK/plain.lua" /healthz ""
    run "GET /v1/me, one account" "$WORK/tokens.lua" /v1/me one
    run "GET /v1/me, $CONNECTIONS accounts" "$WORK/tokens.lua" /v1/me many
    run "GET /v1/tags/ranked, one address" "$WORK/plain.lua" /v1/tags/ranked ""
done
