# Shared by the benchmark scripts (sourced after they set BENCH_NAME,
# ROOT, URL, WORK and SKIP_BUILD): messages, the release build, the lock that keeps two
# benchmarks (or a compiler) from sharing the cores, and the server's start and stop.

say() { printf '[%s %s] %s\n' "$BENCH_NAME" "$(date +%H:%M:%S)" "$*" >&2; }

# The release server as the Dockerfile builds it (static Swift runtime), in .build-release,
# unless SOOM_BENCH_SKIP_BUILD=1.
build_release() {
    if [ "$SKIP_BUILD" != 1 ]; then
        say "building the release server"
        (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-release --product soom >&2)
    fi
}

# wrk from Debian when missing, then build_release.
install_and_build() {
    command -v wrk >/dev/null || { apt-get update -q && apt-get install -y -q wrk; }
    build_release
}

# Quiet cores: wait for other benchmarks and compilers, then hold /tmp/soom-bench.lock until
# release_lock (call it from the EXIT trap). SOOM_BENCH_LOCK_HELD=1: the caller already holds the
# lock (it reserved the cores while builds that had started ran out), so only compilers are waited for.
take_lock() {
    local held=${SOOM_BENCH_LOCK_HELD:-0}
    while { [ "$held" != 1 ] && [ -e /tmp/soom-bench.lock ]; } || pgrep -x swift-frontend >/dev/null || pgrep -x swift-build >/dev/null; do
        say "waiting for /tmp/soom-bench.lock or a compiler"; sleep 10
    done
    echo "$BENCH_NAME $$" >/tmp/soom-bench.lock
    HOLD_LOCK=1
}
release_lock() {
    if [ "${HOLD_LOCK:-0}" = 1 ]; then rm -f /tmp/soom-bench.lock; HOLD_LOCK=0; fi
}

# Waits up to 60 s for /readyz of a server started in the background: `wait_ready [URL LOG]`, by
# default the one at $URL logging to $WORK/server.log (the log is shown when it does not come up).
wait_ready() {
    local url=${1:-$URL} log=${2:-$WORK/server.log}
    for _ in $(seq 120); do curl -sf "$url/readyz" >/dev/null && break; sleep 0.5; done
    curl -sf "$url/readyz" >/dev/null || { cat "$log" >&2; exit 1; }
}

# SIGTERM to a server process (`stop_process PID`; nothing when empty or gone), then up to 30 s
# for it to finish.
stop_process() {
    if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
        kill -TERM "$1"
        for _ in $(seq 60); do kill -0 "$1" 2>/dev/null || break; sleep 0.5; done
    fi
}

# stop_process SERVER_PID.
stop_server() {
    stop_process "${SERVER_PID:-}"
    SERVER_PID=""
}

# Seeds $DATA with $SEED_CARDS cards (accounts, comments and likes in the usual proportions) when
# it holds no cluster yet, then starts the server on it in the background as SERVER_PID and
# records its peak resident memory in $WORK/peak-rss (MONITOR_PID) while the runs go on.
seed_and_serve() {
    if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
        say "seeding $DATA with $SEED_CARDS cards (set-based, a few minutes for 1M)"
        "$BIN" seed --data-directory "$DATA" --cards "$SEED_CARDS" --accounts $((SEED_CARDS / 20)) \
            --comments $((SEED_CARDS / 5)) --likes $((SEED_CARDS * 2)) >&2
    fi
    say "starting the server on $URL"
    SOOM_RATE_LIMIT=off SOOM_CONNECTIONS_PER_ADDRESS=0 "$BIN" serve --port "$PORT" --data-directory "$DATA" >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready
    ( peak=0; while kill -0 "$SERVER_PID" 2>/dev/null; do
          rss=$(ps -o rss= -p "$SERVER_PID" 2>/dev/null | tr -d ' '); [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss && echo "$peak" >"$WORK/peak-rss"
          sleep 0.5; done ) &
    MONITOR_PID=$!
}

# One wrk run of $DURATION seconds with $CONNECTIONS connections: `wrk_run NAME WRK-ARGS...`
# prints a row (requests/s, p50, p99, non-2xx and socket errors) and appends it to results.txt.
# With WARMUP=N (seconds, default 0) the same requests run N seconds first, unmeasured, so that
# the row measures the steady state rather than the first reads of cold caches.
wrk_run() {
    local name=$1; shift
    local file
    file="$WORK/$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '_').txt"
    if [ "${WARMUP:-0}" != 0 ]; then
        say "wrk: $name (warm-up, ${WARMUP} s)"
        wrk -t "$THREADS" -c "$CONNECTIONS" -d "${WARMUP}s" "$@" >"$file.warmup" 2>&1 || true
    fi
    say "wrk: $name"
    wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" --latency "$@" >"$file" 2>&1 || true
    local rps p50 p99 errors
    rps=$(awk '/Requests\/sec/ {print $2}' "$file")
    p50=$(awk '$1 == "50%" {print $2}' "$file")
    p99=$(awk '$1 == "99%" {print $2}' "$file")
    errors=$(awk '/Non-2xx|non-2xx|Socket errors/' "$file" | tr '\n' ' ')
    printf '%-40s %10s req/s   p50 %-9s p99 %-9s %s\n' "$name" "$rps" "$p50" "$p99" "$errors" | tee -a "$WORK/results.txt"
}

# The counters (likes, comment cards, cards, followers, following, tag usage) that differ from a
# recount, as "cards 2, tags 1", or 0 when all are exact; through the caller's `sql`. Arguments
# are more such subqueries to add.
counter_drift_sql() {
    sql "SELECT concat_ws(', ',
           (SELECT 'cards ' || count(*) FROM cards c
              LEFT JOIN (SELECT card_id, count(*) AS n FROM likes GROUP BY card_id) l ON l.card_id = c.id
              LEFT JOIN (SELECT parent_id, count(*) AS n FROM cards WHERE parent_id IS NOT NULL AND hidden_at IS NULL GROUP BY parent_id) m ON m.parent_id = c.id
            WHERE c.like_count <> coalesce(l.n, 0) OR c.comment_count <> coalesce(m.n, 0) HAVING count(*) > 0),
           (SELECT 'accounts ' || count(*) FROM accounts a
              LEFT JOIN (SELECT author_id, count(*) AS n FROM cards WHERE parent_id IS NULL AND hidden_at IS NULL GROUP BY author_id) k ON k.author_id = a.id
              LEFT JOIN (SELECT followee_id, count(*) AS n FROM follows GROUP BY followee_id) i ON i.followee_id = a.id
              LEFT JOIN (SELECT follower_id, count(*) AS n FROM follows GROUP BY follower_id) o ON o.follower_id = a.id
            WHERE a.card_count <> coalesce(k.n, 0) OR a.follower_count <> coalesce(i.n, 0) OR a.following_count <> coalesce(o.n, 0) HAVING count(*) > 0),
           (SELECT 'tags ' || count(*) FROM tags t LEFT JOIN (SELECT tag_key, count(*) AS n FROM card_tags GROUP BY tag_key) u ON u.tag_key = t.key
            WHERE t.usage_count <> coalesce(u.n, 0) HAVING count(*) > 0)${*:+, $*})" | sed 's/^$/0/'
}
