#!/usr/bin/env bash
# Contract fuzzing of a Soom server binary with Schemathesis, from the outside.
#
#   Tests/Contract/schemathesis.sh [path/to/soom]        (default: .build/debug/soom)
#
# In one command: makes (or reuses) a Python venv with a pinned Schemathesis, copies the
# binary, starts `soom serve` on a free port with a throwaway data directory (its own
# embedded PostgreSQL), signs a device up as README.md shows (openssl + curl), runs every
# Schemathesis check against the served /openapi.yaml with that session, prints a
# deduplicated summary of the failures, stops the server and removes the data directory.
# Exits non-zero if Schemathesis reports failures (or if anything on the way fails).
#
# Schemathesis reads the repository's schemathesis.toml: which documented answers that depend
# on state (not on the request's shape) `positive_data_acceptance` accepts, per operation.
#
# Not run by `swift test` (.ci/run runs it after the tests). Needs bash, curl, openssl,
# python3 with the venv module (Debian: python3-venv) and, the first time, network access
# to PyPI.
#
# Environment (all optional):
#   SOOM_CONTRACT_MAX_EXAMPLES  test cases per operation and phase (default 20)
#   SOOM_CONTRACT_DETERMINISTIC 1 (default): Schemathesis' deterministic mode
#                               (--generation-deterministic): every run generates the same
#                               cases, so a run that passed passes again and a failure can be
#                               replayed; 0: random cases from SOOM_CONTRACT_SEED
#   SOOM_CONTRACT_MAX_TIME      seconds for the whole Schemathesis run; fuzzing and stateful
#                               testing repeat until it is spent (which makes the cases depend
#                               on the machine's speed). 0 = no limit, the run ends when
#                               MAX_EXAMPLES are done (default 0)
#   SOOM_CONTRACT_SEED          Schemathesis seed, when not deterministic (default 1)
#   SOOM_CONTRACT_WORKERS       Schemathesis workers (default 1)
#   SOOM_CONTRACT_PHASES        e.g. examples,coverage,fuzzing (default: all four phases)
#   SOOM_CONTRACT_RATE_LIMITS   raised (default): rate limiting on, with limits far above what
#                               one run sends, so every RateLimit-* header is still checked but
#                               the fuzzer is not reduced to 429s; default: the server's own
#                               limits (600 requests per 5 minutes: most of a run becomes 429)
#   SOOM_CONTRACT_VENV          the venv (default /tmp/st-venv; re-installed if the pinned
#                               version is not the one in it)
#   SOOM_CONTRACT_REPORT_DIR    where the JSON/NDJSON/JUnit reports and the server log are
#                               kept (default ${TMPDIR:-/tmp}/soom-contract-report; the
#                               previous run's reports there are removed first)
#   SOOM_CONTRACT_EXTRA_ARGS    more arguments for `schemathesis run`, word-split
#   SOOM_CONTRACT_CONFIG        the Schemathesis configuration (default: schemathesis.toml at
#                               the repository root)
#   SOOM_CONTRACT_SCHEMA        where Schemathesis loads the schema from (default: the served
#                               /openapi.yaml of the binary under test; a file path to try an
#                               edited openapi.yaml against an older binary)
#
# Operations that end the test session are excluded: DELETE /v1/me (withdraw) and
# DELETE /v1/sessions/current (deleteCurrentSession); and the live stream
# (streamNotifications), whose answer never ends while the session lives, so every call would
# time out: NotificationStreamTests and the browser tests drive it instead.

set -euo pipefail

SCHEMATHESIS_VERSION=4.32.5

binary=${1:-.build/debug/soom}
max_examples=${SOOM_CONTRACT_MAX_EXAMPLES:-20}
max_time=${SOOM_CONTRACT_MAX_TIME:-0}
deterministic=${SOOM_CONTRACT_DETERMINISTIC:-1}
seed=${SOOM_CONTRACT_SEED:-1}
workers=${SOOM_CONTRACT_WORKERS:-1}
phases=${SOOM_CONTRACT_PHASES:-}
rate_limits=${SOOM_CONTRACT_RATE_LIMITS:-raised}
venv=${SOOM_CONTRACT_VENV:-/tmp/st-venv}
report_dir=${SOOM_CONTRACT_REPORT_DIR:-${TMPDIR:-/tmp}/soom-contract-report}
repository=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
config=${SOOM_CONTRACT_CONFIG:-$repository/schemathesis.toml}
schema=${SOOM_CONTRACT_SCHEMA:-}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'schemathesis.sh: %s\n' "$*" >&2; exit 2; }
# shellcheck source=../Support/server.sh
source "$repository/Tests/Support/server.sh"

[[ -x $binary ]] || die "no executable server binary at '$binary' (build it, or pass its path)"
for tool in curl openssl python3; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
[[ -f $config ]] || die "no Schemathesis configuration at '$config'"
config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
if [[ -n $schema && $schema != http://* && $schema != https://* ]]; then
    [[ -f $schema ]] || die "no schema file at '$schema'"
    schema=$(cd "$(dirname "$schema")" && pwd)/$(basename "$schema")
fi

# --- 1. Schemathesis, pinned ---------------------------------------------------------------
if [[ "$("$venv/bin/schemathesis" --version 2>/dev/null || true)" != *"version $SCHEMATHESIS_VERSION" ]]; then
    say "installing schemathesis==$SCHEMATHESIS_VERSION into $venv"
    if [[ ! -x $venv/bin/pip ]]; then
        python3 -c 'import ensurepip, venv' 2>/dev/null \
            || die "python3 cannot make a venv with pip (Debian/Ubuntu: apt-get install python3-venv)"
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
"$venv/bin/schemathesis" --version >&2

# --- 2. The server, on a copy of the binary and a throwaway data directory -----------------
server_workdir soom-contract
trap 'server_cleanup "$report_dir/server.log"' EXIT
trap 'exit 130' INT TERM

mkdir -p "$report_dir"
rm -f "$report_dir"/ndjson-*.ndjson "$report_dir"/json-*.json "$report_dir"/junit-*.xml \
      "$report_dir/schemathesis.out" "$report_dir/server.log"
server_prepare "$binary"

limits=()
case $rate_limits in
    raised) limits=(--rate-limit-challenges 100000/60 --rate-limit-accounts 100000/3600
                    --rate-limit-posts 100000/600 --rate-limit-uploads 100000/3600 --rate-limit-default 1000000/300) ;;
    default) ;;
    *) die "SOOM_CONTRACT_RATE_LIMITS must be raised or default" ;;
esac

server_start --rate-limit on "${limits[@]}" --reporter-min-age 0 --log-format json
server_wait healthz healthy

# --- 3. A device signs up (README.md, "A device from the command line: openssl and curl") -----------
say "registering a device"
(
    cd "$work"
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out device.key 2>/dev/null
    openssl pkey -in device.key -pubout -out device.pub
    challenge=$(curl -sf -X POST "$base/v1/auth/challenges")
    challenge_id=$(echo "$challenge" | sed -E 's/.*"challengeId":"([^"]+)".*/\1/')
    nonce=$(echo "$challenge" | sed -E 's/.*"nonce":"([^"]+)".*/\1/')
    printf 'soom:v1:register:%s' "$nonce" > message
    openssl dgst -sha256 -sign device.key -sigopt rsa_padding_mode:pss -out signature message
    public_key=$(awk '{printf "%s\\n", $0}' device.pub)
    curl -sf -X POST "$base/v1/accounts" -H 'Content-Type: application/json' -d "{
      \"publicKey\": \"$public_key\", \"algorithm\": \"rsa-pss-sha256\",
      \"challengeId\": \"$challenge_id\", \"signature\": \"$(base64 -w0 signature)\" }" > account.json
)
token=$(sed -nE 's/.*"token":"([^"]+)".*/\1/p' "$work/account.json")
[[ -n $token ]] || die "registration failed: $(cat "$work/account.json")"
curl -sf "$base/v1/me" -H "Authorization: Bearer $token" >/dev/null || die "the new session does not work"

# --- 4. Schemathesis -----------------------------------------------------------------------
args=(--config-file "$config" run "${schema:-$base/openapi.yaml}" --url "$base"
      -H "Authorization: Bearer $token"
      --checks all --seed "$seed" --workers "$workers" -n "$max_examples"
      --exclude-operation-id withdraw --exclude-operation-id deleteCurrentSession --exclude-operation-id streamNotifications
      --report json,ndjson,junit --report-dir "$report_dir"
      --no-color --output-truncate false)
[[ $max_time != 0 ]] && args+=(--max-time "$max_time")
[[ $deterministic == 1 ]] && args+=(--generation-deterministic)
[[ -n $phases ]] && args+=(--phases "$phases")
# shellcheck disable=SC2206
[[ -n ${SOOM_CONTRACT_EXTRA_ARGS:-} ]] && args+=(${SOOM_CONTRACT_EXTRA_ARGS})

say "schemathesis ${args[*]/"$token"/[token]}"
started=$(date +%s)
set +e
(cd "$work" && nice -n 10 "$venv/bin/schemathesis" "${args[@]}") >"$report_dir/schemathesis.out" 2>&1
st_status=$?
set -e
elapsed=$(( $(date +%s) - started ))
server_alive=yes
kill -0 "$server_pid" 2>/dev/null || server_alive=no

# --- 5. Summary ----------------------------------------------------------------------------
sed -n '/^=* SUMMARY =*$/,$p' "$report_dir/schemathesis.out"
printf '\nSchemathesis output: %s\n' "$report_dir/schemathesis.out"
python3 - "$report_dir" "$work/server.log" "$elapsed" <<'PY'
import base64, collections, glob, json, re, sys

report_dir, server_log, elapsed = sys.argv[1], sys.argv[2], sys.argv[3]
ndjson = sorted(glob.glob(f"{report_dir}/ndjson-*.ndjson"))
groups = {}
for line in open(ndjson[-1]) if ndjson else []:
    event = json.loads(line)
    if "ScenarioFinished" not in event:
        continue
    recorder = event["ScenarioFinished"].get("recorder", {})
    for case_id, checks in recorder.get("checks", {}).items():
        for check in checks:
            if check.get("status") != "failure":
                continue
            case = recorder.get("cases", {}).get(case_id, {}).get("value", {})
            interaction = recorder.get("interactions", {}).get(case_id) or {}
            response = interaction.get("response") or {}
            status = response.get("status_code")
            content = response.get("content") or {}
            raw = base64.b64decode(content["$base64"]) if "$base64" in content else (content.get("string") or "").encode()
            text = raw.decode("utf-8", "replace")
            code = field = message = None
            try:
                error = json.loads(text).get("error") or {}
                code, field, message = error.get("code"), error.get("field"), error.get("message")
            except Exception:
                pass
            operation = f"{case.get('method')} {case.get('path')}"
            # One group per operation, check and answer; IDs and generated names in messages
            # do not make a failure new.
            shape = re.sub(r"'.*'", "'…'", re.sub(r"[0-9a-f-]{36}", "<id>", message or ""))
            key = (operation, check["name"], status, code, field, shape)
            request = interaction.get("request") or {}
            body = request.get("body")
            if isinstance(body, dict):
                body = base64.b64decode(body["$base64"]).decode("utf-8", "replace") if "$base64" in body else body.get("string")
            example = f"{request.get('method')} {request.get('uri', '')}" + (f"  body: {body}" if body else "")
            group = groups.setdefault(key, {"count": 0, "example": example, "answer": text})
            group["count"] += 1
            if len(example) < len(group["example"]):
                group["example"], group["answer"] = example, text

statuses = collections.Counter()
problems = []
for line in open(server_log, errors="replace"):
    try:
        entry = json.loads(line)
    except ValueError:
        problems.append(line.rstrip())
        continue
    if entry.get("message") == "request":
        statuses[entry.get("metadata", {}).get("http.status")] += 1
    elif entry.get("level") in ("warning", "error", "critical"):
        problems.append(line.rstrip())

print(f"\nRun time {elapsed} s; server answered {sum(statuses.values())} requests: "
      + ", ".join(f"{s}×{n}" for s, n in sorted(statuses.items(), key=lambda kv: str(kv[0]))))
if problems:
    print(f"\nServer log warnings/errors ({len(problems)}):")
    for line in problems[:20]:
        print("  " + line[:300])
print(f"\nDistinct failures: {len(groups)} (operation · check · status code/field: message · times seen)")
for (operation, check, status, code, field, _), group in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    answer = f"{code}" + (f"/{field}" if field else "") if code else (group["answer"][:120] or "-")
    print(f"\n- {operation} · {check} · {status} {answer} · ×{group['count']}")
    print(f"    {group['example'][:400]}")
    if code:
        print(f"    -> {json.loads(group['answer'])['error'].get('message', '')[:200]}")
PY

if [[ $server_alive == no ]]; then
    echo "The server process died during the run; see $report_dir/server.log" >&2
    exit 3
fi
if [[ $st_status -ne 0 ]]; then
    echo "schemathesis exited with $st_status (failures found)" >&2
fi
exit "$st_status"
