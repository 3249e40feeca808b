#!/usr/bin/env bash
# People benchmark for the Soom server: the following feed, profiles, followers, notifications,
# and what favourite tags and many followers cost a post. See Tests/Benchmarks/README.md
# ("People: people.sh").
#
#   Tests/Benchmarks/people.sh
#
# Builds the server in release mode (.build-release), starts it on a seeded embedded database
# (SOOM_BENCH_FEEDS_DATA; seeded with `soom seed` first when it holds no cards — the seed gives
# the accounts ~20 follows each and 2 favourite tags), registers devices, shapes a few accounts
# in SQL (follows and favourites, counters fixed in the same statements), and measures with wrk,
# in one run, 32 connections each:
#   GET /healthz (the reference);
#   GET /v1/feeds/following?limit=20, first page and a deep cursor, for (a) an account that follows
#     5,000 seeded accounts and (b) one that follows ~20 (the followees of a typical seeded account);
#   GET /v1/users/{id} (random seeded accounts), GET /v1/users/{id}/followers?limit=20 (the most
#     followed seeded account);
#   POST /v1/cards with a tag nobody favourites, from 32 accounts; the same from 32 accounts that
#     every seeded account follows; the same count of posts (SOOM_BENCH_FAV_POSTS) with a tag nobody
#     favourites and with one that 10,000 accounts favourite (the fan-out is a background job);
#   how long the background job takes to deliver one post's 10,000 notifications, and to drain
#     the capped run's outbox;
#   GET /v1/notifications?limit=20 (an account among the 10,000 favouriters, so it has some).
# Takes /tmp/soom-bench.lock for the seed and the runs (waits while another benchmark holds it
# or a compiler runs). Prints a Markdown table at the end (also in $WORK/results.md).
#
# Settings (environment): as feeds.sh and tags.sh — SOOM_BENCH_FEEDS_DATA (/tmp/soom-people),
#   SOOM_BENCH_SEED_CARDS (1000000; accounts = cards/20), SOOM_BENCH_PORT (8184),
#   SOOM_BENCH_DURATION (20), SOOM_BENCH_CONNECTIONS (32), SOOM_BENCH_THREADS (2),
#   SOOM_BENCH_SKIP_BUILD (0), SOOM_BENCH_BIN (measure another build, as feeds.sh); and SOOM_BENCH_WIDE_FOLLOWS (5000), SOOM_BENCH_FAVORITERS (10000),
#   SOOM_BENCH_FAV_POSTS (320: posts of the capped runs; each makes SOOM_BENCH_FAVORITERS
#   notifications), SOOM_BENCH_DEEP (10000: how many cards down the deep cursor points, at most
#   half the feed), SOOM_BENCH_DRAIN_TIMEOUT (600 s), SOOM_BENCH_PACE (2 posts/s) and
#   SOOM_BENCH_PACED_POSTS (60): the paced runs that time single posts, plain and favourite tag.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${SOOM_BENCH_FEEDS_DATA:-/tmp/soom-people}
SEED_CARDS=${SOOM_BENCH_SEED_CARDS:-1000000}
PORT=${SOOM_BENCH_PORT:-8184}
DURATION=${SOOM_BENCH_DURATION:-20}
CONNECTIONS=${SOOM_BENCH_CONNECTIONS:-32}
THREADS=${SOOM_BENCH_THREADS:-2}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
[ -n "${SOOM_BENCH_BIN:-}" ] && SKIP_BUILD=1
WIDE_FOLLOWS=${SOOM_BENCH_WIDE_FOLLOWS:-5000}
FAVORITERS=${SOOM_BENCH_FAVORITERS:-10000}
FAV_POSTS=${SOOM_BENCH_FAV_POSTS:-320}
DEEP=${SOOM_BENCH_DEEP:-10000}
DRAIN_TIMEOUT=${SOOM_BENCH_DRAIN_TIMEOUT:-600}
PACE=${SOOM_BENCH_PACE:-2}
PACED_POSTS=${SOOM_BENCH_PACED_POSTS:-60}
FAV_TAG=benchfavtag      # favoured by $FAVORITERS accounts (set up below)
PLAIN_TAG=benchplaintag  # favoured by nobody (checked below)
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-people-bench.XXXXXX)
BIN=${SOOM_BENCH_BIN:-$ROOT/.build-release/release/soom}
SERVER_PID=""
MONITOR_PID=""

BENCH_NAME=people.sh
. "$HERE/common.sh"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }   # seconds since $1
before() { awk -v a="$1" -v b="$(now)" -v limit="$2" 'BEGIN { exit !(b - a < limit) }'; }  # fewer than $2 s since $1
cleanup() {
    [ -n "$MONITOR_PID" ] && kill "$MONITOR_PID" 2>/dev/null || true
    release_lock
    stop_server
}
trap cleanup EXIT

install_and_build

take_lock

if [ ! -f "$DATA/postgres/PG_VERSION" ]; then
    say "seeding $DATA with $SEED_CARDS cards, $((SEED_CARDS / 20)) accounts, $((SEED_CARDS)) follows (set-based, a few minutes for 1M)"
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

CREDENTIALS=$(cat "$DATA/postgres-credentials")
DB_PORT=$(grep -o 'postgres://soom@127.0.0.1:[0-9]*' "$WORK/server.log" | head -1 | sed 's/.*://')
sql() { PGPASSWORD=$CREDENTIALS psql -h 127.0.0.1 -p "$DB_PORT" -U soom -d soom -At -v ON_ERROR_STOP=1 -c "$1"; }
# Seeded accounts carry a placeholder P-256 key (91 bytes of SubjectPublicKeyInfo); registered
# devices here use RSA-2048. Follows and favourites below go to seeded accounts only, not to the
# devices of earlier runs (which posted thousands of benchmark cards).
SEEDED="octet_length(public_key) = 91"
SEEDED_A="octet_length(a.public_key) = 91"
[ "$(sql "SELECT count(*) FROM follows")" -gt 0 ] || {
    say "$DATA has no follows: it was seeded before the people seed; seed a fresh folder (SOOM_BENCH_FEEDS_DATA=/tmp/new-folder)"; exit 1; }

say "registering devices: $CONNECTIONS writers, $CONNECTIONS writers everyone follows, 2 readers"
python3 "$HERE/register.py" "$URL" "$WORK/writers" "$CONNECTIONS"
python3 "$HERE/register.py" "$URL" "$WORK/stars" "$CONNECTIONS"
python3 "$HERE/register.py" "$URL" "$WORK/readers" 2
account_id() { curl -sf "$URL/v1/me" -H "Authorization: Bearer $1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'; }
READER_WIDE=$(sed -n 1p "$WORK/readers")
READER_NARROW=$(sed -n 2p "$WORK/readers")
WIDE_ID=$(account_id "$READER_WIDE")
NARROW_ID=$(account_id "$READER_NARROW")
STAR_IDS=$(while read -r token; do account_id "$token"; done <"$WORK/stars" | paste -sd, -)

# Follow-and-count in one statement: insert the follows, then move both counters by what was
# really inserted (ON CONFLICT skips follows an earlier run already made).
follow_sql() { # a SELECT of (follower_id, followee_id)
    cat <<SQL
WITH ins AS (
    INSERT INTO follows (follower_id, followee_id, created_at) SELECT f, e, now() FROM ($1) AS p (f, e)
    ON CONFLICT DO NOTHING RETURNING follower_id, followee_id
), followers AS (
    UPDATE accounts a SET follower_count = a.follower_count + n.n
    FROM (SELECT followee_id AS id, count(*) AS n FROM ins GROUP BY followee_id) AS n WHERE a.id = n.id RETURNING 1
), following AS (
    UPDATE accounts a SET following_count = a.following_count + n.n
    FROM (SELECT follower_id AS id, count(*) AS n FROM ins GROUP BY follower_id) AS n WHERE a.id = n.id RETURNING 1
)
SELECT count(*) FROM ins
SQL
}
# A follower and a followee are always different accounts here, so no row is updated twice.
say "(a) up to $WIDE_FOLLOWS follows for the wide reader; (b) the followees of a seeded account that follows ~20 for the narrow reader"
T0=$(now)
WIDE_MADE=$(sql "$(follow_sql "SELECT '$WIDE_ID'::uuid, id FROM accounts WHERE $SEEDED ORDER BY random() LIMIT $WIDE_FOLLOWS")")
# What the follow that reached 256 does in `set_follow` (sql/0013_following_inbox.sql): open the
# reader's following inbox. The server's `following-inbox` job fills it a request deadline later
# (waited for before the reads below).
sql "UPDATE accounts SET inbox_since = clock_timestamp() WHERE id = '$WIDE_ID' AND inbox_since IS NULL AND following_count >= 256" >/dev/null
sql "UPDATE follows SET inbox = true WHERE follower_id = '$WIDE_ID' AND NOT inbox AND EXISTS (SELECT 1 FROM accounts WHERE id = '$WIDE_ID' AND inbox_since IS NOT NULL)" >/dev/null
# The model counts only its follows of seeded accounts: earlier runs made every seeded account
# follow their star writers.
MODEL=$(sql "SELECT f.follower_id FROM follows f JOIN accounts a ON a.id = f.follower_id JOIN accounts b ON b.id = f.followee_id
             WHERE octet_length(a.public_key) = 91 AND octet_length(b.public_key) = 91
             GROUP BY f.follower_id ORDER BY abs(count(*) - 20), f.follower_id LIMIT 1")
NARROW_MADE=$(sql "$(follow_sql "SELECT '$NARROW_ID'::uuid, f.followee_id FROM follows f JOIN accounts b ON b.id = f.followee_id
                                 WHERE f.follower_id = '$MODEL' AND octet_length(b.public_key) = 91")")
say "every seeded account follows the $CONNECTIONS star writers"
STAR_MADE=$(sql "$(follow_sql "SELECT a.id, s.id FROM accounts AS a, unnest('{$STAR_IDS}'::uuid[]) AS s (id) WHERE $SEEDED_A")")
say "follows inserted: $WIDE_MADE + $NARROW_MADE + $STAR_MADE in $(elapsed "$T0") s"

# The favourite tag: the wide reader (so it gets notifications to read) and seeded accounts with
# room for one more favourite, up to $FAVORITERS in all. The plain tag: nobody.
sql "INSERT INTO favorite_tags (account_id, tag_key, name, created_at) VALUES ('$WIDE_ID', '$FAV_TAG', '$FAV_TAG', now()) ON CONFLICT DO NOTHING" >/dev/null
sql "INSERT INTO favorite_tags (account_id, tag_key, name, created_at)
     SELECT id, '$FAV_TAG', '$FAV_TAG', now() FROM accounts a
     WHERE $SEEDED_A AND (SELECT count(*) FROM favorite_tags f WHERE f.account_id = a.id) < 9
       AND NOT EXISTS (SELECT 1 FROM favorite_tags f WHERE f.account_id = a.id AND f.tag_key = '$FAV_TAG')
     ORDER BY random()
     LIMIT greatest(0, $FAVORITERS - (SELECT count(*) FROM favorite_tags WHERE tag_key = '$FAV_TAG'))" >/dev/null
sql "DELETE FROM favorite_tags WHERE tag_key = '$PLAIN_TAG'" >/dev/null
FAVORITERS_NOW=$(sql "SELECT count(*) FROM favorite_tags WHERE tag_key = '$FAV_TAG'")
DRIFT_BEFORE=$(sql "SELECT count(*) FROM accounts a WHERE follower_count <> (SELECT count(*) FROM follows WHERE followee_id = a.id)
                     OR following_count <> (SELECT count(*) FROM follows WHERE follower_id = a.id)")
sql "ANALYZE follows, favorite_tags, accounts" >/dev/null

TOTAL=$(sql "SELECT count(*) FROM cards")
FOLLOWS=$(sql "SELECT count(*) FROM follows")
TOP_ID=$(sql "SELECT id FROM accounts WHERE $SEEDED ORDER BY follower_count DESC, id LIMIT 1")
TOP_FOLLOWERS=$(sql "SELECT follower_count FROM accounts WHERE id = '$TOP_ID'")
feed_size() { sql "SELECT count(*) FROM follows f JOIN cards c ON c.author_id = f.followee_id AND c.parent_id IS NULL
                   AND (c.expires_at IS NULL OR c.expires_at > now()) WHERE f.follower_id = '$1'"; }
WIDE_FEED=$(feed_size "$WIDE_ID")
NARROW_FEED=$(feed_size "$NARROW_ID")
NARROW_FOLLOWS=$(sql "SELECT following_count FROM accounts WHERE id = '$NARROW_ID'")
WIDE_FOLLOWS=$(sql "SELECT following_count FROM accounts WHERE id = '$WIDE_ID'")   # fewer than asked when there are fewer accounts
sql "SELECT id FROM accounts WHERE $SEEDED ORDER BY random() LIMIT 1000" >"$WORK/users.txt"
say "$TOTAL cards, $FOLLOWS follows; wide reader follows $WIDE_FOLLOWS ($WIDE_FEED cards in its feed), narrow reader $NARROW_FOLLOWS ($NARROW_FEED cards); most followed seeded account: $TOP_FOLLOWERS followers; '$FAV_TAG' favoured by $FAVORITERS_NOW; counters off before the runs: $DRIFT_BEFORE"

# Deep cursors: walk the feed with pages of 50 down to min($DEEP, half the feed) cards, through
# the API (the cursor stays opaque).
deep_cursor() { # token, cards down
    python3 - "$URL" "$1" "$2" <<'PY'
import json, sys, urllib.request
url, token, depth = sys.argv[1], sys.argv[2], int(sys.argv[3])
cursor, seen = None, 0
while seen < depth:
    limit = min(50, depth - seen)
    request = urllib.request.Request(f"{url}/v1/feeds/following?limit={limit}" + (f"&cursor={cursor}" if cursor else ""))
    request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response: page = json.load(response)
    seen += len(page["items"])
    if not page["nextCursor"]: break
    cursor = page["nextCursor"]
print(seen, cursor or "")
PY
}
half() { local n=$(($1 / 2)); [ "$n" -lt "$DEEP" ] && echo "$n" || echo "$DEEP"; }
T0=$(now)
read -r WIDE_DEPTH WIDE_CURSOR <<<"$(deep_cursor "$READER_WIDE" "$(half "$WIDE_FEED")")"
read -r NARROW_DEPTH NARROW_CURSOR <<<"$(deep_cursor "$READER_NARROW" "$(half "$NARROW_FEED")")"
say "deep cursors: wide $WIDE_DEPTH cards down, narrow $NARROW_DEPTH cards down (walked in $(elapsed "$T0") s)"

cat >"$WORK/people.lua" <<LUA
-- MODE: profile (random seeded users), post (TAG, from the accounts in TOKENS), CAP: stop a
-- thread after that many responses (0: run for the duration).
local users, tokens = {}, {}
for line in io.lines("$WORK/users.txt") do users[#users + 1] = line end
local mode, tag, cap = os.getenv("MODE"), os.getenv("TAG"), tonumber(os.getenv("CAP") or "0")
for line in io.lines(os.getenv("TOKENS") or "$WORK/writers") do tokens[#tokens + 1] = line end
math.randomseed(os.time())
wrk.headers["Authorization"] = "Bearer $READER_WIDE"
wrk.headers["Content-Type"] = "application/json"
request = function()
    if mode == "post" then
        return wrk.format("POST", "/v1/cards", {["Authorization"] = "Bearer " .. tokens[math.random(#tokens)]},
            '{"content":"사람 벤치마크 ' .. math.random(1000000) .. '","background":{"default":"sea-calm"},"tags":["' .. tag .. '"]}')
    end
    return wrk.format("GET", "/v1/users/" .. users[math.random(#users)])
end
local failures, responses = 0, 0
response = function(status)
    if status >= 300 then failures = failures + 1 end
    responses = responses + 1
    if cap > 0 and responses >= cap then wrk.thread:stop() end
end
done = function() io.write(string.format("non-2xx: %d\n", failures)) end
LUA

POSTMASTER=$(head -n1 "$DATA/postgres/postmaster.pid")
printf '| Request | req/s | p50 | p99 | errors | CPU soom / pg / other |\n|---|---:|---:|---:|---|---|\n' >"$WORK/results.md"
run() { # name, wrk arguments...
    local name=$1; shift
    local file
    file="$WORK/$(printf '%s' "$name" | tr -c 'a-zA-Z0-9' '_').txt"
    say "wrk: $name"
    local started monitor
    started=$(sql "SELECT now()")
    # CPU in cores during the run (monitor.py, from 1 s in to 1 s before the end; a capped run stops
    # early, so its window shows idle time): other work on the machine skews the numbers.
    (sleep 1 && exec python3 "$HERE/monitor.py" --pid "$SERVER_PID" --pg-pid "$POSTMASTER" --duration $((DURATION - 2))) >"$file.monitor" 2>&1 &
    monitor=$!
    wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" --latency "$@" >"$file" 2>&1 || true
    wait "$monitor" 2>/dev/null || true
    local cpu
    cpu=$(awk '/^MONITOR/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); m[kv[1]] = kv[2] }
                           printf "%s / %s / %s", m["cpu_soom"], m["cpu_postgres"], m["cpu_other"]; if (m["cpu_other"] > 0.2) printf " (%s)", m["other_top"] }' "$file.monitor")
    local rps p50 p99 errors requests
    rps=$(awk '/Requests\/sec/ {print $2}' "$file")
    if [ "${CAP:-0}" != 0 ]; then
        # wrk divides by the whole duration even when the threads stopped early: the rate of a capped
        # run is the posts it made (card_tags rows of TAG since it started) over their time span.
        local made
        read -r made rps <<<"$(sql "SELECT count(*), round(count(*) / greatest(extract(epoch FROM max(created_at) - min(created_at)), 0.001), 1)
                   FROM card_tags WHERE tag_key = lower('$TAG') AND created_at >= '$started'" | tr '|' ' ')"
        name="$name ($made made)"
    fi
    p50=$(awk '$1 == "50%" {print $2}' "$file")
    p99=$(awk '$1 == "99%" {print $2}' "$file")
    requests=$(awk '/requests in/ {print $1}' "$file")
    errors=$(awk '/Non-2xx|non-2xx|Socket errors/' "$file" | tr '\n' ' ')
    printf '%-52s %10s req/s   p50 %-9s p99 %-9s %s requests  %s  CPU %s\n' "$name" "$rps" "$p50" "$p99" "$requests" "$errors" "$cpu" >&2
    printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$rps" "$p50" "$p99" "${errors:-}" "$cpu" >>"$WORK/results.md"
}
note() { say "$*"; printf '%s\n' "$*" >>"$WORK/notes.txt"; }
fav_count() { sql "SELECT count(*) FROM notifications WHERE type = 'favorite_tag_used' AND card_id = '$1'"; }

AUTH="Authorization: Bearer $READER_WIDE"
for _ in $(seq 60); do
    [ "$(sql "SELECT inbox_ready OR inbox_since IS NULL FROM accounts WHERE id = '$WIDE_ID'")" = t ] && break
    sleep 1
done
say "wide reader's following inbox: $(sql "SELECT CASE WHEN inbox_ready THEN 'ready, ' || (SELECT count(*) FROM following_inbox WHERE reader_id = a.id) || ' rows' WHEN inbox_since IS NOT NULL THEN 'not ready after 60 s' ELSE 'none' END FROM accounts a WHERE id = '$WIDE_ID'")"
run "GET /healthz" "$URL/healthz"
run "GET following, follows $WIDE_FOLLOWS, first page" -H "$AUTH" "$URL/v1/feeds/following?limit=20"
run "GET following, follows $WIDE_FOLLOWS, $WIDE_DEPTH cards down" -H "$AUTH" "$URL/v1/feeds/following?limit=20&cursor=$WIDE_CURSOR"
run "GET following, follows $NARROW_FOLLOWS, first page" -H "Authorization: Bearer $READER_NARROW" "$URL/v1/feeds/following?limit=20"
run "GET following, follows $NARROW_FOLLOWS, $NARROW_DEPTH cards down" -H "Authorization: Bearer $READER_NARROW" \
    "$URL/v1/feeds/following?limit=20&cursor=$NARROW_CURSOR"
MODE=profile run "GET /v1/users/{id} (random seeded)" -s "$WORK/people.lua" "$URL"
run "GET /v1/users/{id}/followers ($TOP_FOLLOWERS followers)" -H "$AUTH" "$URL/v1/users/$TOP_ID/followers?limit=20"

# Posts: 32 plain writers, then 32 writers every seeded account follows, the same tag nobody favours.
MODE=post TAG=$PLAIN_TAG TOKENS=$WORK/writers run "POST /v1/cards, tag nobody favourites" -s "$WORK/people.lua" "$URL"
MODE=post TAG=$PLAIN_TAG TOKENS=$WORK/stars run "POST /v1/cards by accounts everyone follows" -s "$WORK/people.lua" "$URL"
OUTBOX=$(sql "SELECT count(*) FROM tag_notification_outbox")
[ "$OUTBOX" = 0 ] || note "WARNING: $OUTBOX outbox rows after posts with a tag nobody favourites"

# One post with the favourite tag on a quiet server: how long until its notifications are all there.
POSTED=$(curl -sf -X POST "$URL/v1/cards" -H "Authorization: Bearer $(head -1 "$WORK/writers")" -H 'Content-Type: application/json' \
    -d "{\"content\":\"즐겨찾기 태그 배달 시간\",\"background\":{\"default\":\"sea-calm\"},\"tags\":[\"$FAV_TAG\"]}")
T0=$(now)
CARD=$(printf '%s' "$POSTED" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
DELIVERED=0
while before "$T0" 120; do
    DELIVERED=$(fav_count "$CARD")
    [ "$DELIVERED" -ge "$FAVORITERS_NOW" ] && break
    sleep 0.05
done
note "one post with '$FAV_TAG': $DELIVERED of $FAVORITERS_NOW notifications delivered $(elapsed "$T0") s after the 201"

# Latency at a steady pace, one post at a time: what one person posting feels while the favourite
# tag's notifications are fanned out in the background (PACE posts/s; the fan-out's capacity
# must exceed PACE x favouriters, or the outbox would only grow). Plain tag first, then the
# favourite tag, then wait for the outbox to drain.
paced() { # tag
    python3 "$HERE/paced.py" "$URL" "$WORK/writers" "$1" "$PACE" "$PACED_POSTS" | tee -a "$WORK/paced.txt" >&2
    local line; line=$(tail -1 "$WORK/paced.txt")
    printf '| POST /v1/cards at %s/s, one at a time, tag %s | %s | %s | %s | %s |\n' "$PACE" "$1" \
        "$(sed 's/.*p50_ms=\([^ ]*\).*/\1 ms/' <<<"$line")" "$(sed 's/.*p90_ms=\([^ ]*\).*/\1 ms/' <<<"$line")" \
        "$(sed 's/.*p99_ms=\([^ ]*\).*/\1 ms/' <<<"$line")" "$(sed 's/.*max_ms=\([^ ]*\).*/\1 ms/' <<<"$line")" >>"$WORK/paced.md"
}
printf '| Paced posts | p50 | p90 | p99 | max |\n|---|---:|---:|---:|---:|\n' >"$WORK/paced.md"
say "paced posts: $PACED_POSTS at $PACE/s with '$PLAIN_TAG', then with '$FAV_TAG'"
paced "$PLAIN_TAG"
paced "$FAV_TAG"
T0=$(now)
while [ "$(sql "SELECT count(*) FROM tag_notification_outbox")" != 0 ] && before "$T0" "$DRAIN_TIMEOUT"; do sleep 0.2; done
note "paced run: the outbox was empty $(elapsed "$T0") s after the last paced post"

# The same number of posts with the plain and the favourite tag, from the same 32 writers.
PER_THREAD=$(( (FAV_POSTS + THREADS - 1) / THREADS ))
FAV_BEFORE=$(sql "SELECT count(*) FROM notifications WHERE type = 'favorite_tag_used'")
MODE=post TAG=$PLAIN_TAG CAP=$PER_THREAD run "POST /v1/cards, tag nobody favourites, capped at $FAV_POSTS" -s "$WORK/people.lua" "$URL"
MODE=post TAG=$FAV_TAG CAP=$PER_THREAD run "POST /v1/cards, tag $FAVORITERS_NOW favourite, capped at $FAV_POSTS" -s "$WORK/people.lua" "$URL"
T0=$(now)
FAV_CARDS=$(sql "SELECT count(*) FROM card_tags WHERE tag_key = '$FAV_TAG'")
while [ "$(sql "SELECT count(*) FROM tag_notification_outbox")" != 0 ] && before "$T0" "$DRAIN_TIMEOUT"; do sleep 0.2; done
DRAIN=$(elapsed "$T0")
FAV_AFTER=$(sql "SELECT count(*) FROM notifications WHERE type = 'favorite_tag_used'")
# One pass over the notifications (a correlated count per card ran minutes on stale statistics).
MISSING=$(sql "SELECT count(*) FROM card_tags ct
               LEFT JOIN (SELECT card_id, count(*) AS n FROM notifications WHERE type = 'favorite_tag_used' GROUP BY card_id) AS d
                   ON d.card_id = ct.card_id
               WHERE ct.tag_key = '$FAV_TAG' AND coalesce(d.n, 0) <> $FAVORITERS_NOW")
note "capped run: $((FAV_AFTER - FAV_BEFORE)) notifications for $FAV_CARDS posts with '$FAV_TAG' in all; the outbox was empty $DRAIN s after the run ended (or gave up at $DRAIN_TIMEOUT s); of those, posts whose notification count is not $FAVORITERS_NOW: $MISSING"

run "GET /v1/notifications ($(sql "SELECT count(*) FROM notifications WHERE recipient_id = '$WIDE_ID'") for the reader)" \
    -H "$AUTH" "$URL/v1/notifications?limit=20"

sleep 1
DRIFT=$(sql "SELECT count(*) FROM accounts a WHERE follower_count <> (SELECT count(*) FROM follows WHERE followee_id = a.id)
              OR following_count <> (SELECT count(*) FROM follows WHERE follower_id = a.id)")
{
    echo
    cat "$WORK/results.md"
    echo
    cat "$WORK/paced.md"
    echo
    cat "$WORK/notes.txt"
    echo "server peak RSS: $(( $(cat "$WORK/peak-rss" 2>/dev/null || echo 0) / 1024 )) MiB; cards at start: $TOTAL; follows: $FOLLOWS;" \
        "follower/following counters differing from a recount: $DRIFT_BEFORE before the runs, $DRIFT after; results in $WORK"
} | tee -a "$WORK/summary.txt"
