#!/usr/bin/env bash
# End-to-end test of the container setup: builds the image from deploy/Dockerfile, starts
# deploy/compose.yaml under a project name of its own, signs a device up and posts a card,
# checks that `down` is quick and that the data survives `down` / `up`, then removes
# everything it made (containers, network, volume).
#
#   deploy/test.sh
#
# It skips (exit 0) when Docker is not running or the base images are neither present nor
# pullable (no registry), unless SOOM_DEPLOY_TEST_REQUIRED=1, which turns a skip into a failure.
# Needs: docker with Compose (plugin or docker-compose), curl, openssl, python3.
#
#   SOOM_DEPLOY_TEST_IMAGE   image tag to build and run        (default soom:deploy-test)
#   SOOM_DEPLOY_TEST_BUILD   0 = use that image as it is       (default 1: build it)
#   SOOM_DEPLOY_TEST_NO_CACHE 1 = build without Docker's layer cache (a cold build's time)
#   SOOM_DEPLOY_TEST_KEEP    1 = keep the image afterwards     (default 1; 0 removes it)
set -euo pipefail
cd "$(dirname "$0")/.."

required=${SOOM_DEPLOY_TEST_REQUIRED:-0}
image=${SOOM_DEPLOY_TEST_IMAGE:-soom:deploy-test}
project="soomdeploytest$(date +%s)$$"
scratch="deploy/.test-$project"
max_down_seconds=5

say() { printf '\n== %s\n' "$*"; }
skip() {
    if [[ $required == 1 ]]; then echo "deploy/test.sh: FAIL (SOOM_DEPLOY_TEST_REQUIRED=1): $*" >&2; exit 1; fi
    echo "deploy/test.sh: SKIPPED: $*"
    exit 0
}
fail() { echo "deploy/test.sh: FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

# --- Is there a Docker to test with? ---------------------------------------------------------
command -v docker >/dev/null 2>&1 || skip "docker is not installed"
docker info >/dev/null 2>&1 || skip "the Docker daemon is not reachable (docker info failed)"
if docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
    compose=(docker-compose)
else
    skip "neither 'docker compose' nor 'docker-compose' is installed"
fi
for tool in curl openssl python3; do
    command -v $tool >/dev/null 2>&1 || skip "$tool is not installed"
done

base_images=(swift:6.3-bookworm debian:bookworm-slim postgres:15)
missing=()
for base in "${base_images[@]}"; do
    docker image inspect "$base" >/dev/null 2>&1 || missing+=("$base")
done
if [[ ${SOOM_DEPLOY_TEST_BUILD:-1} == 0 ]]; then
    docker image inspect "$image" >/dev/null 2>&1 || fail "SOOM_DEPLOY_TEST_BUILD=0 but there is no image $image"
    missing=()
    docker image inspect postgres:15 >/dev/null 2>&1 || missing+=(postgres:15)
fi
if [[ ${#missing[@]} -gt 0 ]]; then
    # A registry that answers at all answers quickly; a machine without one should not wait long.
    say "base images missing (${missing[*]}): trying to pull them"
    if ! timeout 60 docker pull -q "${missing[0]}" >/dev/null 2>&1; then
        skip "base images ${missing[*]} are not present and cannot be pulled (no registry?)." \
            "On a machine without a registry, /work/shared/tools/local-images.sh builds local stand-ins."
    fi
    for base in "${missing[@]:1}"; do docker pull -q "$base" >/dev/null || fail "docker pull $base failed"; done
fi

# --- Clean up whatever happens ---------------------------------------------------------------
mkdir -p "$scratch"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SOOM_IMAGE=$image SOOM_PUBLISH="127.0.0.1:$port"
# Compose refuses to start without these (no default secrets): fresh ones for this run.
export POSTGRES_PASSWORD=$(openssl rand -hex 24) SOOM_METRICS_TOKEN=$(openssl rand -hex 24)
dc() { "${compose[@]}" -p "$project" -f deploy/compose.yaml "$@"; }
cleanup() {
    local status=$?
    if [[ $status != 0 ]]; then
        echo "--- logs (failure) ---" >&2
        dc logs --no-color --tail=80 >&2 2>/dev/null || true
    fi
    dc down --volumes --remove-orphans -t 5 >/dev/null 2>&1 || true
    rm -rf "$scratch"
    if [[ ${SOOM_DEPLOY_TEST_KEEP:-1} == 0 ]]; then docker image rm "$image" >/dev/null 2>&1 || true; fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- Build -----------------------------------------------------------------------------------
build_seconds="(not built: SOOM_DEPLOY_TEST_BUILD=0)"
if [[ ${SOOM_DEPLOY_TEST_BUILD:-1} != 0 ]]; then
    say "building $image from deploy/Dockerfile (a cold build takes 9-15 minutes on two cores)"
    start=$(now)
    cache=()
    [[ ${SOOM_DEPLOY_TEST_NO_CACHE:-0} == 1 ]] && cache=(--no-cache)
    docker build "${cache[@]}" -f deploy/Dockerfile -t "$image" . >"$scratch/build.log" 2>&1 || { tail -40 "$scratch/build.log" >&2; fail "docker build failed"; }
    build_seconds="$(since "$start") s"
    echo "built in ${build_seconds}"
fi
image_bytes=$(docker image inspect -f '{{.Size}}' "$image")
image_size=$(python3 -c "import sys; print(f'{int(sys.argv[1]) / 1e6:.0f} MB')" "$image_bytes")
user=$(docker image inspect -f '{{.Config.User}}' "$image")
[[ -n $user && ${user%%:*} != 0 && ${user%%:*} != root ]] || fail "the image runs as root (User='$user')"
echo "image $image: $image_size, user $user"

# --- Helpers ---------------------------------------------------------------------------------
base="http://127.0.0.1:$port"
container() { dc ps -q "$1"; }
# wait_up START: waits until soom answers GET /readyz with 200 ("serving") and Docker reports
# its container healthy (the image's HEALTHCHECK, every 5 s); sets serving and healthy to the
# seconds each took from START.
wait_up() {
    local start=$1 id status
    serving="" healthy=""
    for _ in $(seq 480); do
        if [[ -z $serving ]] && curl -sf -m 2 -o /dev/null "$base/readyz"; then serving=$(since "$start"); fi
        id=$(container soom)
        if [[ -n $id && -z $healthy ]]; then
            status=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$id")
            [[ $status == healthy ]] && healthy=$(since "$start")
            [[ $status == exited || $status == dead ]] && fail "soom exited"
        fi
        [[ -n $serving && -n $healthy ]] && return 0
        sleep 0.25
    done
    fail "soom did not become ready and healthy within two minutes"
}
# up_and_wait WHICH: compose up (no build), then wait_up from that moment, and say how long it took.
up_and_wait() {
    local start
    start=$(now)
    dc up -d --no-build >"$scratch/up.log" 2>&1 || { cat "$scratch/up.log" >&2; fail "compose up$1 failed"; }
    wait_up "$start"
    echo "serving ${serving} s and healthy ${healthy} s after up"
}
# json FILE KEY.KEY…: a field of a JSON response.
json() { python3 -c 'import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2:]: value = value[key]
print(value)' "$@"; }
# request NAME METHOD PATH [curl args…]: the body goes to $scratch/NAME.json, the status is printed.
request() {
    local name=$1 method=$2 path=$3
    shift 3
    curl -s -o "$scratch/$name.json" -w '%{http_code}' -X "$method" "$base$path" "$@"
}
expect() {
    local want=$1 got=$2 what=$3
    [[ $got == "$want" ]] || { cat "$scratch"/*.json >&2 2>/dev/null || true; fail "$what: HTTP $got, expected $want"; }
}
# challenge PURPOSE: asks for a challenge and signs "soom:v1:PURPOSE:<nonce>" with the device
# key (register: RSA-PSS, login: PKCS#1 v1.5, both SHA-256), leaving the request body in $scratch/PURPOSE.body
challenge() {
    local purpose=$1 algorithm padding=()
    expect 201 "$(request challenge POST /v1/auth/challenges)" "POST /v1/auth/challenges"
    local id nonce
    id=$(json "$scratch/challenge.json" challengeId)
    nonce=$(json "$scratch/challenge.json" nonce)
    if [[ $purpose == register ]]; then
        algorithm=rsa-pss-sha256
        padding=(-sigopt rsa_padding_mode:pss)
    else
        algorithm=rsa-pkcs1v15-sha256
    fi
    printf 'soom:v1:%s:%s' "$purpose" "$nonce" >"$scratch/message"
    openssl dgst -sha256 -sign "$scratch/device.key" "${padding[@]}" -out "$scratch/signature" "$scratch/message"
    python3 - "$scratch" "$algorithm" "$id" >"$scratch/$purpose.body" <<'PY'
import base64, json, sys
scratch, algorithm, challenge_id = sys.argv[1:]
print(json.dumps({
    "publicKey": open(f"{scratch}/device.pub").read(),
    "algorithm": algorithm,
    "challengeId": challenge_id,
    "signature": base64.b64encode(open(f"{scratch}/signature", "rb").read()).decode(),
}))
PY
}

# --- Up --------------------------------------------------------------------------------------
say "compose project $project: up (serving on $base)"
up_and_wait ""
first_serving=$serving first_healthy=$healthy
[[ $(docker exec "$(container soom)" id -u) != 0 ]] || fail "the server runs as root"

# --- Sign up a device and post a card (README: "A device from the command line: openssl and curl") ---
say "sign up a device, post a card"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$scratch/device.key" 2>/dev/null
openssl pkey -in "$scratch/device.key" -pubout -out "$scratch/device.pub"
challenge register
expect 201 "$(request account POST /v1/accounts -H 'Content-Type: application/json' --data-binary @"$scratch/register.body")" "POST /v1/accounts"
token=$(json "$scratch/account.json" session token)
account_id=$(json "$scratch/account.json" account id)
nickname=$(json "$scratch/account.json" account nickname)
echo "account $account_id ($nickname)"
content="컨테이너에서 숨 쉬기 $project"
python3 -c 'import json, sys; print(json.dumps({"content": sys.argv[1], "background": {"default": "sea-calm"}, "tags": ["배포"]}))' \
    "$content" >"$scratch/card.body"
expect 201 "$(request card POST /v1/cards -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    --data-binary @"$scratch/card.body")" "POST /v1/cards"
card_id=$(json "$scratch/card.json" id)
echo "card $card_id"

# --- Down: quick, and the server stopped on SIGTERM by itself ------------------------------
say "down (keeping the volume)"
soom_id=$(container soom)
postgres_id=$(container postgres)
docker wait "$soom_id" >"$scratch/soom.exit" 2>/dev/null &
wait_soom=$!
docker wait "$postgres_id" >"$scratch/postgres.exit" 2>/dev/null &
wait_postgres=$!
start=$(now)
dc down >"$scratch/down.log" 2>&1 || { cat "$scratch/down.log" >&2; fail "compose down failed"; }
down_seconds=$(since "$start")
wait $wait_soom $wait_postgres || true
echo "down took ${down_seconds} s; exit codes: soom $(cat "$scratch/soom.exit"), postgres $(cat "$scratch/postgres.exit")"
python3 -c "import sys; sys.exit(float(sys.argv[1]) > float(sys.argv[2]))" "$down_seconds" "$max_down_seconds" ||
    fail "down took ${down_seconds} s (more than ${max_down_seconds} s: a container waited for SIGKILL)"
# 0: it stopped itself; 137 would be SIGKILL after the grace period.
[[ $(cat "$scratch/soom.exit") == 0 ]] || fail "soom exited with $(cat "$scratch/soom.exit") on SIGTERM, not 0"
[[ -z $(dc ps -q) ]] || fail "containers are left after down"

# --- Up again: the account, its session and the card survived -------------------------------
say "up again"
up_and_wait " (again)"
second_serving=$serving second_healthy=$healthy
expect 200 "$(request me GET /v1/me -H "Authorization: Bearer $token")" "GET /v1/me with the session from before down"
[[ $(json "$scratch/me.json" id) == "$account_id" ]] || fail "GET /v1/me is another account"
challenge login
expect 201 "$(request session POST /v1/sessions -H 'Content-Type: application/json' --data-binary @"$scratch/login.body")" "POST /v1/sessions"
new_token=$(json "$scratch/session.json" session token)
expect 200 "$(request me GET /v1/me -H "Authorization: Bearer $new_token")" "GET /v1/me after signing in again"
[[ $(json "$scratch/me.json" id) == "$account_id" ]] || fail "signing in again gave another account"
[[ $(json "$scratch/me.json" cardCount) == 1 ]] || fail "cardCount is $(json "$scratch/me.json" cardCount), expected 1"
expect 200 "$(request read GET "/v1/cards/$card_id" -H "Authorization: Bearer $new_token")" "GET /v1/cards/$card_id"
[[ $(json "$scratch/read.json" content) == "$content" ]] || fail "the card's content changed"
echo "account, session and card survived down/up"

# --- Tear down with the volume ---------------------------------------------------------------
say "down --volumes"
volume="${project}_pgdata"
dc down --volumes >/dev/null 2>&1
! docker volume inspect "$volume" >/dev/null 2>&1 || fail "volume $volume is left"

say "deploy/test.sh: PASSED"
printf '  %-32s %s\n' "image" "$image ($image_size)" "build" "${build_seconds}" \
    "up -> serving, healthy (new)" "${first_serving} s, ${first_healthy} s" \
    "up -> serving, healthy (again)" "${second_serving} s, ${second_healthy} s" \
    "compose down" "${down_seconds} s" "compose" "${compose[*]}"
