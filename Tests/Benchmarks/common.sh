# Shared by feeds.sh, tags.sh, people.sh and ratelimit.sh (sourced after they set BENCH_NAME,
# ROOT, URL, WORK and SKIP_BUILD): messages, the release build, the lock that keeps two
# benchmarks (or a compiler) from sharing the cores, and the server's start and stop.

say() { printf '[%s %s] %s\n' "$BENCH_NAME" "$(date +%H:%M:%S)" "$*" >&2; }

# wrk from Debian when missing; the release server unless SOOM_BENCH_SKIP_BUILD=1.
install_and_build() {
    command -v wrk >/dev/null || { apt-get update -q && apt-get install -y -q wrk; }
    if [ "$SKIP_BUILD" != 1 ]; then
        say "building the release server"
        (cd "$ROOT" && swift build -c release --scratch-path .build-release --product soom >&2)
    fi
}

# Quiet cores: wait for other benchmarks and compilers, then hold /tmp/soom-bench.lock until
# release_lock (call it from the EXIT trap).
take_lock() {
    while [ -e /tmp/soom-bench.lock ] || pgrep -x swift-frontend >/dev/null || pgrep -x swift-build >/dev/null; do
        say "waiting for /tmp/soom-bench.lock or a compiler"; sleep 10
    done
    echo "$BENCH_NAME $$" >/tmp/soom-bench.lock
    HOLD_LOCK=1
}
release_lock() {
    if [ "${HOLD_LOCK:-0}" = 1 ]; then rm -f /tmp/soom-bench.lock; HOLD_LOCK=0; fi
}

# Waits up to 60 s for /readyz of the server started in the background as SERVER_PID (its log in
# $WORK/server.log, shown when it does not come up).
wait_ready() {
    for _ in $(seq 120); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.5; done
    curl -sf "$URL/readyz" >/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
}

# SIGTERM to SERVER_PID, then up to 30 s for it to finish.
stop_server() {
    if [ -n "${SERVER_PID:-}" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID"
        for _ in $(seq 60); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
    fi
    SERVER_PID=""
}
