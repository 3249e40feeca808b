#!/usr/bin/env bash
# The web client in a real browser: headless Chromium driven by Selenium against a real server.
#
#   Tests/Browser/run.sh [path/to/soom] [pytest arguments…]      (default: .build/debug/soom)
#
# In one command: makes (or reuses) a Python venv with pinned Selenium and pytest, copies the
# binary, starts `soom serve` on a free port of 127.0.0.1 (a secure context, so WebCrypto
# works) with a throwaway data directory (its own embedded PostgreSQL), runs
# Tests/Browser/test_web_client.py against it, stops the server and removes the data directory
# (also when a test fails or on Ctrl-C). Exits non-zero when a test fails (or anything on the
# way does). Arguments after the binary go to pytest, e.g. `-k journey` or `-x`.
#
# The tests drive the app only through the `data-test` hooks of the web client's contract
# (issue 21, "Test hooks"): the whole journey, two browsers notifying each other, a reload
# keeping the account, the device key not being exportable, no console errors, no request
# leaving the origin, errors shown to the user, and issue 43's findings (card text contrast
# measured on rendered pixels, layouts at a phone's and a desktop's size). They print page
# weight, time to first card and each card's text contrast (lines starting with "MEASURE"), and
# save screenshots at a 390×844 phone viewport and a 1280×800 desktop one (the README's in
# $SOOM_BROWSER_SCREENSHOTS; more, for looking at, in the report directory's screens/).
#
# Not run by `swift test`. Needs bash, curl, python3 with the venv module (Debian:
# python3-venv), Debian's `chromium` and `chromium-driver`, and, the first time, network access
# to PyPI.
#
# Environment (all optional):
#   SOOM_BROWSER_VENV           the venv (default /tmp/browser-venv; re-installed when the pinned
#                               versions are not the ones in it)
#   SOOM_BROWSER_CHROMIUM       the browser (default /usr/bin/chromium)
#   SOOM_BROWSER_CHROMEDRIVER   its driver (default /usr/bin/chromedriver)
#   SOOM_BROWSER_SCREENSHOTS    where the screenshots (PNG) go (default: screenshots/ in the
#                               report directory); the README's are in docs/screenshots/
#   SOOM_BROWSER_REPORT_DIR     the server log, and for each failed test its screenshot, page and
#                               console log (default ${TMPDIR:-/tmp}/soom-browser-report; the
#                               previous run's files there are removed first)
#   SOOM_BROWSER_RATE_LIMITS    raised (default): limits on, far above what a run sends (the
#                               tests sign several accounts up from one address); off: every
#                               limit switched off; default: the server's own limits (5 account
#                               creations an hour per address: most tests would fail)
#   SOOM_BROWSER_TIMEOUT        seconds an explicit wait waits for the page (default 15)
#   SOOM_BROWSER_MAX_FIRST_LOAD_KB  the budget for the first load (default 300, the issue's)

set -euo pipefail

SELENIUM_VERSION=4.51.0
PYTEST_VERSION=9.2.0

binary=${1:-.build/debug/soom}
[[ $# -gt 0 ]] && shift
venv=${SOOM_BROWSER_VENV:-/tmp/browser-venv}
chromium=${SOOM_BROWSER_CHROMIUM:-/usr/bin/chromium}
chromedriver=${SOOM_BROWSER_CHROMEDRIVER:-/usr/bin/chromedriver}
report_dir=${SOOM_BROWSER_REPORT_DIR:-${TMPDIR:-/tmp}/soom-browser-report}
screenshots=${SOOM_BROWSER_SCREENSHOTS:-$report_dir/screenshots}
rate_limits=${SOOM_BROWSER_RATE_LIMITS:-raised}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'run.sh: %s\n' "$*" >&2; exit 2; }
# shellcheck source=../Support/server.sh
source "$here/../Support/server.sh"

[[ -x $binary ]] || die "no executable server binary at '$binary' (build it, or pass its path)"
for tool in curl python3; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
[[ -x $chromium ]] || die "no Chromium at '$chromium' (Debian: apt-get install chromium chromium-driver; or set SOOM_BROWSER_CHROMIUM)"
[[ -x $chromedriver ]] || die "no ChromeDriver at '$chromedriver' (Debian: apt-get install chromium-driver; or set SOOM_BROWSER_CHROMEDRIVER)"
"$chromedriver" --version >/dev/null 2>&1 || die "'$chromedriver --version' fails: is chromium-driver installed completely?"
if command -v fc-list >/dev/null && [[ -z $(fc-list :lang=ko 2>/dev/null) ]]; then
    say "warning: no Korean font installed: the screenshots will show boxes for Hangul (Debian: apt-get install fonts-nanum or fonts-noto-cjk)"
fi

# --- 1. Selenium and pytest, pinned --------------------------------------------------------
installed=$("$venv/bin/python" -c 'import selenium, pytest; print(selenium.__version__, pytest.__version__)' 2>/dev/null || true)
if [[ $installed != "$SELENIUM_VERSION $PYTEST_VERSION" ]]; then
    say "installing selenium==$SELENIUM_VERSION and pytest==$PYTEST_VERSION into $venv"
    if [[ ! -x $venv/bin/pip ]]; then
        python3 -c 'import ensurepip, venv' 2>/dev/null \
            || die "python3 cannot make a venv with pip (Debian/Ubuntu: apt-get install python3-venv)"
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "selenium==$SELENIUM_VERSION" "pytest==$PYTEST_VERSION"
fi
say "$("$chromium" --version 2>/dev/null | head -n 1); $("$chromedriver" --version | cut -d' ' -f1-2); selenium $SELENIUM_VERSION; pytest $PYTEST_VERSION"

# --- 2. The server, on a copy of the binary and a throwaway data directory -----------------
server_workdir soom-browser
trap 'server_cleanup "$report_dir/server.log"' EXIT
trap 'exit 130' INT TERM

mkdir -p "$report_dir" "$screenshots"
# Absolute: the tests run in Tests/Browser.
report_dir=$(cd "$report_dir" && pwd)
screenshots=$(cd "$screenshots" && pwd)
rm -rf "${report_dir:?}/failures" "$report_dir/server.log" "$report_dir/measurements.txt"
server_prepare "$binary"

limits=()
case $rate_limits in
    raised) limits=(--rate-limit on --rate-limit-challenges 100000/60 --rate-limit-accounts 100000/3600
                    --rate-limit-posts 100000/600 --rate-limit-uploads 100000/3600 --rate-limit-default 1000000/300) ;;
    off) limits=(--rate-limit off) ;;
    default) limits=(--rate-limit on) ;;
    *) die "SOOM_BROWSER_RATE_LIMITS must be raised, off or default" ;;
esac
if "$work/soom" serve --help 2>/dev/null | grep -q -- '--reporter-min-age'; then
    limits+=(--reporter-min-age 0)
fi

server_start "${limits[@]}" --log-format json
server_wait readyz ready
curl -sf -o /dev/null "$base/" || die "the server does not serve the web client at $base/ (is this binary older than the client?)"

# --- 3. The tests ----------------------------------------------------------------------------
say "running the browser tests against $base (screenshots in $screenshots)"
started=$(date +%s)
set +e
(
    cd "$here"
    # No __pycache__ or .pytest_cache in the repository.
    export PYTHONDONTWRITEBYTECODE=1
    # Selenium must not fetch a browser or a driver: it is given both.
    export SE_OFFLINE=true SE_AVOID_STATS=true
    SOOM_BASE_URL=$base SOOM_BROWSER_ADMIN="$work/soom" SOOM_BROWSER_DATA_DIR="$work/data" SOOM_BROWSER_CHROMIUM=$chromium SOOM_BROWSER_CHROMEDRIVER=$chromedriver \
    SOOM_BROWSER_SCREENSHOTS=$screenshots SOOM_BROWSER_REPORT_DIR=$report_dir \
        "$venv/bin/python" -m pytest -p no:cacheprovider -v -ra --tb=short --durations=0 \
        --rootdir "$here" "$here/test_web_client.py" "$@"
)
tests_status=$?
set -e
elapsed=$(( $(date +%s) - started ))
server_alive=yes
kill -0 "$server_pid" 2>/dev/null || server_alive=no

# --- 4. Summary ------------------------------------------------------------------------------
python3 - "$work/server.log" "$elapsed" <<'PY'
import collections, json, sys

server_log, elapsed = sys.argv[1], sys.argv[2]
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
print(f"\nBrowser tests took {elapsed} s; the server answered {sum(statuses.values())} requests: "
      + ", ".join(f"{s}×{n}" for s, n in sorted(statuses.items(), key=lambda kv: str(kv[0]))))
if problems:
    print(f"Server log warnings/errors ({len(problems)}):")
    for line in problems[:20]:
        print("  " + line[:300])
PY
[[ -f $report_dir/measurements.txt ]] && { echo; cat "$report_dir/measurements.txt"; }
printf '\nScreenshots: %s\nServer log and failure artefacts: %s\n' "$screenshots" "$report_dir"

if [[ $server_alive == no ]]; then
    echo "The server process died during the run; see $report_dir/server.log" >&2
    exit 3
fi
exit "$tests_status"
