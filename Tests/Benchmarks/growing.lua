-- wrk script of growing.sh: GET /v1/cards/{id} for ids drawn at random from the file named by
-- SOOM_BENCH_IDS (one a line), as the reader (SOOM_BENCH_TOKEN). wrk counts every answer of 400
-- or above as "Non-2xx or 3xx responses".
local ids = {}
for line in io.lines(os.getenv("SOOM_BENCH_IDS")) do
    if #line > 0 then ids[#ids + 1] = line end
end
local token = os.getenv("SOOM_BENCH_TOKEN") or ""
if #token > 0 then wrk.headers["Authorization"] = "Bearer " .. token end

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("seed", threads)
end

function init(args)
    -- Each thread its own sequence of cards.
    math.randomseed(os.time() * 1009 + (seed or 0))
end

function request()
    return wrk.format("GET", "/v1/cards/" .. ids[math.random(#ids)])
end
