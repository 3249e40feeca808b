-- wrk script for the login benchmark (see README.md).
--
-- SOOM_BENCH_MODE=login (default): each thread alternates `POST /v1/auth/challenges` and
--   `POST /v1/sessions` with the next pre-signed body. Arguments after `--`: the bodies file
--   (one JSON body per line, from presign.py) and the number of wrk threads. Thread i takes
--   lines i+1, i+1+T, i+1+2T, ... so no body is sent twice. When a thread runs out of bodies it
--   stops (and says so in the result): the run is then shorter, never a replay.
-- SOOM_BENCH_MODE=sessions: only `POST /v1/sessions` with the pre-signed bodies (diagnostic:
--   the sign-in half alone). Same arguments as login.
-- SOOM_BENCH_MODE=challenges: only `POST /v1/auth/challenges` (diagnostic: the other half), as
--   a static request.
-- SOOM_BENCH_MODE=healthz: wrk's own static `GET` of the URL; only done() below.
--
-- done() prints one `RESULT key=value ...` line for login.sh. Every non-2xx response is
-- counted, and the first few are shown, so a run with failures cannot pass for a clean one.

local mode = os.getenv("SOOM_BENCH_MODE") or "login"

-- Main state: setup() and done() -----------------------------------------------------------

local threads = {}

function setup(thread)
    thread:set("id", #threads)
    table.insert(threads, thread)
end

local function sum(name)
    local total = 0
    for _, thread in ipairs(threads) do
        total = total + (tonumber(thread:get(name)) or 0)
    end
    return total
end

function done(summary, latency, requests)
    local seconds = summary.duration / 1e6
    local e = summary.errors
    local fields = {
        string.format("mode=%s", mode),
        string.format("duration_s=%.2f", seconds),
        string.format("requests=%d", summary.requests),
        string.format("rps=%.1f", summary.requests / seconds),
        string.format("p50_ms=%.2f", latency:percentile(50) / 1000),
        string.format("p90_ms=%.2f", latency:percentile(90) / 1000),
        string.format("p99_ms=%.2f", latency:percentile(99) / 1000),
        string.format("p999_ms=%.2f", latency:percentile(99.9) / 1000),
        string.format("max_ms=%.2f", latency.max / 1000),
        string.format("socket_errors=%d", e.connect + e.read + e.write + e.timeout),
        string.format("status_errors=%d", e.status),
    }
    if mode == "login" or mode == "sessions" then
        local sessions = sum("ok_sessions")
        table.insert(fields, string.format("sessions_ok=%d", sessions))
        table.insert(fields, string.format("challenges_ok=%d", sum("ok_challenges")))
        table.insert(fields, string.format("other_2xx=%d", sum("ok_other")))
        table.insert(fields, string.format("failures=%d", sum("failures")))
        table.insert(fields, string.format("bodies=%d", sum("body_count")))
        table.insert(fields, string.format("bodies_sent=%d", sum("bodies_sent")))
        table.insert(fields, string.format("exhausted_threads=%d", sum("exhausted")))
        table.insert(fields, string.format("logins_per_s=%.1f", sessions / seconds))
        for _, thread in ipairs(threads) do
            local samples = thread:get("failure_samples")
            if samples and samples ~= "" then io.write(samples) end
        end
    else
        table.insert(fields, string.format("failures=%d", e.status))
    end
    io.write("RESULT " .. table.concat(fields, " ") .. "\n")
end

-- Thread states: init(), request(), response() (login mode only) -----------------------------

if mode == "challenges" then
    wrk.method = "POST"
    wrk.path = "/v1/auth/challenges"
    wrk.headers["Content-Length"] = "0"
end

if mode == "login" or mode == "sessions" then
    -- Globals, so that done() can read them with thread:get().
    ok_sessions, ok_challenges, ok_other, failures = 0, 0, 0, 0
    body_count, bodies_sent, exhausted = 0, 0, 0
    failure_samples = ""

    local bodies = {}
    local challenge
    local send_challenge = false

    function init(args)
        local path, thread_count = args[1], tonumber(args[2])
        assert(path and thread_count, "usage: wrk ... -s login.lua URL -- BODIES_FILE THREAD_COUNT")
        local id = wrk.thread:get("id")
        challenge = wrk.format("POST", "/v1/auth/challenges", { ["Content-Length"] = "0" })
        local headers = { ["Content-Type"] = "application/json" }
        local index = 0
        for line in io.lines(path) do
            if index % thread_count == id and #line > 0 then
                body_count = body_count + 1
                bodies[body_count] = wrk.format("POST", "/v1/sessions", headers, line)
            end
            index = index + 1
        end
    end

    function request()
        send_challenge = mode == "login" and not send_challenge
        if send_challenge then
            return challenge
        end
        if bodies_sent == body_count then
            if exhausted == 0 then
                exhausted = 1
                wrk.thread:stop()
            end
            return challenge
        end
        bodies_sent = bodies_sent + 1
        local r = bodies[bodies_sent]
        bodies[bodies_sent] = nil
        return r
    end

    function response(status, headers, body)
        if status >= 200 and status < 300 then
            if string.find(body, '"session"', 1, true) then
                ok_sessions = ok_sessions + 1
            elseif string.find(body, '"nonce"', 1, true) then
                ok_challenges = ok_challenges + 1
            else
                ok_other = ok_other + 1
            end
        else
            failures = failures + 1
            if failures <= 3 then
                failure_samples = failure_samples .. string.format("FAILURE %d %s\n", status, string.sub(body or "", 1, 300))
            end
        end
    end
end
