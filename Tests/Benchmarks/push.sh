#!/usr/bin/env bash
# Web Push delivery throughput, and what it costs the requests meanwhile. See
# Tests/Benchmarks/README.md ("Push: push.sh").
#
#   Tests/Benchmarks/push.sh
#
# Builds the release server (.build-release), starts the stand-in push service
# (push_standin.py: HTTPS, answers 201, checks one message in 100 — VAPID and RFC 8291
# decryption — as a browser's push service and the browser would), seeds a small embedded
# database when it holds no accounts (SOOM_BENCH_PUSH_DATA, default /tmp/soom-push), starts the
# server allowed to call the stand-in, gives SOOM_BENCH_PUSH_ACCOUNTS accounts a Web Push
# subscription each (in SQL, as `POST /v1/me/push-subscriptions` stores them), and then:
#   1. GET /v1/feeds/latest?limit=20 with wrk for SOOM_BENCH_DURATION seconds: the reference;
#   2. SOOM_BENCH_PUSHES notifications written in one statement (each queues its push), and the
#      same wrk run at once; the pushes are timed from the statement to the last one the
#      stand-in accepted.
# Goal: 1,000 deliveries a second (encryption, VAPID and HTTPS included). Exits 1 when a push
# is lost, a checked one fails its checks, or the queue does not empty.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${SOOM_BENCH_PUSH_DATA:-/tmp/soom-push}
PORT=${SOOM_BENCH_PORT:-8191}
PUSH_PORT=${SOOM_BENCH_PUSH_PORT:-8443}
URL="http://127.0.0.1:$PORT"
ACCOUNTS=${SOOM_BENCH_PUSH_ACCOUNTS:-1000}
PUSHES=${SOOM_BENCH_PUSHES:-20000}
DURATION=${SOOM_BENCH_DURATION:-10}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
BIN=${SOOM_BENCH_BIN:-$ROOT/.build-release/release/soom}
WORK=$(mktemp -d /tmp/soom-push-bench.XXXXXX)
BENCH_NAME=push
# shellcheck source=common.sh
source "$HERE/common.sh"

STANDIN_PID=""
cleanup() { stop_server; stop_process "$STANDIN_PID"; release_lock; }
trap cleanup EXIT INT TERM

install_and_build
take_lock
python3 "$HERE/push_standin.py" "$PUSH_PORT" "$WORK/ca.pem" "$WORK/browser.txt" 2>"$WORK/standin.log" &
STANDIN_PID=$!
for _ in $(seq 50); do [ -s "$WORK/browser.txt" ] && break; sleep 0.2; done
[ -s "$WORK/browser.txt" ] || { cat "$WORK/standin.log" >&2; exit 1; }
if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
    say "seeding $DATA"
    "$BIN" seed --data-directory "$DATA" --cards 20000 --accounts 2000 --comments 1000 --likes 10000 >&2
fi
say "starting the server on $URL"
SOOM_RATE_LIMIT=off SOOM_CONNECTIONS_PER_ADDRESS=0 SOOM_PUSH_ALLOWED_HOSTS="localhost:$PUSH_PORT" SOOM_PUSH_CA_FILE="$WORK/ca.pem" \
    SOOM_VAPID_SUBJECT=mailto:bench@soom.test "$BIN" serve --port "$PORT" --data-directory "$DATA" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
wait_ready
DB_PORT=$(sed -n 4p "$DATA/postgres/postmaster.pid" | tr -d ' ')
CREDENTIALS=$(cat "$DATA/postgres-credentials")
sql() { PGPASSWORD=$CREDENTIALS psql -h 127.0.0.1 -p "$DB_PORT" -U soom -d soom -At -v ON_ERROR_STOP=1 -c "$1"; }
hex() { python3 -c "import base64,sys; t=sys.argv[1]; print(base64.urlsafe_b64decode(t + '=' * (-len(t) % 4)).hex())" "$1"; }
P256DH=$(hex "$(sed -n 1p "$WORK/browser.txt")")
AUTH=$(hex "$(sed -n 2p "$WORK/browser.txt")")

sql "DELETE FROM push_subscriptions; DELETE FROM push_deliveries" >/dev/null
sql "INSERT INTO push_subscriptions (id, account_id, kind, address, p256dh, auth, created_at)
     SELECT gen_random_uuid(), id, 'webpush', 'https://localhost:$PUSH_PORT/push/' || id, '\\x$P256DH', '\\x$AUTH', now()
     FROM (SELECT id FROM accounts ORDER BY id LIMIT $ACCOUNTS) a" >/dev/null
TOKEN=$(python3 -c "import base64,os; print(base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip('='))")
HASH=$(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)
sql "INSERT INTO sessions (token_hash, account_id, expires_at) SELECT '\\x$HASH', id, now() + interval '1 day' FROM accounts ORDER BY id DESC LIMIT 1" >/dev/null
FEED=(-H "Authorization: Bearer $TOKEN" "$URL/v1/feeds/latest?limit=20")

WARMUP=3 wrk_run "feed, alone" "${FEED[@]}"
stats() { curl -sk "https://localhost:$PUSH_PORT/stats"; }
before=$(stats | python3 -c "import json,sys; print(json.load(sys.stdin)['received'])")
say "writing $PUSHES notifications ($((PUSHES / ACCOUNTS)) to each of $ACCOUNTS subscribed accounts)"
sent=$(date +%s.%N)
sql "INSERT INTO notifications (id, recipient_id, type, until, created_at)
     SELECT gen_random_uuid(), a.id, 'posting_restricted', now() + interval '1 hour', now()
     FROM (SELECT id FROM accounts ORDER BY id LIMIT $ACCOUNTS) a, generate_series(1, $((PUSHES / ACCOUNTS)))" >/dev/null
wrk_run "feed, while pushing" "${FEED[@]}"
for _ in $(seq 600); do
    received=$(stats | python3 -c "import json,sys; print(json.load(sys.stdin)['received'])")
    [ $((received - before)) -ge "$PUSHES" ] && break
    sleep 0.2
done
stats >"$WORK/stats.json"
python3 - "$WORK/stats.json" "$sent" "$PUSHES" "$before" <<'PY' | tee -a "$WORK/results.txt"
import json, sys
stats = json.load(open(sys.argv[1])); sent = float(sys.argv[2]); pushes = int(sys.argv[3]); before = int(sys.argv[4])
received = stats["received"] - before
took = stats["last"] - sent
print(f"pushes accepted by the stand-in: {received} of {pushes} in {took:.1f} s: {received / took:,.0f} deliveries/s "
      f"(checked {stats['checked']}, failed checks {stats['bad']})")
print(f"RESULT received={received} rate={received / took:.0f} bad={stats['bad']} checked={stats['checked']}")
PY
left=$(sql "SELECT count(*) FROM push_deliveries")
result=$(grep '^RESULT' "$WORK/results.txt")
status=0
[ "$(sed -E 's/.*received=([0-9]+).*/\1/' <<<"$result")" -ge "$PUSHES" ] || { say "pushes lost"; status=1; }
[ "$(sed -E 's/.*bad=([0-9]+).*/\1/' <<<"$result")" -eq 0 ] || { say "a checked push failed its checks"; status=1; }
[ "$left" -eq 0 ] || { say "$left deliveries still queued"; status=1; }
sql "SELECT 'soom_push metrics: ' || string_agg(kind, ',') FROM (SELECT DISTINCT kind FROM push_subscriptions) k" >/dev/null
exit $status
