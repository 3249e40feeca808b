#!/usr/bin/env bash
# Login-throughput benchmark for the Soom server. See Tests/Benchmarks/README.md.
#
#   Tests/Benchmarks/login.sh
#
# Builds the server in release mode (scratch path .build-release), starts it on 127.0.0.1
# against a private data directory (or DATABASE_URL when set), measures GET /healthz, then
# pre-signs login requests (untimed) and replays them with wrk (timed): logins/s =
# challenge creation + signed sign-in. Stops the server at the end, also on failure.
# Exit status: 0 only when every phase ran and no request failed.
#
# Settings (environment):
#   SOOM_BENCH_PORT=8181            SOOM_BENCH_DATA=/tmp/soom-bench-data
#   SOOM_BENCH_WORK=/tmp/soom-bench-work (bodies, keys, logs)
#   SOOM_BENCH_CONNECTIONS=32       SOOM_BENCH_THREADS=2
#   SOOM_BENCH_DURATION=20          seconds of the timed login run
#   SOOM_BENCH_HEALTHZ_DURATION=10  seconds of the /healthz reference run
#   SOOM_BENCH_EXPECTED_RATE=4000   logins/s the pre-signed supply is sized for (x1.25)
#   SOOM_BENCH_COUNT=...            pre-signed bodies (default EXPECTED_RATE*DURATION*1.25)
#   SOOM_BENCH_DEVICES=200          registered devices (RSA-2048, half PSS, half PKCS#1)
#   SOOM_BENCH_SPLIT=1              also run PSS-only and PKCS#1-only (SPLIT_DURATION each)
#   SOOM_BENCH_SPLIT_DURATION=10
#   SOOM_BENCH_BREAKDOWN=0          1: also challenges-only and sessions-only runs (SPLIT_DURATION each)
#   SOOM_BENCH_FRESH=1              1: start from an empty embedded database (removes SOOM_BENCH_DATA
#                                   first, only if it holds nothing but a Soom cluster); 0: keep it
#   SOOM_BENCH_SKIP_BUILD=0         1: use the existing .build-release binary
#   SOOM_BENCH_PERF=0               1: perf profile (system-wide) 5 s into the login run
#   SOOM_BENCH_GOAL=3000            logins/s the result line compares against
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PORT=${SOOM_BENCH_PORT:-8181}
DATA=${SOOM_BENCH_DATA:-/tmp/soom-bench-data}
WORK=${SOOM_BENCH_WORK:-/tmp/soom-bench-work}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
DURATION=${SOOM_BENCH_DURATION:-20}
HEALTHZ_DURATION=${SOOM_BENCH_HEALTHZ_DURATION:-10}
EXPECTED_RATE=${SOOM_BENCH_EXPECTED_RATE:-4000}
COUNT=${SOOM_BENCH_COUNT:-$((EXPECTED_RATE * DURATION * 5 / 4))}
DEVICES=${SOOM_BENCH_DEVICES:-200}
SPLIT=${SOOM_BENCH_SPLIT:-1}
SPLIT_DURATION=${SOOM_BENCH_SPLIT_DURATION:-10}
SPLIT_COUNT=$((EXPECTED_RATE * SPLIT_DURATION * 5 / 4))
BREAKDOWN=${SOOM_BENCH_BREAKDOWN:-0}
FRESH=${SOOM_BENCH_FRESH:-1}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
PERF=${SOOM_BENCH_PERF:-0}
URL="http://127.0.0.1:$PORT"

mkdir -p "$WORK"
rm -f "$WORK"/perf*.txt "$WORK/perf.data" "$WORK"/*.wrk "$WORK"/*.monitor "$WORK"/*.jsonl
SERVER_LOG="$WORK/server.log"
RESULTS="$WORK/results.txt"
: >"$RESULTS"
SERVER_PID=""
MONITOR_PID=""
REGISTERED=0  # the devices are registered once per run; later setups skip it

say() { printf '[login.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }
# value KEY LINE: the value of KEY=... in a `RESULT`/`MONITOR`/`PRESIGN` line.
value() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p" | head -n1; }

stop_server() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n "$MONITOR_PID" ]] && kill -0 "$MONITOR_PID" 2>/dev/null; then kill "$MONITOR_PID" 2>/dev/null || true; fi
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        say "stopping the server (SIGTERM, pid $SERVER_PID)"
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 60); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$SERVER_PID" 2>/dev/null; then
            say "server still running after 30 s: SIGKILL, then a fast shutdown of its PostgreSQL"
            kill -KILL "$SERVER_PID" 2>/dev/null || true
            local postmaster
            postmaster=$(head -n1 "$DATA/postgres/postmaster.pid" 2>/dev/null || true)
            [[ -n "$postmaster" ]] && kill -INT "$postmaster" 2>/dev/null || true
        fi
        local server_status=0
        wait "$SERVER_PID" 2>/dev/null || server_status=$?
        say "server exited with status $server_status$(grep -m1 '^Error:' "$SERVER_LOG" 2>/dev/null | sed 's/^/, log: /')"
    fi
    rm -f "$WORK"/*.jsonl  # spent or expired challenges: useless after the run
    exit "$status"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

command -v wrk >/dev/null || die "wrk is missing: apt-get update && apt-get install -y wrk"
python3 -c 'import cryptography' 2>/dev/null || die "python3 with the cryptography package is needed"
if curl -s -o /dev/null --max-time 2 "$URL/healthz"; then die "something already answers on $URL; set SOOM_BENCH_PORT"; fi

# 1. Build (release, private scratch path) ---------------------------------------------------
cd "$ROOT"
if [[ "$SKIP_BUILD" != 1 ]]; then
    say "building soom in release mode (.build-release)"
    timeout 3600 swift build -c release --static-swift-stdlib --scratch-path .build-release --product soom >"$WORK/build.log" 2>&1 \
        || { tail -n 30 "$WORK/build.log" >&2; die "release build failed (log: $WORK/build.log)"; }
fi
BIN="$(swift build -c release --static-swift-stdlib --scratch-path .build-release --show-bin-path)/soom"
[[ -x "$BIN" ]] || die "no binary at $BIN"

# 2. Start the server and wait for /readyz ---------------------------------------------------
if [[ -n "${DATABASE_URL:-}" ]]; then
    say "using DATABASE_URL (rows from earlier runs stay: challenges and sessions accumulate)"
else
    if [[ "$FRESH" == 1 && -e "$DATA" ]]; then
        # Every run leaves ~10^5 never-used challenges behind (the server does not purge them yet),
        # which slows later runs: start empty. Refuse to remove anything that is not ours.
        extra=$(find "$DATA" -mindepth 1 -maxdepth 1 ! -name postgres ! -name postgres-credentials -print -quit)
        [[ -z "$extra" && ( ! -e "$DATA/postgres" || -f "$DATA/postgres/PG_VERSION" ) ]] \
            || die "$DATA holds more than a Soom cluster ($extra); not removing it"
        old_pid=$(head -n1 "$DATA/postgres/postmaster.pid" 2>/dev/null || true)
        [[ -z "$old_pid" ]] || ! kill -0 "$old_pid" 2>/dev/null || die "a PostgreSQL (pid $old_pid) still runs in $DATA"
        say "removing the previous benchmark database in $DATA"
        rm -rf -- "$DATA"
    fi
    say "embedded PostgreSQL under $DATA"
fi
SOOM_RATE_LIMIT=off SOOM_CONNECTIONS_PER_ADDRESS=0 "$BIN" serve --hostname 127.0.0.1 --port "$PORT" --data-directory "$DATA" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
say "server pid $SERVER_PID, log $SERVER_LOG"
ready=0
for _ in $(seq 1 240); do
    kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 20 "$SERVER_LOG" >&2; die "the server exited during start-up"; }
    if [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$URL/readyz" || true)" == 200 ]]; then ready=1; break; fi
    sleep 0.5
done
[[ "$ready" == 1 ]] || die "GET /readyz was not 200 within 120 s"
POSTMASTER=0
if [[ -z "${DATABASE_URL:-}" && -f "$DATA/postgres/postmaster.pid" ]]; then POSTMASTER=$(head -n1 "$DATA/postgres/postmaster.pid"); fi
say "ready (postmaster pid ${POSTMASTER:-none})"

# run_wrk NAME MODE DURATION URL [wrk script args...]: one timed wrk run with the monitor alongside.
run_wrk() {
    local name=$1 mode=$2 seconds=$3 url=$4
    shift 4
    # The monitor watches the middle of the run: from 15 % (at most 2 s) in to as long before the end.
    local delay window
    delay=$(awk -v s="$seconds" 'BEGIN { d = s * 0.15; print (d > 2 ? 2 : d) }')
    window=$(awk -v s="$seconds" -v d="$delay" 'BEGIN { print s - 2 * d }')
    (sleep "$delay" && exec python3 "$HERE/monitor.py" --pid "$SERVER_PID" --pg-pid "$POSTMASTER" --duration "$window") \
        >"$WORK/$name.monitor" &
    MONITOR_PID=$!
    local perf_pid=""
    if [[ "$PERF" == 1 && "$mode" == login && "$name" == login ]]; then
        (sleep 5 && exec perf record -F 499 -a -g -o "$WORK/perf.data" -- sleep 8) >"$WORK/perf.log" 2>&1 &
        perf_pid=$!
    fi
    say "wrk $name: $CONNECTIONS connections, $THREADS threads, ${seconds}s"
    SOOM_BENCH_MODE=$mode timeout $((seconds + 120)) wrk -t "$THREADS" -c "$CONNECTIONS" -d "${seconds}s" --timeout 10s --latency \
        -s "$HERE/login.lua" "$url" -- "$@" >"$WORK/$name.wrk" 2>&1 || say "wrk $name exited with status $?"
    wait "$MONITOR_PID" 2>/dev/null || true
    MONITOR_PID=""
    [[ -n "$perf_pid" ]] && { wait "$perf_pid" 2>/dev/null || true; }
    grep '^FAILURE' "$WORK/$name.wrk" >&2 || true
    local result monitor
    result=$(grep '^RESULT' "$WORK/$name.wrk" || true)
    monitor=$(grep '^MONITOR' "$WORK/$name.monitor" || true)
    [[ -n "$result" ]] || { cat "$WORK/$name.wrk" >&2; die "wrk $name printed no result"; }
    echo "$name $result $monitor" >>"$RESULTS"
    say "$name: $result"
    say "$name: $monitor"
}

# presign NAME ALGORITHM COUNT: pre-signed bodies in $WORK/NAME.jsonl; checks enough challenge lifetime is left.
presign() {
    local name=$1 algorithm=$2 count=$3 seconds=$4
    say "setup ($name): $count pre-signed logins, $algorithm, $DEVICES devices"
    local line registration=()
    [[ "$REGISTERED" == 0 ]] || registration=(--no-register)
    line=$(timeout 280 python3 "$HERE/presign.py" --url "$URL" --devices "$DEVICES" --count "$count" --algorithm "$algorithm" \
        --keys "$WORK/device-keys.json" --out "$WORK/$name.jsonl" "${registration[@]}" | grep '^PRESIGN') || die "setup ($name) failed"
    REGISTERED=1
    echo "$name-setup $line" >>"$RESULTS"
    local expires left
    expires=$(value expires "$line")
    left=$(python3 -c "import time; print(int($expires - time.time()))")
    say "setup ($name) took $(value total_s "$line") s (challenges $(value challenges_s "$line") s, signing $(value sign_s "$line") s); oldest challenge expires in ${left}s"
    ((left > seconds + 15)) || die "setup too slow for the 5-minute challenge lifetime: lower SOOM_BENCH_COUNT or SOOM_BENCH_DURATION"
}

# 3. Reference: GET /healthz (warm-up first) --------------------------------------------------
SOOM_BENCH_MODE=healthz wrk -t "$THREADS" -c "$CONNECTIONS" -d 3s -s "$HERE/login.lua" "$URL/healthz" >/dev/null 2>&1 || true
run_wrk healthz healthz "$HEALTHZ_DURATION" "$URL/healthz"

# 4. Logins: mixed PSS / PKCS#1 -------------------------------------------------------------
presign login mixed "$COUNT" "$DURATION"
run_wrk login login "$DURATION" "$URL" "$WORK/login.jsonl" "$THREADS"

# 5. Optional split by algorithm -------------------------------------------------------------
if [[ "$SPLIT" == 1 ]]; then
    presign login-pss rsa-pss-sha256 "$SPLIT_COUNT" "$SPLIT_DURATION"
    run_wrk login-pss login "$SPLIT_DURATION" "$URL" "$WORK/login-pss.jsonl" "$THREADS"
    presign login-pkcs1 rsa-pkcs1v15-sha256 "$SPLIT_COUNT" "$SPLIT_DURATION"
    run_wrk login-pkcs1 login "$SPLIT_DURATION" "$URL" "$WORK/login-pkcs1.jsonl" "$THREADS"
fi

# 6. Optional breakdown: each half of a login alone ---------------------------------------------
if [[ "$BREAKDOWN" == 1 ]]; then
    run_wrk challenges challenges "$SPLIT_DURATION" "$URL/v1/auth/challenges"
    presign sessions mixed "$((EXPECTED_RATE * SPLIT_DURATION * 5 / 2))" "$SPLIT_DURATION"
    run_wrk sessions sessions "$SPLIT_DURATION" "$URL" "$WORK/sessions.jsonl" "$THREADS"
fi

# 7. Results ---------------------------------------------------------------------------------
if [[ "$PERF" == 1 && -f "$WORK/perf.data" ]]; then
    perf report -i "$WORK/perf.data" --stdio --no-children --sort comm,dso -g none --percent-limit 1 2>/dev/null \
        | grep -v '^#' | grep -v '^$' >"$WORK/perf-comm-dso.txt" || true
    perf report -i "$WORK/perf.data" --stdio --no-children --sort comm,dso,symbol -g none --percent-limit 0.3 2>/dev/null \
        | grep -v '^#' | grep -v '^$' | cut -c1-160 >"$WORK/perf-symbols.txt" || true
fi

failed=0
busy_machine=0
echo
row() { printf '%-12s %9s %9s %7s %7s %7s %7s %7s %6s %5s %5s %5s %5s %7s %8s\n' "$@"; }
row run req/s logins/s p50_ms p90_ms p99_ms max_ms errors rss_MB soom pg wrk other cpu_ms alone/s
while read -r name rest; do
    [[ "$name" == *-setup ]] && continue
    failures=$(value failures "$rest"); sockets=$(value socket_errors "$rest"); exhausted=$(value exhausted_threads "$rest")
    errors=$((failures + sockets))
    ((errors == 0)) || failed=1
    [[ -z "$exhausted" || "$exhausted" == 0 ]] || { failed=1; errors="$errors+ex"; }
    other=$(value cpu_other "$rest")
    [[ -n "$other" ]] && awk "BEGIN { exit !($other > 0.2) }" && busy_machine=1
    # cpu_ms: soom + PostgreSQL CPU per login (per request for runs without logins). alone/s: the
    # rate if soom, PostgreSQL and wrk had all cores to themselves (rate x cores / their cores).
    rate=$(value logins_per_s "$rest"); [[ -n "$rate" ]] || rate=$(value rps "$rest")
    estimate=$(awk -v r="$rate" -v s="$(value cpu_soom "$rest")" -v p="$(value cpu_postgres "$rest")" \
        -v w="$(value cpu_wrk "$rest")" -v n="$(nproc)" \
        'BEGIN { if (r > 0 && s + p > 0) printf "%.3f %.0f", (s + p) * 1000 / r, r * n / (s + p + w); else print "- -" }')
    row "$name" "$(value rps "$rest")" "$(value logins_per_s "$rest")" "$(value p50_ms "$rest")" "$(value p90_ms "$rest")" \
        "$(value p99_ms "$rest")" "$(value max_ms "$rest")" "$errors" "$(value soom_rss_max_mb "$rest")" \
        "$(value cpu_soom "$rest")" "$(value cpu_postgres "$rest")" "$(value cpu_wrk "$rest")" "$other" $estimate
done <"$RESULTS"
echo
echo "logins/s = successful POST /v1/sessions per second, each paired with one POST /v1/auth/challenges;"
echo "latency is per request (challenge and session requests together). errors = non-2xx + socket errors;"
echo "'+ex' = pre-signed bodies ran out (raise SOOM_BENCH_EXPECTED_RATE). soom/pg/wrk/other: CPU in cores"
echo "of $(nproc) during the run (pg = PostgreSQL, other = everything else on the machine). cpu_ms = soom+pg"
echo "CPU per login (per request where there are no logins); alone/s = rate x $(nproc) / (soom+pg+wrk cores),"
echo "an estimate of the rate with the machine to themselves: use it when 'other' is not ~0."
if ((busy_machine == 1)); then
    echo "WARNING: other work used > 0.2 cores during a run; the numbers are low. Run on a quiet machine. Biggest:"
    while read -r name rest; do [[ "$name" == *-setup ]] || echo "  $name: $(value other_top "$rest")"; done <"$RESULTS"
fi
login_rate=$(awk '$1 == "login" { print }' "$RESULTS" | tr ' ' '\n' | sed -n 's/^logins_per_s=//p')
goal=${SOOM_BENCH_GOAL:-3000}
echo "goal $goal logins/s: $(awk -v r="${login_rate:-0}" -v g="$goal" 'BEGIN { print (r >= g ? "met" : "NOT met") }') (login run: ${login_rate:-none} logins/s)"
while read -r name rest; do
    [[ "$name" == *-setup ]] || continue
    echo "$name: $(value count "$rest") bodies in $(value total_s "$rest") s (keys $(value keys_s "$rest") s, registration $(value register_s "$rest") s, challenges $(value challenges_s "$rest") s, signing $(value sign_s "$rest") s)"
done <"$RESULTS"
warnings=$(grep -cE '\b(warning|error|critical)\b|^Error' "$SERVER_LOG" || true)
echo "server log so far: $warnings warning/error/critical lines ($SERVER_LOG)"
grep -E '\b(warning|error|critical)\b|^Error' "$SERVER_LOG" | head -n 5 || true
if [[ -f "$WORK/perf-comm-dso.txt" ]]; then
    echo; echo "perf, 8 s of the login run, system-wide, by thread name and library (symbols: $WORK/perf-symbols.txt):"
    cat "$WORK/perf-comm-dso.txt"
fi
echo "raw results: $RESULTS; wrk outputs: $WORK/*.wrk"
exit "$failed"
