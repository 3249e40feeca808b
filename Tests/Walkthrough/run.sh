#!/usr/bin/env bash
# The README's walkthrough ("A device from the command line"), run as written against a real server.
#
#   Tests/Walkthrough/run.sh [path/to/soom]      (default: .build/debug/soom)
#
# Takes the walkthrough from README.md itself, not from a copy: every fenced block opened with
# ```sh walkthrough, in order. Copies the binary, starts `soom serve` on a free port of 127.0.0.1
# with a throwaway data directory (its own embedded PostgreSQL) and the server's default rate
# limits (what a reader gets), runs the blocks one after another in one bash with
# `set -euo pipefail` and SOOM pointing at that server, stops the server and removes the data
# directory (also on failure or Ctrl-C). It fails when any step fails, when the blocks did not
# all run, when the walkthrough left its scratch directory behind, or when `git status` of the
# repository differs afterwards (the walkthrough runs from the repository's root, so a file it
# wrote there, a private key say, would show). The last line says which.
#
# Not run by `swift test`; `.ci/run` runs it. Needs bash, curl, openssl, python3 (and git for
# the repository check). About ten seconds once the server is up.

set -euo pipefail

binary=${1:-.build/debug/soom}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
readme=$root/README.md

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'Walkthrough: FAILED: %s\n' "$*" >&2; exit 2; }
# shellcheck source=../Support/server.sh
source "$here/../Support/server.sh"

[[ -x $binary ]] || die "no executable server binary at '$binary' (build it, or pass its path)"
for tool in curl openssl python3; do
    command -v "$tool" >/dev/null || die "$tool is required"
done

# --- 1. The walkthrough, from README.md ----------------------------------------------------
server_workdir soom-walkthrough
mkdir "$work/tmp"
blocks=$(awk '
    /^```sh walkthrough[[:space:]]*$/ { inside = 1; n++; next }
    inside && /^```[[:space:]]*$/ { inside = 0; next }
    inside { print n "\t" $0 }
' "$readme")
count=$(cut -f1 <<<"$blocks" | sort -un | wc -l)
[[ $count -gt 0 ]] || die "README.md has no \`\`\`sh walkthrough blocks"
{
    echo 'set -euo pipefail'
    for i in $(seq "$count"); do
        first=$(awk -F'\t' -v n="$i" '$1 == n { sub(/^[^\t]*\t/, ""); print; exit }' <<<"$blocks")
        printf 'echo %q >"$WALKTHROUGH_PROGRESS"\n' "$i"
        printf 'echo %q >&2\n' "--- block $i of $count: ${first:0:80}"
        awk -F'\t' -v n="$i" '$1 == n { sub(/^[^\t]*\t/, ""); print }' <<<"$blocks"
    done
} >"$work/walkthrough.sh"

# --- 2. The server, on a copy of the binary and a throwaway data directory -----------------
trap server_cleanup EXIT
trap 'exit 130' INT TERM

server_prepare "$binary"
server_start --log-format json
server_wait readyz ready

# --- 3. The walkthrough, from the repository's root ------------------------------------------
git_status() { git -C "$root" status --porcelain --untracked-files=all 2>/dev/null || echo "(no git)"; }
before=$(git_status)
say "running the $count walkthrough blocks of README.md against $base"
started=$(date +%s)
set +e
(
    cd "$root"
    SOOM=$base TMPDIR=$work/tmp WALKTHROUGH_PROGRESS=$work/progress bash "$work/walkthrough.sh" </dev/null
)
walk_status=$?
set -e
elapsed=$(( $(date +%s) - started ))
reached=$(cat "$work/progress" 2>/dev/null || echo 0)
after=$(git_status)

# --- 4. Verdict ------------------------------------------------------------------------------
problems=()
if [[ $walk_status -ne 0 ]]; then
    problems+=("block $reached of $count exited with status $walk_status")
elif [[ $reached -ne $count ]]; then
    problems+=("the walkthrough ended early, in block $reached of $count")
fi
leftovers=$(ls -A "$work/tmp")
[[ -z $leftovers ]] || problems+=("the scratch directory was left behind: $leftovers")
if [[ $before != "$after" ]]; then
    problems+=("the repository changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | tr '\n' ' ' || true)")
fi
if ! kill -0 "$server_pid" 2>/dev/null; then
    problems+=("the server process died during the walkthrough")
fi
server_stop   # before the verdict, so that it is the last line
if [[ ${#problems[@]} -gt 0 ]]; then
    printf "\nServer log (last lines):\n" >&2
    tail -n 10 "$work/server.log" >&2
    printf 'Walkthrough: FAILED: %s\n' "${problems[@]}" >&2
    exit 1
fi
printf 'Walkthrough: PASSED: all %d blocks of README.md ran against %s in %d s; the scratch directory is gone and the repository is unchanged.\n' \
    "$count" "$binary" "$elapsed"
