-- wrk script of livemix.sh: every request as a random one of the mix's accounts, drawn from
--   reads: latest 25 %, following 15 %, popular 10 %, a tag's feed 10 %, nearby 5 %, a user's
--          cards 5 %, card detail 25 %, a card's comment cards 5 %
--   writes (SOOM_BENCH_WRITES per cent of all requests, replacing reads): a like, an unlike and a
--          post (two tags, one in four near Seoul) in equal parts.
-- Files (one item a line) in SOOM_BENCH_WORK: tokens, accounts, cards (cards read and liked),
-- tags (tag names, URL-encoded). wrk counts every answer of 400 or above as "Non-2xx or 3xx".
local work = os.getenv("SOOM_BENCH_WORK")
local writes = tonumber(os.getenv("SOOM_BENCH_WRITES") or "2") / 100

local function lines(name)
    local items = {}
    for line in io.lines(work .. "/" .. name) do
        if #line > 0 then items[#items + 1] = line end
    end
    return items
end
local tokens, accounts, cards, tags = lines("tokens"), lines("accounts"), lines("cards"), lines("tags")

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("seed", threads)
end

function init(args)
    math.randomseed(os.time() * 1009 + (seed or 0))
end

local function pick(items) return items[math.random(#items)] end

local reads = {
    { 25, function() return "/v1/feeds/latest?limit=20" end },
    { 15, function() return "/v1/feeds/following?limit=20" end },
    { 10, function() return "/v1/feeds/popular?limit=20" end },
    { 10, function() return "/v1/tags/" .. pick(tags) .. "/cards?limit=20" end },
    { 5, function()
        return string.format("/v1/feeds/nearby?latitude=%.4f&longitude=%.4f&radiusKm=5&limit=20",
            37.5665 + (math.random() - 0.5) * 0.05, 126.9780 + (math.random() - 0.5) * 0.05)
    end },
    { 5, function() return "/v1/users/" .. pick(accounts) .. "/cards?limit=20" end },
    { 25, function() return "/v1/cards/" .. pick(cards) end },
    { 5, function() return "/v1/cards/" .. pick(cards) .. "/comments?limit=20" end },
}

local function read_path()
    local roll = math.random(100)
    for _, entry in ipairs(reads) do
        roll = roll - entry[1]
        if roll <= 0 then return entry[2]() end
    end
    return reads[1][2]()
end

local tag_names = {}
for _, tag in ipairs(tags) do
    -- The post bodies carry the decoded names; the file holds them URL-encoded for the paths.
    tag_names[#tag_names + 1] = tag:gsub("%%(%x%x)", function(hex) return string.char(tonumber(hex, 16)) end)
end

local function post_body()
    local location = ""
    if math.random(4) == 1 then
        location = string.format(',"location":{"latitude":%.4f,"longitude":%.4f}',
            37.5665 + (math.random() - 0.5) * 0.1, 126.9780 + (math.random() - 0.5) * 0.1)
    end
    return string.format('{"content":"라이브 믹스 %d","background":{"default":"sea-calm"},"tags":["%s","%s"]%s}',
        math.random(1000000000), pick(tag_names), pick(tag_names), location)
end

function request()
    local headers = { ["Authorization"] = "Bearer " .. pick(tokens) }
    if math.random() < writes then
        local kind = math.random(3)
        if kind == 1 then return wrk.format("PUT", "/v1/cards/" .. pick(cards) .. "/like", headers) end
        if kind == 2 then return wrk.format("DELETE", "/v1/cards/" .. pick(cards) .. "/like", headers) end
        headers["Content-Type"] = "application/json"
        return wrk.format("POST", "/v1/cards", headers, post_body())
    end
    return wrk.format("GET", read_path(), headers)
end
