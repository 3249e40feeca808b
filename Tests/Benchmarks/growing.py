#!/usr/bin/env python3
"""Helpers of growing.sh, the growing-database benchmark (see its header and README.md).

    growing.py vocabulary OUT.psql
        psql \\set lines with the shared vocabulary (tag head words, sentences, cities) for growing.sql,
        so that cards made through the API and with SQL carry the same tags and places.
    growing.py devices URL KEYS FIRST COUNT OUT
        registers COUNT devices with keys FIRST… of the key cache KEYS (a JSON list of PKCS#8 PEMs,
        made on every core when missing), signing each registration challenge as a phone would;
        writes "token id" lines to OUT.
    growing.py follow URL TOKEN IDS
        PUT /v1/users/{id}/follow for every account id in the file IDS, as TOKEN.
    growing.py grow URL --posters F --burst-accounts F --author F --cards N --burst B ...
        one stage through the API: N top-level cards (the last B by the burst accounts), comment
        cards, likes and follows, from several processes and threads.
    growing.py walk URL TOKEN DEPTH
        pages through the following feed (pages of 50) DEPTH cards down; prints "SEEN CURSOR".
    growing.py random-ids COUNT     COUNT random UUIDs (the card-detail list while nothing exists)
    growing.py cursor SCOPE         a cursor at this instant for SCOPE ("following"), in the server's
                                    format (the deep page read while the database is empty)
    growing.py suspects ROWS STAGE --cache SECONDS
        the STAGE's routes under 80 % of their reference so far, one per line (none with the cache
        off): growing.sh measures them in more paired rounds before the report.
    growing.py report ROWS STAGES EMPTY --cache SECONDS [--rounds N --duration SECONDS] --out FILE
        the table: every row with its goal and its share of the stage's reference (the same data
        copied, analysed and served by a fresh server: the seeded-and-analysed figure), measured
        alongside it round by round (stages "reference STAGE" in ROWS).

Python 3 standard library plus `cryptography` (as register.py and presign.py).
"""

import argparse
import base64
import http.client
import json
import math
import multiprocessing
import os
import random
import sys
import threading
import time
import uuid
from multiprocessing.pool import ThreadPool
from urllib.parse import urlsplit


def log(message):
    print(f"[growing.py] {message}", file=sys.stderr, flush=True)


# --- vocabulary (shared with growing.sql through `vocabulary`) -----------------------------------

# Tag rank r (1 = most used; drawn with density ∝ 1/r over 1…tag-count): HEADS[r - 1] for the
# head, HEADS[r % len(HEADS)] + "_" + r beyond it. Lower-case ASCII or Hangul, at most 8
# characters, so a name is at most 15 characters and is its own key (lower() folds it as the
# server does).
HEADS = [
    "일상", "하늘", "daily", "감성", "고양이", "sky", "커피", "여행", "coffee", "바다", "맛집", "travel", "음악", "퇴근", "sea",
    "새벽", "사랑", "food", "위로", "산책", "music", "강아지", "노을", "love", "카페", "주말", "cat", "공부", "운동", "dog",
    "책", "영화", "sunset", "비", "눈", "cafe", "봄", "여름", "weekend", "가을", "겨울", "study", "꽃", "달", "workout", "별",
    "친구", "books", "가족", "연애", "movie", "이별", "고민", "rain", "회사", "학교", "snow", "시험", "취업", "spring", "요리",
    "드라마", "summer", "게임", "사진", "autumn", "그림", "글귀", "winter", "독서", "혼밥", "flowers", "혼술", "야경", "moon",
    "제주", "서울", "stars", "부산", "한강", "friends", "출근", "월요일", "family", "불금", "잠", "photo", "행복", "우울", "art",
    "힐링", "추억", "quotes", "기록", "오늘", "seoul", "하루", "마음", "busan", "빵", "라면", "jeju", "치킨", "떡볶이", "night",
    "편의점", "지하철", "mood", "버스", "등산", "healing", "캠핑", "전시", "memories", "공연", "덕질", "life", "selfcare",
    "mondays", "ootd", "kpop", "film", "poetry", "city", "nature",
]

KOREAN = [
    "오늘 하늘이 유난히 예뻤다.", "요즘 커피가 괜히 위로가 됐다.", "퇴근길에 노을이 너무 좋았어요.", "새벽에 빗소리가 자꾸 생각난다.",
    "주말에 산책이 마음을 편하게 해줬다.", "다들 좋은 하루 보내세요!", "내일은 더 나아지겠지.", "잠이 안 오는 밤이다.",
    "고양이가 나를 웃게 했다 ㅎㅎ", "오랜만에 친구가 참 고마웠다.", "점심에 밥 한 끼가 오늘 하루를 살렸다.", "한강에서 바람이 생각보다 따뜻했다.",
    "벌써 월요일이라니 ㅠㅠ", "오늘의 기분은 맑음.", "집에 가고 싶다 ㅋㅋㅋ", "그래도 괜찮아, 진짜로.",
]
ENGLISH = [
    "Today the sky looked unreal.", "After work my coffee was exactly what I needed.", "Can't sleep again.",
    "The rain made everything quieter.", "Have a good day, everyone!", "Tomorrow will be better.", "I miss the ocean.",
    "This song stayed with me all day.", "Small things matter.", "Be kind to yourself today.",
]
REPLIES = ["완전 공감해요!", "저도 그래요 ㅠㅠ", "힘내세요!", "좋은 글 고마워요", "토닥토닥", "Same here!", "Love this!", "So true."]
FONTS = ["default"] * 11 + ["rounded"] * 4 + ["handwriting"] * 3 + ["serif"] * 2
BACKGROUNDS = ["sky-dawn", "sky-noon", "sky-night", "sea-calm", "sea-wave", "sea-deep", "forest-moss", "forest-pine",
               "forest-mist", "paper-cream", "paper-grid", "paper-dots"]
# (latitude, longitude, weight, spread in degrees): where located cards are posted (as `soom seed`).
CITIES = [
    (37.5665, 126.9780, 0.42, 0.10), (35.1796, 129.0756, 0.12, 0.07), (37.4563, 126.7052, 0.07, 0.06),
    (35.8714, 128.6014, 0.06, 0.06), (36.3504, 127.3845, 0.05, 0.05), (35.1595, 126.8526, 0.05, 0.05),
    (37.2636, 127.0286, 0.05, 0.04), (33.4996, 126.5312, 0.05, 0.08), (35.5384, 129.3114, 0.03, 0.04),
    (35.8242, 127.1480, 0.02, 0.03), (37.7519, 128.8761, 0.02, 0.03), (35.6762, 139.6503, 0.02, 0.10),
    (34.6937, 135.5023, 0.01, 0.06), (40.7128, -74.0060, 0.01, 0.08), (48.8566, 2.3522, 0.01, 0.05),
    (51.5072, -0.1276, 0.01, 0.06),
]
# Shares, as `soom seed` makes them: 70 % of cards carry tags (35 % one, 22 % two, 13 % three),
# 5 % of comment cards one; 10 % of cards a location; 3 % are stories.
TAG_THRESHOLDS = (0.30, 0.65, 0.87)
LOCATED, STORIES, COMMENT_TAGGED, LIKES_ON_COMMENTS = 0.10, 0.03, 0.05, 0.06


def tag_name(rank):
    return HEADS[rank - 1] if rank <= len(HEADS) else f"{HEADS[rank % len(HEADS)]}_{rank}"


def zipf(count):
    """1…count with density ∝ 1/rank (as growing.sql: least(n, floor(exp(random() * ln(n + 1)))))."""
    return min(count, int(math.exp(random.random() * math.log(count + 1))))


def city_point():
    r, total = random.random(), 0.0
    for lat, lon, weight, spread in CITIES:
        total += weight
        if r < total:
            break
    jitter_x = (random.random() + random.random() + random.random() - 1.5) / 1.5
    jitter_y = (random.random() + random.random() + random.random() - 1.5) / 1.5
    return (round(max(-89.9, min(89.9, lat + jitter_y * spread)), 6),
            round(max(-179.9, min(179.9, lon + jitter_x * 1.25 * spread)), 6))


def card_body(tag_count, comment=False):
    words = KOREAN if random.random() < 0.72 else ENGLISH
    if comment:
        content = random.choice(REPLIES) + (" " + random.choice(words) if random.random() < 0.35 else "")
    else:
        r = random.random()
        content = " ".join(random.choice(words) for _ in range(1 + (r >= 0.35) + (r >= 0.70) + (r >= 0.90)))
    body = {"content": content, "font": random.choice(FONTS), "background": {"default": random.choice(BACKGROUNDS)}}
    tags = []
    r = random.random()
    for threshold in (TAG_THRESHOLDS[:1] if comment else TAG_THRESHOLDS):
        if (r < COMMENT_TAGGED) if comment else (r >= threshold):
            name = tag_name(zipf(tag_count))
            if name not in tags:
                tags.append(name)
    if tags:
        body["tags"] = tags
    if not comment and random.random() < LOCATED:
        lat, lon = city_point()
        body["location"] = {"latitude": lat, "longitude": lon}
    if not comment and random.random() < STORIES:
        body["story"] = True
    return body


def pg_array(values):
    return "{" + ",".join('"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


def vocabulary(out):
    thresholds, total = [], 0.0
    for _, _, weight, _ in CITIES:
        thresholds.append(round(total, 6))
        total += weight
    lines = {
        "heads": pg_array(HEADS), "korean": pg_array(KOREAN), "english": pg_array(ENGLISH), "replies": pg_array(REPLIES),
        "fonts": pg_array(FONTS), "backgrounds": pg_array(BACKGROUNDS),
        "city_lat": pg_array(c[0] for c in CITIES), "city_lon": pg_array(c[1] for c in CITIES),
        "city_spread": pg_array(c[3] for c in CITIES), "city_from": pg_array(thresholds),
    }
    with open(out, "w") as f:
        for name, value in lines.items():
            f.write("\\set " + name + " '" + value.replace("'", "''") + "'\n")


# --- HTTP -------------------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection; reconnects once on a dropped socket."""

    def __init__(self, base_url):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.connection = None

    def request(self, method, path, body=None, token=None):
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if payload is not None else {"Content-Length": "0"}
        if token:
            headers["Authorization"] = "Bearer " + token
        for attempt in (1, 2):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
                self.connection.request(method, path, body=payload, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                try:
                    parsed = json.loads(data) if data else None
                except ValueError:
                    parsed = None
                return response.status, parsed
            except (http.client.HTTPException, ConnectionError, OSError):
                self.connection = None
                if attempt == 2:
                    raise


_local = threading.local()


def client(url):
    if getattr(_local, "client", None) is None:
        _local.client = Client(url)
    return _local.client


def run_parallel(url, tasks, work, processes, threads):
    """Runs work(client, task) for every task on processes × threads keep-alive connections;
    returns the results in task order."""
    if not tasks:
        return []
    processes = max(1, min(processes, len(tasks)))
    chunks = [tasks[i::processes] for i in range(processes)]
    with multiprocessing.Pool(processes) as pool:
        parts = pool.map(_run_chunk, [(url, chunk, work, threads) for chunk in chunks])
    results = [None] * len(tasks)
    for index, part in enumerate(parts):
        results[index::processes] = part
    return results


def _run_chunk(args):
    url, chunk, work, threads = args
    with ThreadPool(threads) as pool:
        return pool.map(lambda task: work(client(url), task), chunk, chunksize=1)


# --- devices ----------------------------------------------------------------------------------


def _new_key(_):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


def _register(c, pem):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding

    key = serialization.load_pem_private_key(pem.encode(), password=None, unsafe_skip_rsa_key_validation=True)
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    for _ in range(5):
        status, challenge = c.request("POST", "/v1/auth/challenges")
        if status != 201:
            raise RuntimeError(f"POST /v1/auth/challenges -> {status} {challenge}")
        message = f"soom:v1:register:{challenge['nonce']}".encode()
        signature = key.sign(message, padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.DIGEST_LENGTH), hashes.SHA256())
        status, body = c.request("POST", "/v1/accounts", {
            "publicKey": public, "algorithm": "rsa-pss-sha256", "challengeId": challenge["challengeId"],
            "signature": base64.b64encode(signature).decode()})
        if status == 201:
            return f"{body['session']['token']} {body['account']['id']}"
        if status == 409 and ((body or {}).get("error") or {}).get("code") == "nickname_taken":
            continue  # the suggested nickname went to another device meanwhile: try again
        raise RuntimeError(f"POST /v1/accounts -> {status} {body}")
    raise RuntimeError("POST /v1/accounts: nickname taken five times")


def devices(url, keys_path, first, count, out):
    started = time.time()
    pems = []
    if os.path.exists(keys_path):
        with open(keys_path) as f:
            pems = json.load(f)
    if len(pems) < first + count:
        missing = first + count - len(pems)
        log(f"generating {missing} RSA-2048 device keys on {os.cpu_count()} cores (cached in {keys_path})")
        with multiprocessing.Pool(os.cpu_count() or 2, initializer=os.nice, initargs=(10,)) as pool:
            pems += pool.map(_new_key, range(missing), chunksize=16)
        tmp = keys_path + ".tmp"
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            json.dump(pems, f)
        os.replace(tmp, keys_path)
    keyed = time.time()
    lines = run_parallel(url, pems[first:first + count], _register, processes=os.cpu_count() or 2, threads=8)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    log(f"{count} devices registered in {time.time() - keyed:.1f} s (keys {keyed - started:.1f} s)")


# --- follows ----------------------------------------------------------------------------------


def _follow(c, task):
    token, account = task
    status, _ = c.request("PUT", f"/v1/users/{account}/follow", token=token)
    return status


def follow(url, token, ids_path):
    ids = [line.strip() for line in open(ids_path) if line.strip()]
    statuses = run_parallel(url, [(token, i) for i in ids], _follow, processes=2, threads=8)
    failed = sum(1 for s in statuses if s != 200)
    log(f"followed {len(ids) - failed} of {len(ids)} accounts")
    if failed:
        sys.exit(1)


# --- one stage through the API -------------------------------------------------------------------


def _act(c, task):
    kind, token, target, body = task
    if kind == "post":
        status, response = c.request("POST", "/v1/cards", body, token=token)
    elif kind == "comment":
        status, response = c.request("POST", f"/v1/cards/{target}/comments", body, token=token)
    elif kind == "like":
        status, response = c.request("PUT", f"/v1/cards/{target}/like", token=token)
    else:
        status, response = c.request("PUT", f"/v1/users/{target}/follow", token=token)
    created = response.get("id") if kind in ("post", "comment") and status == 201 and response else None
    return status, created


def read_accounts(path):
    return [tuple(line.split()) for line in open(path) if line.strip()]


def grow(args):
    started = time.time()
    posters = read_accounts(args.posters)
    burst_accounts = read_accounts(args.burst_accounts)
    author = read_accounts(args.author)[0]
    everyone = posters + burst_accounts + [author]
    main = args.cards - args.burst
    failures = {}

    def run(tasks):
        results = run_parallel(args.url, tasks, _act, args.processes, args.threads)
        for (kind, *_), (status, _) in zip(tasks, results):
            if not 200 <= status < 300:
                failures[(kind, status)] = failures.get((kind, status), 0) + 1
        return [created for _, created in results]

    # 1. Top-level cards, by every registered account alike (the author a little more), newest last.
    tasks = []
    for _ in range(main):
        token = author[0] if random.random() < args.author_share else random.choice(everyone)[0]
        tasks.append(("post", token, None, card_body(args.tag_count)))
    cards = [i for i in run(tasks) if i]
    # 2. Comment cards on popular cards of the stage (power law over ranks scattered over the
    #    stage's cards, as `soom seed`), then likes (6 % on comment cards) and follows, mixed.
    def popular():
        n = len(cards)
        return cards[(int(n * random.random() ** 3) * 2654435761) % n]

    comments = []
    if cards and args.comments:
        tasks = [("comment", random.choice(everyone)[0], popular(), card_body(args.tag_count, comment=True)) for _ in range(args.comments)]
        comments = [i for i in run(tasks) if i]
    tasks = []
    if cards:
        for _ in range(args.likes):
            target = random.choice(comments) if comments and random.random() < LIKES_ON_COMMENTS else popular()
            tasks.append(("like", random.choice(everyone)[0], target, None))
    followable = [a for a in everyone]
    for _ in range(args.follows):
        follower = random.choice(posters + burst_accounts)
        followee = followable[min(len(followable), zipf(len(followable))) - 1]
        if followee[1] != follower[1]:
            tasks.append(("follow", follower[0], followee[1], None))
    random.shuffle(tasks)
    run(tasks)
    likes, follows = sum(1 for t in tasks if t[0] == "like"), sum(1 for t in tasks if t[0] == "follow")
    # 3. The burst: the stage's last cards, by accounts the reader does not follow.
    tasks = [("post", random.choice(burst_accounts)[0], None, card_body(args.tag_count)) for _ in range(args.burst)]
    burst = [i for i in run(tasks) if i]
    errors = sum(failures.values())
    detail = ", ".join(f"{kind} {status}: {n}" for (kind, status), n in sorted(failures.items())) or "none"
    log(f"posted {len(cards)} cards, {len(comments)} comment cards, {likes} likes, {follows} follows, a burst of {len(burst)} "
        f"in {time.time() - started:.1f} s; failures: {detail}")
    print(f"GROW cards={len(cards) + len(burst)} comments={len(comments)} likes={likes} follows={follows} errors={errors}")


# --- reads ------------------------------------------------------------------------------------


def walk(url, token, depth):
    c = Client(url)
    cursor, seen = None, 0
    while seen < depth:
        limit = min(50, depth - seen)
        status, page = c.request("GET", f"/v1/feeds/following?limit={limit}" + (f"&cursor={cursor}" if cursor else ""), token=token)
        if status != 200:
            raise RuntimeError(f"GET /v1/feeds/following -> {status} {page}")
        seen += len(page["items"])
        if not page["nextCursor"]:
            break
        cursor = page["nextCursor"]
    print(seen, cursor or "")


def cursor(scope):
    text = f"v1|{scope}|{int(time.time() * 1_000_000)}|ffffffff-ffff-ffff-ffff-ffffffffffff"
    print(base64.urlsafe_b64encode(text.encode()).decode().rstrip("="))


# --- the report ---------------------------------------------------------------------------------

ROUTES = ["healthz", "latest", "popular", "following", "following-deep", "nearby", "user", "tag", "detail", "ranked"]


def median_round(rounds):
    """The round whose pages/s is the median of a row's rounds (the lower middle one of an even
    count), with the errors of every round and the rounds' pages/s."""
    ordered = sorted(rounds, key=lambda r: r["rps"])
    row = dict(ordered[(len(ordered) - 1) // 2])
    row["non2xx"] = sum(r["non2xx"] for r in rounds)
    row["socket"] = sum(r["socket"] for r in rounds)
    row["other"] = "; ".join(f"round {r['round']}: {r['other']}" for r in rounds if r["other"])
    row["spread"] = (ordered[0]["rps"], ordered[-1]["rps"])
    return row


def paired_share(measured, reference):
    """The median of the rounds' shares (pages/s of the growing server over the reference's in the
    same round: two runs seconds apart, so the machine's drift over minutes moves both), the lower
    middle one of an even count; None without a reference round."""
    theirs = {r["round"]: r["rps"] for r in reference}
    shares = sorted(r["rps"] / theirs[r["round"]] for r in measured if theirs.get(r["round"], 0) > 0)
    return shares[(len(shares) - 1) // 2] if shares else None


REFERENCE = "reference "


def load_rounds(rows_path):
    """Every measured round from growing.sh's rows file: {(stage, route): [round, ...]} and the
    routes' labels."""
    rounds = {}
    labels = {}
    for line in open(rows_path):
        fields = line.rstrip("\n").split("\t")
        stage, route, label, rps, p50, p99, non2xx, socket, cpu, other = fields[:10]
        rounds.setdefault((stage, route), []).append(
            dict(rps=float(rps or 0), p50=float(p50 or 0), p99=float(p99 or 0), non2xx=int(non2xx or 0),
                 socket=int(socket or 0), cpu=cpu or "?", other=other, round=int(fields[10]) if len(fields) > 10 else 1))
        labels[route] = label
    return rounds, labels


SHARE_GOAL = 0.8


def share_judged(route, cache_on):
    """Whether a row's share of the reference has a goal: not /healthz (it reads no data: the
    machine's noise), and not with the cache off (its goal is the p99 alone)."""
    return route != "healthz" and cache_on


def suspects(rows_path, stage, cache):
    """The stage's routes whose share of the reference is under SHARE_GOAL so far, one per line
    (none with the cache off, where the share has no goal; never /healthz): growing.sh measures
    these in SOOM_BENCH_CONFIRM_ROUNDS more paired rounds before the report judges them."""
    rounds, _ = load_rounds(rows_path)
    for route in ROUTES:
        if not share_judged(route, float(cache) > 0) or (stage, route) not in rounds:
            continue
        share = paired_share(rounds[(stage, route)], rounds.get((REFERENCE + stage, route), []))
        if share is not None and share < SHARE_GOAL:
            print(route)


def report(rows_path, stages_path, empty_path, cache, rounds_count, duration, out):
    rounds, labels = load_rounds(rows_path)
    rows = {key: median_round(measured) for key, measured in rounds.items()}
    stages = [line.rstrip("\n").split("\t") for line in open(stages_path)]
    order = [s[0] for s in stages]
    cache_on = float(cache) > 0
    results = {"PASS": 0, "FAIL": 0}
    failed = []

    def verdict(ok, what):
        results["PASS" if ok else "FAIL"] += 1
        if not ok:
            failed.append(what)
        return "PASS" if ok else "**FAIL**"

    table = ["| stage | route | pages/s | p50 ms | p99 ms | rounds' pages/s | non-2xx | goal | reference pages/s (p99 ms) "
             "| vs reference (≥ 80 %) | CPU soom / pg / other |",
             "|---|---|---:|---:|---:|---:|---:|---|---:|---|---|"]
    busy = []
    for stage in order:
        for route in ROUTES:
            row = rows.get((stage, route))
            if row is None:
                continue
            where = f"{stage} {labels[route]}"
            goals = []
            if row["non2xx"] or row["socket"]:
                goals.append(verdict(False, f"{where}: {row['non2xx']} non-2xx, {row['socket']} socket errors") + " (errors)")
            if route in ("latest", "tag", "detail"):
                if cache_on:
                    goals.append("≥ 4,000/s, p99 ≤ 25 ms: " + verdict(row["rps"] >= 4000 and row["p99"] <= 25, f"{where}: ≥ 4,000/s, p99 ≤ 25 ms"))
                else:
                    goals.append("p99 ≤ 25 ms (cache off): " + verdict(row["p99"] <= 25, f"{where}: p99 ≤ 25 ms with the cache off"))
            elif not cache_on:
                pass  # With the cache off the goal is the database path's p99 on the rows above.
            elif route in ("following", "following-deep"):
                goals.append("≥ 2,000/s: " + verdict(row["rps"] >= 2000, f"{where}: ≥ 2,000/s"))
            elif route == "ranked":
                healthz = rows.get((stage, "healthz"), {}).get("rps", 0)
                share = row["rps"] / healthz if healthz else 0
                goals.append(f"{share:.0%} of /healthz, ≥ 50 %: " + verdict(share >= 0.5, f"{where}: ≥ 50 % of /healthz"))
            reference = rows.get((REFERENCE + stage, route))
            share = paired_share(rounds[(stage, route)], rounds.get((REFERENCE + stage, route), []))
            if reference and (reference["non2xx"] or reference["socket"]):
                goals.append(verdict(False, f"{where}: the reference had {reference['non2xx']} non-2xx, {reference['socket']} socket errors")
                             + " (reference errors)")
            if share is None:
                versus = "—"
            elif not share_judged(route, cache_on):
                versus = f"{share:.0%} (no goal: " + ("the machine's noise)" if route == "healthz" else "the cache is off)")
            else:
                more = len(rounds[(stage, route)])
                confirmed = f" ({more} rounds)" if more > rounds_count else ""
                versus = f"{share:.0%}{confirmed} " + verdict(share >= SHARE_GOAL, f"{where}: {share:.0%} of the reference{confirmed}")
            theirs = f"{reference['rps']:,.0f} ({reference['p99']:.2f})" if reference else "—"
            cpu = row["cpu"]
            if row["other"]:
                cpu += " (busy)"
                busy.append(f"{where}: other work {row['other']}")
            low, high = row["spread"]
            table.append(f"| {stage} | {labels[route]} | {row['rps']:,.0f} | {row['p50']:.2f} | {row['p99']:.2f} | "
                         f"{low:,.0f}–{high:,.0f} | {row['non2xx'] + row['socket']} | {'; '.join(goals) or '—'} | {theirs} | {versus} | {cpu} |")
    facts = ["| stage | cards | comment cards | accounts | likes | follows | tags in use | reader's feed | grown in | growth errors | "
             "times analysed, autovacuum+ANALYZE (before / after the reads) | counters off | peak RSS | reference |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---|"]
    for (stage, cards, comments, accounts, likes, follows, tags, feed, grown, errors, analyzed, drift, rss, reference) in stages:
        if drift not in ("0", "—"):
            failed.append(f"{stage}: {drift} counters differ from a recount")
        if errors not in ("0", "—"):
            failed.append(f"{stage}: {errors} failed requests while growing")
        feed_count, _, deep = feed.partition(" ")
        facts.append(f"| {stage} | {int(cards):,} | {int(comments):,} | {int(accounts):,} | {int(likes):,} | {int(follows):,} | "
                     f"{int(tags):,} | {int(feed_count):,} {deep} | {grown} | {errors} | {analyzed} | {drift} | {rss} MiB | {reference} |")
    empty = [line.rstrip("\n").split("\t") for line in open(empty_path)] if os.path.exists(empty_path) else []
    reads = ", ".join(f"{label} {int(requests):,} ({int(non2xx):,} non-2xx)" for label, requests, non2xx in empty)
    text = "\n".join(
        [f"Each row: the median of {rounds_count} rounds of {duration} s (by pages/s; its p50, p99 and CPU are that round's), "
         "the rounds taken over every route in turn; errors are every round's. Its reference: the same requests on the stage's "
         "data copied, ANALYZEd and served by a freshly started server, run right after it in every round; the share is "
         "the median of the rounds' shares. A row under 80 % after those rounds was measured again in more paired rounds "
         "(the count beside its share), and its figures and share are the median of all its rounds.", ""]
        + table + [""] + facts + ["", f"Reads while the database was empty (same routes, 32 connections): {reads}.", "",
                                f"Goals: {results['PASS']} PASS, {results['FAIL']} FAIL (SOOM_FEED_CACHE={cache})."]
        + [f"- FAIL: {f}" for f in failed]
        + ([f"Rows measured while other work used more than 0.3 cores (their figures are low): {len(busy)}"] + [f"- {b}" for b in busy]
           if busy else [])) + "\n"
    with open(out, "w") as f:
        f.write(text)
    sys.stdout.write(text)


# --- main ---------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("vocabulary").add_argument("out")
    p = commands.add_parser("devices")
    for name in ("url", "keys", "first", "count", "out"):
        p.add_argument(name)
    p = commands.add_parser("follow")
    for name in ("url", "token", "ids"):
        p.add_argument(name)
    p = commands.add_parser("grow")
    p.add_argument("url")
    p.add_argument("--posters", required=True)
    p.add_argument("--burst-accounts", required=True)
    p.add_argument("--author", required=True)
    for name in ("cards", "burst", "comments", "likes", "follows"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--author-share", type=float, default=0.005)
    p.add_argument("--tag-count", type=int, default=100_000)
    p.add_argument("--processes", type=int, default=4)
    p.add_argument("--threads", type=int, default=4)
    p = commands.add_parser("walk")
    for name in ("url", "token", "depth"):
        p.add_argument(name)
    commands.add_parser("random-ids").add_argument("count", type=int)
    commands.add_parser("cursor").add_argument("scope")
    p = commands.add_parser("suspects")
    for name in ("rows", "stage"):
        p.add_argument(name)
    p.add_argument("--cache", required=True)
    p = commands.add_parser("report")
    for name in ("rows", "stages", "empty"):
        p.add_argument(name)
    p.add_argument("--cache", required=True)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--duration", default="?")
    p.add_argument("--out", required=True)
    args = parser.parse_args()

    if args.command == "vocabulary":
        vocabulary(args.out)
    elif args.command == "devices":
        devices(args.url, args.keys, int(args.first), int(args.count), args.out)
    elif args.command == "follow":
        follow(args.url, args.token, args.ids)
    elif args.command == "grow":
        grow(args)
    elif args.command == "walk":
        walk(args.url, args.token, int(args.depth))
    elif args.command == "random-ids":
        print("\n".join(str(uuid.uuid4()) for _ in range(args.count)))
    elif args.command == "cursor":
        cursor(args.scope)
    elif args.command == "suspects":
        suspects(args.rows, args.stage, args.cache)
    else:
        report(args.rows, args.stages, args.empty, args.cache, args.rounds, args.duration, args.out)


if __name__ == "__main__":
    main()
