#!/usr/bin/env bash
# Feed and card benchmark for the Soom server. See Tests/Benchmarks/README.md.
#
#   Tests/Benchmarks/feeds.sh
#
# Builds the server in release mode (.build-release), starts it on a seeded embedded database
# (SOOM_BENCH_FEEDS_DATA; seeded with `soom seed` first when it holds no cards), registers one
# device, and measures with wrk, in one run, 32 connections each:
#   GET /healthz (the reference), GET /v1/feeds/latest?limit=20 (first page and a deep cursor,
#   half-way down the feed), GET /v1/cards/{id} (random cards), POST /v1/cards, PUT like (random cards),
#   GET /v1/cards/{id} and PUT poll/vote on 64 polls of four options by the first device (then 25
#   plain cards on top, so the first page holds what it did), a random option from one of the others.
# Prints requests/s, p50/p99 and the server's peak resident memory. Stops the server at the end.
#
# Settings (environment):
#   SOOM_BENCH_FEEDS_DATA=/tmp/seedtest   embedded cluster folder (reused; seeded if empty)
#   SOOM_BENCH_SEED_CARDS=1000000         cards to seed when the database is empty (accounts = cards/20)
#   SOOM_BENCH_PORT=8182  SOOM_BENCH_DURATION=20  SOOM_BENCH_CONNECTIONS=32  SOOM_BENCH_THREADS=2
#   SOOM_BENCH_SKIP_BUILD=0               1: use the existing .build-release binary
#   SOOM_BENCH_BIN=<path to soom>         measure this binary instead (implies SOOM_BENCH_SKIP_BUILD=1):
#                                         another commit's release build, for a before/after comparison
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${SOOM_BENCH_FEEDS_DATA:-/tmp/seedtest}
SEED_CARDS=${SOOM_BENCH_SEED_CARDS:-1000000}
PORT=${SOOM_BENCH_PORT:-8182}
DURATION=${SOOM_BENCH_DURATION:-20}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
[ -n "${SOOM_BENCH_BIN:-}" ] && SKIP_BUILD=1
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-feeds-bench.XXXXXX)
BIN=${SOOM_BENCH_BIN:-$ROOT/.build-release/release/soom}
SERVER_PID=""
MONITOR_PID=""

BENCH_NAME=feeds.sh
. "$HERE/common.sh"
cleanup() {
    [ -n "$MONITOR_PID" ] && kill "$MONITOR_PID" 2>/dev/null || true
    stop_server
}
trap cleanup EXIT

install_and_build

if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
    say "seeding $DATA with $SEED_CARDS cards (set-based, takes a minute or two for 1M)"
    "$BIN" seed --data-directory "$DATA" --cards "$SEED_CARDS" --accounts $((SEED_CARDS / 20)) \
        --comments $((SEED_CARDS / 5)) --likes $((SEED_CARDS * 2)) >&2
fi

say "starting the server on $URL"
SOOM_RATE_LIMIT=off SOOM_CONNECTIONS_PER_ADDRESS=0 "$BIN" serve --port "$PORT" --data-directory "$DATA" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_ready

# Peak resident memory of the server while the runs go on.
( peak=0; while kill -0 "$SERVER_PID" 2>/dev/null; do
      rss=$(ps -o rss= -p "$SERVER_PID" 2>/dev/null | tr -d ' '); [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss && echo "$peak" >"$WORK/peak-rss"
      sleep 0.5; done ) &
MONITOR_PID=$!

say "registering $CONNECTIONS devices (writes come from all of them, reads from the first); choosing cards and a deep cursor"
python3 "$HERE/register.py" "$URL" "$WORK/tokens" "$CONNECTIONS"
head -1 "$WORK/tokens" >"$WORK/token"
python3 - "$URL" "$WORK" <<'PY'
import json, sys, urllib.request
url, work = sys.argv[1], sys.argv[2]
def call(method, path, body=None, token=None):
    request = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token: request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response: return json.load(response)
token = open(f"{work}/token").read().strip()
# Random cards for detail and like: walk a few pages of the latest feed with large pages.
ids, cursor = [], None
for _ in range(40):
    page = call("GET", "/v1/feeds/latest?limit=50" + (f"&cursor={cursor}" if cursor else ""), token=token)
    ids += [item["id"] for item in page["items"]]
    cursor = page["nextCursor"]
    if not cursor: break
open(f"{work}/cards.txt", "w").write("\n".join(ids) + "\n")
# Polls to vote in: posted by the reader, voted in by every other device.
polls = [call("POST", "/v1/cards", {"content": f"벤치마크 투표 {n}", "background": {"default": "sea-calm"},
                                   "poll": {"options": ["가", "나", "다", "라"]}}, token=token)["id"] for n in range(64)]
open(f"{work}/polls.txt", "w").write("\n".join(polls) + "\n")
# Then plain cards on top, so that the latest feed's first page holds what it held before polls.
for n in range(25):
    call("POST", "/v1/cards", {"content": f"벤치마크 카드 {n}", "background": {"default": "sea-calm"}}, token=token)
PY
TOKEN=$(cat "$WORK/token")

# A deep cursor: the keyset of the card half-way down the latest feed, in the server's own format
# (this script is ours; clients treat cursors as opaque).
CREDENTIALS=$(cat "$DATA/postgres-credentials")
DB_PORT=$(grep -o 'postgres://soom@127.0.0.1:[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*://')
MIDDLE=$(PGPASSWORD=$CREDENTIALS psql -h 127.0.0.1 -p "$DB_PORT" -U soom -d soom -At -c \
    "SELECT (extract(epoch FROM created_at) * 1000000)::int8 || '|' || id FROM cards WHERE parent_id IS NULL
     ORDER BY created_at DESC, id DESC OFFSET (SELECT count(*) / 2 FROM cards WHERE parent_id IS NULL) LIMIT 1")
TOTAL=$(PGPASSWORD=$CREDENTIALS psql -h 127.0.0.1 -p "$DB_PORT" -U soom -d soom -At -c "SELECT count(*) FROM cards")
DEEP=$(printf 'v1|latest|%s' "$MIDDLE" | base64 -w0 | tr '+/' '-_' | tr -d '=')
say "$TOTAL cards in the database; deep cursor at the middle of the latest feed"

cat >"$WORK/random.lua" <<LUA
local ids, tokens, polls = {}, {}, {}
for line in io.lines("$WORK/cards.txt") do ids[#ids + 1] = line end
for line in io.lines("$WORK/polls.txt") do polls[#polls + 1] = line end
for line in io.lines("$WORK/tokens") do tokens[#tokens + 1] = line end
math.randomseed(os.time())
local mode = os.getenv("MODE")
wrk.headers["Authorization"] = "Bearer $TOKEN"
wrk.headers["Content-Type"] = "application/json"
request = function()
    local id = ids[math.random(#ids)]
    local writer = {["Authorization"] = "Bearer " .. tokens[math.random(#tokens)]}
    if mode == "like" then return wrk.format("PUT", "/v1/cards/" .. id .. "/like", writer) end
    if mode == "polldetail" then return wrk.format("GET", "/v1/cards/" .. polls[math.random(#polls)]) end
    if mode == "vote" then
        -- Any device but the first, which posted the polls.
        local voter = {["Authorization"] = "Bearer " .. tokens[math.random(2, #tokens)]}
        local body = '{"options":[' .. math.random(0, 3) .. ']}'
        return wrk.format("PUT", "/v1/cards/" .. polls[math.random(#polls)] .. "/poll/vote", voter, body)
    end
    if mode == "post" then
        return wrk.format("POST", "/v1/cards", writer, '{"content":"벤치마크 카드 ' .. math.random(1000000) .. '","background":{"default":"sea-calm"},"tags":["bench"]}')
    end
    return wrk.format("GET", "/v1/cards/" .. id)
end
local failures = 0
response = function(status) if status >= 300 then failures = failures + 1 end end
done = function() io.write(string.format("non-2xx: %d\n", failures)) end
LUA

run() { # name, wrk arguments...
    local name=$1; shift
    local file
    file="$WORK/$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '_').txt"
    say "wrk: $name"
    wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" --latency "$@" >"$file" 2>&1 || true
    local rps p50 p99 errors
    rps=$(awk '/Requests\/sec/ {print $2}' "$file")
    p50=$(awk '$1 == "50%" {print $2}' "$file")
    p99=$(awk '$1 == "99%" {print $2}' "$file")
    errors=$(awk '/Non-2xx|non-2xx|Socket errors/' "$file" | tr '\n' ' ')
    printf '%-28s %10s req/s   p50 %-9s p99 %-9s %s\n' "$name" "$rps" "$p50" "$p99" "$errors" | tee -a "$WORK/results.txt"
}
AUTH="Authorization: Bearer $TOKEN"
run "GET /healthz" "$URL/healthz"
run "GET latest (first page)" -H "$AUTH" "$URL/v1/feeds/latest?limit=20"
run "GET latest (deep cursor)" -H "$AUTH" "$URL/v1/feeds/latest?limit=20&cursor=$DEEP"
export MODE=detail; run "GET /v1/cards/{id}" -s "$WORK/random.lua" "$URL"
export MODE=post; run "POST /v1/cards" -s "$WORK/random.lua" "$URL"
export MODE=like; run "PUT like" -s "$WORK/random.lua" "$URL"
export MODE=polldetail; run "GET poll card" -s "$WORK/random.lua" "$URL"
export MODE=vote; run "PUT poll/vote" -s "$WORK/random.lua" "$URL"
sleep 1
echo "server peak RSS: $(( $(cat "$WORK/peak-rss" 2>/dev/null || echo 0) / 1024 )) MiB   (cards at start: $TOTAL; results in $WORK)" | tee -a "$WORK/results.txt"
