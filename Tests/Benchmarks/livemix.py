#!/usr/bin/env python3
"""Helpers of livemix.sh.

    livemix.py setup URL WORK SEEDED_ACCOUNTS_FILE ACCOUNTS
        Registers ACCOUNTS devices (fresh RSA-2048 keys, PSS-signed challenges) and writes their
        tokens to WORK/tokens and account ids to WORK/accounts. Each follows 10 of the others and
        10 seeded accounts (ids, one a line, in SEEDED_ACCOUNTS_FILE), favours two of the mix's
        tags, and posts three cards (one in four near Seoul, two tags each) and one comment card:
        the accounts the mix reads as have feeds of their own.
    livemix.py summary RESULTS_TSV
        Prints the table of a run: per build, caches and mix, the median ratio to /healthz over
        the rounds, the median p99 and the goals.
"""

import base64
import json
import random
import statistics
import sys
import urllib.parse
import urllib.request
from multiprocessing.pool import ThreadPool

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

TAGS = ["일상", "바다", "고양이", "커피", "여행", "음악", "퇴근", "새벽", "책", "비", "산책", "영화",
        "daily", "sea", "coffee", "music", "night", "rain", "books", "walk"]
SEOUL = (37.5665, 126.9780)
GOALS = {"few": (0.25, 25.0), "heavy": (0.10, 50.0)}


def call(url, method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, method=method, data=data)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request) as response:
        raw = response.read()
        return json.loads(raw) if raw else None


def register(url):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                        serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    challenge = call(url, "POST", "/v1/auth/challenges")
    message = f"soom:v1:register:{challenge['nonce']}".encode()
    signature = key.sign(message, padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.MAX_LENGTH),
                         hashes.SHA256())
    body = {"publicKey": pem, "algorithm": "rsa-pss-sha256", "challengeId": challenge["challengeId"],
            "signature": base64.b64encode(signature).decode()}
    answer = call(url, "POST", "/v1/accounts", body)
    return answer["session"]["token"], answer["account"]["id"]


def card(rng, index):
    body = {"content": f"라이브 믹스 준비 카드 {index}", "background": {"default": "sea-calm"},
            "tags": rng.sample(TAGS, 2)}
    if rng.random() < 0.25:
        body["location"] = {"latitude": SEOUL[0] + rng.uniform(-0.05, 0.05),
                            "longitude": SEOUL[1] + rng.uniform(-0.05, 0.05)}
    return body


def setup(url, work, seeded_path, count):
    with ThreadPool(8) as pool:
        accounts = pool.map(lambda _: register(url), range(count))
    with open(f"{work}/tokens", "w") as f:
        f.write("\n".join(token for token, _ in accounts) + "\n")
    with open(f"{work}/accounts", "w") as f:
        f.write("\n".join(account for _, account in accounts) + "\n")
    with open(seeded_path) as f:
        seeded = [line.strip() for line in f if line.strip()]
    ids = [account for _, account in accounts]

    def shape(index):
        rng = random.Random(index)
        token, me = accounts[index]
        others = [a for a in ids if a != me]
        for followee in rng.sample(others, min(10, len(others))) + rng.sample(seeded, min(10, len(seeded))):
            call(url, "PUT", f"/v1/users/{followee}/follow", token=token)
        for tag in rng.sample(TAGS, 2):
            call(url, "PUT", f"/v1/tags/{urllib.parse.quote(tag)}/favorite", token=token)
        posted = [call(url, "POST", "/v1/cards", card(rng, n), token)["id"] for n in range(3)]
        call(url, "POST", f"/v1/cards/{rng.choice(posted)}/comments", card(rng, 3), token)

    with ThreadPool(8) as pool:
        pool.map(shape, range(count))


def summary(path):
    rows = {}
    with open(path) as f:
        for line in f:
            build, caches, mix, ratio, rps, p99, non2xx = line.rstrip("\n").split("\t")
            rows.setdefault((build, caches, mix), []).append((float(ratio), float(rps), float(p99), int(non2xx)))
    print("| Build | Caches | Mix | Ratio to /healthz | req/s | p99 (ms) | non-2xx | Goal |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for (build, caches, mix), values in rows.items():
        ratio = statistics.median(v[0] for v in values)
        rps = statistics.median(v[1] for v in values)
        p99 = statistics.median(v[2] for v in values)
        errors = sum(v[3] for v in values)
        goal = GOALS.get(mix)
        verdict = "" if goal is None else (
            "PASS" if ratio >= goal[0] and p99 <= goal[1] and errors == 0 else "FAIL") + \
            (f" (≥ {goal[0]:.2f}, p99 ≤ {goal[1]:.0f} ms)" if goal else "")
        print(f"| {build} | {caches} | {mix} | {ratio:.3f} | {rps:,.0f} | {p99:.1f} | {errors} | {verdict} |")


def main():
    if sys.argv[1] == "setup":
        setup(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif sys.argv[1] == "summary":
        summary(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
