#!/usr/bin/env bash
# Nearby feed benchmark for the Soom server. See Tests/Benchmarks/README.md.
#
#   Tests/Benchmarks/nearby.sh
#
# Builds the server in release mode (.build-release), starts it on a seeded embedded database
# (SOOM_BENCH_NEARBY_DATA; seeded with `soom seed` first when it holds no cards: one card in ten
# carries a location, 42 % of those around Seoul, the rest in 15 other cities), registers one
# device, and measures with wrk, in one run, 32 connections each:
#   GET /healthz (the reference), then GET /v1/feeds/nearby?limit=20 around Seoul's city hall at
#   every radius (1, 5, 10, 20, 50 km), a page deep in the 10 km feed (by its cursor), the 5 km
#   feed from a point rotating through the 16 cities, and the 5 km feed from an empty sea.
# Prints requests/s, p50/p99 and the server's peak resident memory. Stops the server at the end.
#
# Settings (environment):
#   SOOM_BENCH_NEARBY_DATA=/tmp/soom-nearby-1m   embedded cluster folder (reused; seeded if empty)
#   SOOM_BENCH_SEED_CARDS=1000000                cards to seed when the database is empty
#   SOOM_BENCH_PORT=8183  SOOM_BENCH_DURATION=20  SOOM_BENCH_CONNECTIONS=32  SOOM_BENCH_THREADS=2
#   SOOM_BENCH_WARMUP=3                          seconds of the same requests before each row, not
#                                                measured (0: measure from a cold start)
#   SOOM_BENCH_SKIP_BUILD=0                      1: use the existing .build-release binary
#   SOOM_BENCH_BIN=<path to soom>                measure this binary instead (as feeds.sh)
#   SOOM_MARKS_CACHE=60                          passed to the server: the one reader's marks are kept
#                                                after its first page; 0 reads them for every page, as
#                                                for a reader who sees the page's cards for the first time
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${SOOM_BENCH_NEARBY_DATA:-/tmp/soom-nearby-1m}
SEED_CARDS=${SOOM_BENCH_SEED_CARDS:-1000000}
PORT=${SOOM_BENCH_PORT:-8183}
DURATION=${SOOM_BENCH_DURATION:-20}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
WARMUP=${SOOM_BENCH_WARMUP:-3}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
[ -n "${SOOM_BENCH_BIN:-}" ] && SKIP_BUILD=1
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-nearby-bench.XXXXXX)
BIN=${SOOM_BENCH_BIN:-$ROOT/.build-release/release/soom}
SERVER_PID=""
MONITOR_PID=""

BENCH_NAME=nearby.sh
. "$HERE/common.sh"
cleanup() {
    [ -n "$MONITOR_PID" ] && kill "$MONITOR_PID" 2>/dev/null || true
    stop_server
    release_lock
}
trap cleanup EXIT

install_and_build
take_lock

seed_and_serve

python3 "$HERE/register.py" "$URL" "$WORK/tokens" 1
TOKEN=$(head -1 "$WORK/tokens")
CREDENTIALS=$(cat "$DATA/postgres-credentials")
DB_PORT=$(grep -o 'postgres://soom@127.0.0.1:[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*://')
sql() { PGPASSWORD=$CREDENTIALS psql -h 127.0.0.1 -p "$DB_PORT" -U soom -d soom -At -c "$1"; }
TOTAL=$(sql "SELECT count(*) FROM cards")
LOCATED=$(sql "SELECT count(*) FROM cards WHERE geo_cell IS NOT NULL AND parent_id IS NULL")
SEOUL="latitude=37.5665&longitude=126.9780"
# A cursor half-way down the 10 km feed around Seoul.
DEEP=$(python3 - "$URL" "$TOKEN" "$SEOUL" <<'PY'
import json, sys, urllib.request
url, token, point = sys.argv[1:4]
cursor = None
for _ in range(60):
    request = urllib.request.Request(f"{url}/v1/feeds/nearby?{point}&radiusKm=10&limit=50" + (f"&cursor={cursor}" if cursor else ""))
    request.add_header("Authorization", "Bearer " + token)
    page = json.load(urllib.request.urlopen(request))
    if not page["nextCursor"]: break
    cursor = page["nextCursor"]
print(cursor or "")
PY
)
say "$TOTAL cards, $LOCATED located top-level cards; deep cursor after 3,000 cards of the 10 km feed"

cat >"$WORK/cities.lua" <<LUA
local points = {{37.5665, 126.9780}, {35.1796, 129.0756}, {37.4563, 126.7052}, {35.8714, 128.6014}, {36.3504, 127.3845},
    {35.1595, 126.8526}, {37.2636, 127.0286}, {33.4996, 126.5312}, {35.5384, 129.3114}, {35.8242, 127.1480},
    {37.7519, 128.8761}, {35.6762, 139.6503}, {34.6937, 135.5023}, {40.7128, -74.0060}, {48.8566, 2.3522}, {51.5072, -0.1276}}
local n = 0
wrk.headers["Authorization"] = "Bearer $TOKEN"
request = function()
    n = n + 1
    local p = points[(n % #points) + 1]
    return wrk.format("GET", string.format("/v1/feeds/nearby?latitude=%.4f&longitude=%.4f&radiusKm=5&limit=20", p[1], p[2]))
end
LUA

AUTH="Authorization: Bearer $TOKEN"
wrk_run "GET /healthz" "$URL/healthz"
for radius in 1 5 10 20 50; do
    wrk_run "nearby Seoul ${radius} km, first page" -H "$AUTH" "$URL/v1/feeds/nearby?$SEOUL&radiusKm=$radius&limit=20"
done
[ -n "$DEEP" ] && wrk_run "nearby Seoul 10 km, deep page" -H "$AUTH" "$URL/v1/feeds/nearby?$SEOUL&radiusKm=10&limit=20&cursor=$DEEP"
wrk_run "nearby 5 km, 16 cities in turn" -s "$WORK/cities.lua" "$URL"
wrk_run "nearby 5 km, open sea (empty)" -H "$AUTH" "$URL/v1/feeds/nearby?latitude=36.0&longitude=125.0&radiusKm=5&limit=20"
echo "server peak RSS: $(( $(cat "$WORK/peak-rss" 2>/dev/null || echo 0) / 1024 )) MiB   (cards: $TOTAL; located top-level: $LOCATED; results in $WORK)" | tee -a "$WORK/results.txt"
