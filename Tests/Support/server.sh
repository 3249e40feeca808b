# A throwaway `soom serve` for the test drivers that run against a real server:
# Tests/Browser/run.sh, Tests/Contract/schemathesis.sh and Tests/Walkthrough/run.sh.
#
# Sourced, not run. The sourcing script runs under `set -euo pipefail` and defines, before it
# calls anything here, `say MESSAGE` (a progress line on stderr) and `die MESSAGE` (a message
# in its own words, then exit 2): the functions below report through them, so every driver
# keeps its own prefix and exit code.
#
# They share these variables with the driver (the driver reads them; only these functions set them):
#   work        the throwaway directory: the copy of the binary (soom), the data directory
#               (data, with its own embedded PostgreSQL) and the server's log (server.log)
#   port, base  the free port on 127.0.0.1 the server listens on, and http://127.0.0.1:$port
#   server_pid  the server process, empty when there is none
#
# The functions, in the order a driver calls them:
#   server_workdir PREFIX   makes $work, a new ${TMPDIR:-/tmp}/PREFIX.XXXXXX, open to the
#                           `postgres` user (run as root, the server hands its cluster to it)
#   server_prepare BINARY   copies BINARY to $work/soom (a rebuild during the run does not
#                           touch it) and picks $port and $base
#   server_start ARGS...    starts `$work/soom serve` on $port with the data in $work/data,
#                           ARGS added (rate limits, log format…), output to $work/server.log,
#                           in the background as $server_pid
#   server_wait PATH WORD   waits up to two minutes for $base/PATH to answer 2xx (readyz,
#                           healthz); dies "the server exited while starting" when it exits
#                           first, "the server did not become WORD" when time runs out, with
#                           the log's last 20 lines on stderr
#   server_stop             SIGTERM to the server, up to 30 s, then SIGKILL; nothing when
#                           there is no server; empties $server_pid
#   server_cleanup [LOG]    for the EXIT trap (`trap 'server_cleanup "$dir/server.log"' EXIT`):
#                           server_stop, stops an embedded PostgreSQL the server left behind,
#                           copies the server's log to LOG when given (quietly, if it can),
#                           removes $work and exits with the status the script was exiting with

work=
port=
base=
server_pid=
server_binary=

server_workdir() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    chmod 755 "$work"   # run as root, the server hands its PostgreSQL cluster to `postgres`
}

server_prepare() {
    server_binary=$1
    cp "$server_binary" "$work/soom"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    base=http://127.0.0.1:$port
}

server_start() {
    say "starting $server_binary on $base (data in $work/data)"
    "$work/soom" serve --hostname 127.0.0.1 --port "$port" --data-directory "$work/data" \
        "$@" >"$work/server.log" 2>&1 &
    server_pid=$!
}

server_wait() {
    local path=$1 word=$2
    for _ in $(seq 240); do
        curl -sf "$base/$path" >/dev/null 2>&1 && break
        kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$work/server.log" >&2; die "the server exited while starting"; }
        sleep 0.5
    done
    curl -sf "$base/$path" >/dev/null || { tail -n 20 "$work/server.log" >&2; die "the server did not become $word"; }
}

server_stop() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
        say "stopping the server (pid $server_pid)"
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 60); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
        kill -0 "$server_pid" 2>/dev/null && kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=
}

server_cleanup() {
    local status=$?
    local log_copy=${1:-}
    server_stop
    # Should the server have died without stopping its PostgreSQL, stop that one by its pid.
    local pidfile=$work/data/postgres/postmaster.pid
    if [[ -f $pidfile ]]; then
        local pg_pid
        pg_pid=$(head -n 1 "$pidfile" 2>/dev/null || true)
        if [[ $pg_pid =~ ^[0-9]+$ ]] && kill -0 "$pg_pid" 2>/dev/null; then
            say "stopping the embedded PostgreSQL left behind (pid $pg_pid)"
            kill -INT "$pg_pid" 2>/dev/null || true
            for _ in $(seq 60); do kill -0 "$pg_pid" 2>/dev/null || break; sleep 0.5; done
        fi
    fi
    if [[ -n $log_copy && -f $work/server.log ]]; then
        cp "$work/server.log" "$log_copy" 2>/dev/null || true
    fi
    rm -rf "$work"
    exit "$status"
}
