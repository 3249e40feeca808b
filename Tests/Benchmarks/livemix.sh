#!/usr/bin/env bash
# Live-mix benchmark for the Soom server. See Tests/Benchmarks/README.md ("Live mix: livemix.sh").
#
#   Tests/Benchmarks/livemix.sh                                        # the release build, caches on
#   SOOM_BENCH_BIN=old/soom SOOM_BENCH_BIN_B=new/soom Tests/Benchmarks/livemix.sh   # an A/B, alternating
#   SOOM_BENCH_CACHES="on off" Tests/Benchmarks/livemix.sh             # the feed and marks caches on, then off
#
# Seeds an embedded database (SOOM_BENCH_LIVEMIX_DATA, SOOM_BENCH_SEED_CARDS cards) once, registers
# SOOM_BENCH_ACCOUNTS devices that follow, favour tags and post (livemix.py setup), and then, in
# SOOM_BENCH_ROUNDS rounds, for each build and cache setting in turn, starts the server and runs
# /healthz, the read mix (SOOM_BENCH_FEW_WRITES % writes) and the write-heavy mix
# (SOOM_BENCH_HEAVY_WRITES % writes) with wrk (livemix.lua: every request as a random account);
# each mix after SOOM_BENCH_WARMUP s unmeasured. A mix's figure is its ratio to the /healthz of
# the same server a minute earlier. Afterwards recounts every counter (likes, comment cards,
# followers, cards, tag usage) and prints one table (livemix.py summary). Takes
# /tmp/soom-bench.lock; waits while a compiler runs.
#
# Settings (environment): SOOM_BENCH_LIVEMIX_DATA (/tmp/soom-livemix), SOOM_BENCH_SEED_CARDS
#   (100000), SOOM_BENCH_ACCOUNTS (256), SOOM_BENCH_PORT (8186), SOOM_BENCH_DURATION (20),
#   SOOM_BENCH_WARMUP (5), SOOM_BENCH_ROUNDS (1), SOOM_BENCH_CONNECTIONS (32), SOOM_BENCH_THREADS (2),
#   SOOM_BENCH_FEW_WRITES (2), SOOM_BENCH_HEAVY_WRITES (20), SOOM_BENCH_CACHES ("on"),
#   SOOM_BENCH_SKIP_BUILD (0), SOOM_BENCH_BIN (build A; default the release build), SOOM_BENCH_BIN_B.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${SOOM_BENCH_LIVEMIX_DATA:-/tmp/soom-livemix}
SEED_CARDS=${SOOM_BENCH_SEED_CARDS:-100000}
ACCOUNTS=${SOOM_BENCH_ACCOUNTS:-256}
PORT=${SOOM_BENCH_PORT:-8186}
DURATION=${SOOM_BENCH_DURATION:-20}
WARMUP=${SOOM_BENCH_WARMUP:-5}
ROUNDS=${SOOM_BENCH_ROUNDS:-1}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
FEW_WRITES=${SOOM_BENCH_FEW_WRITES:-2}
HEAVY_WRITES=${SOOM_BENCH_HEAVY_WRITES:-20}
CACHES=${SOOM_BENCH_CACHES:-on}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
[ -n "${SOOM_BENCH_BIN:-}" ] && SKIP_BUILD=1
BIN=${SOOM_BENCH_BIN:-$ROOT/.build-release/release/soom}
BIN_B=${SOOM_BENCH_BIN_B:-}
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-livemix-bench.XXXXXX)
SERVER_PID=""
MONITOR_PID=""

BENCH_NAME=livemix.sh
. "$HERE/common.sh"
cleanup() {
    release_lock
    stop_server
}
trap cleanup EXIT

install_and_build
take_lock

# start BINARY CACHES: the server on $DATA in the background, the caches on or off.
start() {
    local feed=() marks=()
    [ "$2" = off ] && feed=(SOOM_FEED_CACHE=0) && marks=(SOOM_MARKS_CACHE=0)
    env SOOM_RATE_LIMIT=off SOOM_CONNECTIONS_PER_ADDRESS=0 "${feed[@]}" "${marks[@]}" \
        "$1" serve --port "$PORT" --data-directory "$DATA" >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready
    DB_PORT=$(grep -o 'postgres://soom@127.0.0.1:[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*://')
}
sql() { PGPASSWORD=$(cat "$DATA/postgres-credentials") psql -h 127.0.0.1 -p "$DB_PORT" -U soom -d soom -At -c "$1"; }

if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
    say "seeding $DATA with $SEED_CARDS cards"
    "$BIN" seed --data-directory "$DATA" --cards "$SEED_CARDS" --accounts $((SEED_CARDS / 20)) \
        --comments $((SEED_CARDS / 5)) --likes $((SEED_CARDS * 2)) >&2
fi
start "$BIN" on
if [ ! -f "$DATA/livemix-tokens" ]; then
    say "registering and shaping $ACCOUNTS accounts"
    sql "SELECT id FROM accounts ORDER BY random() LIMIT 2000" >"$WORK/seeded"
    python3 "$HERE/livemix.py" setup "$URL" "$WORK" "$WORK/seeded" "$ACCOUNTS"
    cp "$WORK/tokens" "$DATA/livemix-tokens"; cp "$WORK/accounts" "$DATA/livemix-accounts"
fi
cp "$DATA/livemix-tokens" "$WORK/tokens"; cp "$DATA/livemix-accounts" "$WORK/accounts"
# Cards read and liked: the 1,000 newest top-level cards and 1,000 more of any age, none a story.
sql "(SELECT id FROM cards WHERE parent_id IS NULL AND hidden_at IS NULL AND expires_at IS NULL ORDER BY created_at DESC LIMIT 1000)
     UNION (SELECT id FROM cards WHERE parent_id IS NULL AND hidden_at IS NULL AND expires_at IS NULL ORDER BY random() LIMIT 1000)" >"$WORK/cards"
python3 -c 'import sys, urllib.parse; [print(urllib.parse.quote(t, safe="")) for t in sys.argv[1:]]' \
    $(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import livemix; print(" ".join(livemix.TAGS))' "$HERE") >"$WORK/tags"
say "$(sql "SELECT count(*) FROM cards") cards, $(wc -l <"$WORK/tokens") accounts in the mix"
stop_server

# One row: `row BUILD CACHES MIX WRITES` appends build, caches, mix, ratio, req/s, p99 (ms) and
# non-2xx to results.tsv; /healthz is the row with WRITES empty.
row() {
    local name=$1_$2_$3 file
    file="$WORK/$name.$round.txt"
    if [ -z "$4" ]; then
        wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" --latency "$URL/healthz" >"$file" 2>&1 || true
        HEALTHZ=$(awk '/Requests\/sec/ {print $2}' "$file")
    else
        SOOM_BENCH_WORK=$WORK SOOM_BENCH_WRITES=$4 wrk -t "$THREADS" -c "$CONNECTIONS" -d "${WARMUP}s" \
            -s "$HERE/livemix.lua" "$URL" >"$file.warmup" 2>&1 || true
        SOOM_BENCH_WORK=$WORK SOOM_BENCH_WRITES=$4 wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" --latency \
            -s "$HERE/livemix.lua" "$URL" >"$file" 2>&1 || true
    fi
    awk -v build="$1" -v caches="$2" -v mix="$3" -v healthz="$HEALTHZ" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /Requests\/sec/ { rps = $2 }
        $1 == "99%" { p99 = ms($2) }
        /Non-2xx/ { errors += $NF }
        /Socket errors/ { errors += 1 }
        END { printf "%s\t%s\t%s\t%.4f\t%.0f\t%.2f\t%d\n", build, caches, mix, rps / healthz, rps, p99, errors }' "$file" |
        tee -a "$WORK/results.tsv" >&2
}

for round in $(seq "$ROUNDS"); do
    for build in A ${BIN_B:+B}; do
        binary=$BIN; [ "$build" = B ] && binary=$BIN_B
        for caches in $CACHES; do
            say "round $round: build $build, caches $caches"
            start "$binary" "$caches"
            row "$build" "$caches" healthz ""
            row "$build" "$caches" few "$FEW_WRITES"
            row "$build" "$caches" heavy "$HEAVY_WRITES"
            stop_server
        done
    done
done

start "$BIN" on
DRIFT=$(counter_drift_sql)
stop_server

python3 "$HERE/livemix.py" summary "$WORK/results.tsv" | tee "$WORK/results.md"
echo "counters differing from a recount: $DRIFT; builds: A = $BIN${BIN_B:+, B = $BIN_B}; results in $WORK" | tee -a "$WORK/results.md"
[ "$DRIFT" = 0 ]
