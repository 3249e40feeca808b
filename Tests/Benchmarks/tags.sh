#!/usr/bin/env bash
# Tag benchmark for the Soom server. See Tests/Benchmarks/README.md ("Tags: tags.sh").
#
#   Tests/Benchmarks/tags.sh
#
# Builds the server in release mode (.build-release), starts it on a seeded embedded database
# (SOOM_BENCH_FEEDS_DATA; seeded with `soom seed` first when it holds no cards — the seed gives
# the cards ~100,000 distinct tags), registers one device, and measures with wrk, in one run,
# 32 connections each:
#   GET /healthz (the reference), GET /v1/tags/ranked, GET /v1/tags/search?q=<Latin prefix>,
#   GET /v1/tags/search?q=<Hangul prefix> (URL-encoded), GET /v1/tags/{name}/cards (first page
#   of a popular tag), POST /v1/cards with three tags (drawn from 1,000 seed tags per request).
# Takes /tmp/soom-bench.lock for the duration (waits while another benchmark holds it).
#
# Settings (environment): as feeds.sh — SOOM_BENCH_FEEDS_DATA, SOOM_BENCH_SEED_CARDS (1000000),
#   SOOM_BENCH_PORT (8183), SOOM_BENCH_DURATION (20), SOOM_BENCH_CONNECTIONS (32),
#   SOOM_BENCH_THREADS (2), SOOM_BENCH_SKIP_BUILD (0), SOOM_BENCH_BIN (measure another build, as feeds.sh); SOOM_BENCH_LATIN (se), SOOM_BENCH_HANGUL (하).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${SOOM_BENCH_FEEDS_DATA:-/tmp/seedtest}
SEED_CARDS=${SOOM_BENCH_SEED_CARDS:-1000000}
PORT=${SOOM_BENCH_PORT:-8183}
LATIN=${SOOM_BENCH_LATIN:-se}
HANGUL=${SOOM_BENCH_HANGUL:-하}
DURATION=${SOOM_BENCH_DURATION:-20}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
[ -n "${SOOM_BENCH_BIN:-}" ] && SKIP_BUILD=1
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-tags-bench.XXXXXX)
BIN=${SOOM_BENCH_BIN:-$ROOT/.build-release/release/soom}
SERVER_PID=""
MONITOR_PID=""

BENCH_NAME=tags.sh
. "$HERE/common.sh"
cleanup() {
    [ -n "$MONITOR_PID" ] && kill "$MONITOR_PID" 2>/dev/null || true
    release_lock
    stop_server
}
trap cleanup EXIT

install_and_build

take_lock

if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
    say "seeding $DATA with $SEED_CARDS cards (set-based, takes a minute or two for 1M)"
    "$BIN" seed --data-directory "$DATA" --cards "$SEED_CARDS" --accounts $((SEED_CARDS / 20)) \
        --comments $((SEED_CARDS / 5)) --likes $((SEED_CARDS * 2)) >&2
fi

say "starting the server on $URL"
SOOM_RATE_LIMIT=off "$BIN" serve --port "$PORT" --data-directory "$DATA" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_ready

# Peak resident memory of the server while the runs go on.
( peak=0; while kill -0 "$SERVER_PID" 2>/dev/null; do
      rss=$(ps -o rss= -p "$SERVER_PID" 2>/dev/null | tr -d ' '); [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss && echo "$peak" >"$WORK/peak-rss"
      sleep 0.5; done ) &
MONITOR_PID=$!

say "registering $CONNECTIONS devices (the posts come from all of them, the reads from the first)"
python3 "$HERE/register.py" "$URL" "$WORK/tokens" "$CONNECTIONS"
TOKEN=$(head -1 "$WORK/tokens")

CREDENTIALS=$(cat "$DATA/postgres-credentials")
DB_PORT=$(grep -o 'postgres://soom@127.0.0.1:[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*://')
sql() { PGPASSWORD=$CREDENTIALS psql -h 127.0.0.1 -p "$DB_PORT" -U soom -d soom -At -c "$1"; }
TOTAL=$(sql "SELECT count(*) FROM cards")
DISTINCT=$(sql "SELECT count(*) FROM tags WHERE usage_count > 0")
# The feed: the tenth most used tag (a long feed); the posts: 1,000 tags of the head and middle.
FEED_TAG=$(sql "SELECT key FROM tags WHERE usage_count > 0 ORDER BY usage_count DESC, key OFFSET 9 LIMIT 1")
sql "SELECT name FROM tags WHERE usage_count > 0 ORDER BY usage_count DESC, key LIMIT 1000" >"$WORK/tags.txt"
MATCH_LATIN=$(sql "SELECT count(*) FROM tags WHERE usage_count > 0 AND starts_with(key, '$LATIN')")
MATCH_HANGUL=$(sql "SELECT count(*) FROM tags WHERE usage_count > 0 AND starts_with(key, '$HANGUL')")
urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
say "$TOTAL cards, $DISTINCT tags in use; feed tag '$FEED_TAG'; '$LATIN' matches $MATCH_LATIN tags, '$HANGUL' matches $MATCH_HANGUL"

cat >"$WORK/post.lua" <<LUA
local tags, tokens = {}, {}
for line in io.lines("$WORK/tags.txt") do tags[#tags + 1] = line end
for line in io.lines("$WORK/tokens") do tokens[#tokens + 1] = line end
math.randomseed(os.time())
wrk.headers["Content-Type"] = "application/json"
request = function()
    local a, b, c = tags[math.random(#tags)], tags[math.random(#tags)], tags[math.random(#tags)]
    return wrk.format("POST", "/v1/cards", {["Authorization"] = "Bearer " .. tokens[math.random(#tokens)]},
        '{"content":"태그 벤치마크 ' .. math.random(1000000) .. '","background":{"default":"sea-calm"},"tags":["' .. a .. '","' .. b .. '","' .. c .. '"]}')
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
    printf '%-34s %10s req/s   p50 %-9s p99 %-9s %s\n' "$name" "$rps" "$p50" "$p99" "$errors" | tee -a "$WORK/results.txt"
}
AUTH="Authorization: Bearer $TOKEN"
run "GET /healthz" "$URL/healthz"
run "GET /v1/tags/ranked" "$URL/v1/tags/ranked"
run "GET search q=$LATIN" "$URL/v1/tags/search?q=$(urlencode "$LATIN")"
run "GET search q=$HANGUL" "$URL/v1/tags/search?q=$(urlencode "$HANGUL")"
run "GET /v1/tags/{name}/cards" -H "$AUTH" "$URL/v1/tags/$(urlencode "$FEED_TAG")/cards?limit=20"
run "POST /v1/cards (3 tags)" -s "$WORK/post.lua" "$URL"
sleep 1
DRIFT=$(sql "SELECT count(*) FROM tags t WHERE usage_count <> (SELECT count(*) FROM card_tags c WHERE c.tag_key = t.key)")
echo "server peak RSS: $(( $(cat "$WORK/peak-rss" 2>/dev/null || echo 0) / 1024 )) MiB   (cards at start: $TOTAL; tags in use: $DISTINCT; counts differing from a recount afterwards: $DRIFT; results in $WORK)" | tee -a "$WORK/results.txt"
