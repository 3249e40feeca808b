#!/usr/bin/env bash
# Live notification streams: how many one instance holds, and how fast a burst reaches them.
# See Tests/Benchmarks/README.md ("Streams: streams.sh").
#
#   Tests/Benchmarks/streams.sh
#
# Builds the release server (.build-release), seeds a small embedded database when it holds no
# accounts (SOOM_BENCH_STREAMS_DATA, default /tmp/soom-streams: 2,000 accounts), starts the
# server, makes a session for each of SOOM_BENCH_STREAM_ACCOUNTS accounts in SQL, opens
# SOOM_BENCH_STREAMS_PER_ACCOUNT (5, the most an account may have) streams for each, and then, in
# SOOM_BENCH_BURSTS bursts, writes one notification to every one of those accounts in one
# statement and times each event's arrival on every stream. Goals: 5,000 streams, p99 ≤ 1 s,
# RSS ≤ 300 MB. Exits 1 when a goal is missed or an event is lost.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${SOOM_BENCH_STREAMS_DATA:-/tmp/soom-streams}
PORT=${SOOM_BENCH_PORT:-8190}
URL="http://127.0.0.1:$PORT"
ACCOUNTS=${SOOM_BENCH_STREAM_ACCOUNTS:-1000}
PER_ACCOUNT=${SOOM_BENCH_STREAMS_PER_ACCOUNT:-5}
BURSTS=${SOOM_BENCH_BURSTS:-3}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
BIN=${SOOM_BENCH_BIN:-$ROOT/.build-release/release/soom}
WORK=$(mktemp -d /tmp/soom-streams-bench.XXXXXX)
BENCH_NAME=streams
# shellcheck source=common.sh
source "$HERE/common.sh"

cleanup() { stop_server; release_lock; }
trap cleanup EXIT INT TERM

build_release
take_lock
# Every stream is a socket on both sides.
ulimit -n "$(ulimit -Hn)"
if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
    say "seeding $DATA"
    "$BIN" seed --data-directory "$DATA" --cards 20000 --accounts 2000 --comments 1000 --likes 10000 >&2
fi
say "starting the server on $URL"
SOOM_RATE_LIMIT=off SOOM_CONNECTIONS_PER_ADDRESS=0 "$BIN" serve --port "$PORT" --data-directory "$DATA" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_ready
DB_PORT=$(sed -n 4p "$DATA/postgres/postmaster.pid" | tr -d ' ')
CREDENTIALS=$(cat "$DATA/postgres-credentials")
export PGPASSWORD=$CREDENTIALS
say "opening $((ACCOUNTS * PER_ACCOUNT)) streams"
python3 "$HERE/streams.py" "$URL" "psql -h 127.0.0.1 -p $DB_PORT -U soom -d soom -At -q -v ON_ERROR_STOP=1" "$SERVER_PID" \
    --accounts "$ACCOUNTS" --per-account "$PER_ACCOUNT" --bursts "$BURSTS" | tee "$WORK/results.txt"
result=$(grep '^RESULT' "$WORK/results.txt")
streams=$(sed -E 's/.*streams=([0-9]+).*/\1/' <<<"$result")
rss=$(sed -E 's/.*rss_mb=([0-9]+).*/\1/' <<<"$result")
p99=$(sed -E 's/.*p99_ms=([0-9]+).*/\1/' <<<"$result")
received=$(sed -E 's/.*received=([0-9]+).*/\1/' <<<"$result")
expected=$(sed -E 's/.*expected=([0-9]+).*/\1/' <<<"$result")
status=0
[ "$streams" -ge $((ACCOUNTS * PER_ACCOUNT)) ] || { say "only $streams streams opened"; status=1; }
[ "$received" -eq "$expected" ] || { say "events lost: $received of $expected"; status=1; }
[ "$p99" -le 1000 ] || { say "p99 $p99 ms is over 1 s"; status=1; }
[ "$rss" -le 300 ] || { say "RSS $rss MB is over 300 MB"; status=1; }
grep -iE "error|warning" "$WORK/server.log" | head -5 >&2 || true
exit $status
