#!/usr/bin/env python3
"""Untimed setup for the login benchmark: register devices, then pre-sign login requests.

The device's RSA signing is the client's cost, not the server's, and a 2-core machine cannot
sign ~3,000 signatures/s and serve them at the same time. So this tool does the signing ahead
of the timed phase:

1. make (or reuse, from --keys) K RSA-2048 device keys, half `rsa-pss-sha256`, half
   `rsa-pkcs1v15-sha256`, and register each with `POST /v1/accounts` (409
   device_already_registered is fine: the key is registered from an earlier run on the same
   database; --no-register skips this step);
2. create N challenges with `POST /v1/auth/challenges` over many keep-alive connections (one
   challenge is a committed INSERT, so one connection gets only a few hundred a second), then
   sign each for purpose `login` with a device key (round-robin) on every core
   (multiprocessing), writing one `POST /v1/sessions` JSON body per line to --out;
3. check that one body of each algorithm really signs in (201), using extra challenges.

Challenges live 5 minutes from creation: run the timed phase right after this.
Prints a summary line `PRESIGN key=value ...` for login.sh to read.

Only loopback HTTP; Python 3 standard library plus `cryptography`.
"""

import argparse
import base64
import http.client
import json
import multiprocessing
import os
import sys
import time
from multiprocessing.pool import ThreadPool
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

ALGORITHMS = ("rsa-pss-sha256", "rsa-pkcs1v15-sha256")


def log(message):
    print(f"[presign] {message}", file=sys.stderr, flush=True)


# --- HTTP -------------------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection to the server; reconnects once on a dropped socket."""

    def __init__(self, base_url):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port or 80
        self.connection = None

    def request(self, method, path, body=None):
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if payload is not None else {"Content-Length": "0"}
        for attempt in (1, 2):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
                self.connection.request(method, path, body=payload, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                return response.status, (json.loads(data) if data else None)
            except (http.client.HTTPException, ConnectionError, OSError):
                self.connection = None
                if attempt == 2:
                    raise

    def challenge(self):
        status, body = self.request("POST", "/v1/auth/challenges")
        if status != 201:
            raise RuntimeError(f"POST /v1/auth/challenges -> {status} {body}")
        return body


# --- keys ---------------------------------------------------------------------------------------


def new_key_pem(_):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def load_devices(private_pems):
    """[(private key, public PEM, algorithm)]: even indexes PSS, odd PKCS#1 v1.5."""
    devices = []
    for index, pem in enumerate(private_pems):
        # The keys are ours and were checked when made; the full RSA check costs ~50 ms a key.
        key = serialization.load_pem_private_key(pem.encode(), password=None, unsafe_skip_rsa_key_validation=True)
        public = key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()
        devices.append((key, public, ALGORITHMS[index % 2]))
    return devices


def sign(key, algorithm, purpose, nonce):
    message = f"soom:v1:{purpose}:{nonce}".encode()
    if algorithm == "rsa-pss-sha256":
        pad = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=padding.PSS.DIGEST_LENGTH)
    else:
        pad = padding.PKCS1v15()
    return base64.b64encode(key.sign(message, pad, hashes.SHA256())).decode()


def proof(device, purpose, challenge):
    key, public, algorithm = device
    return {
        "publicKey": public,
        "algorithm": algorithm,
        "challengeId": challenge["challengeId"],
        "signature": sign(key, algorithm, purpose, challenge["nonce"]),
    }


# --- workers ------------------------------------------------------------------------------------


def fetch_challenges(task):
    """(url, count, threads) -> [(challengeId, nonce)], over `threads` keep-alive connections.

    One challenge costs the server a committed INSERT, so one connection gets only a few hundred
    per second; many connections let PostgreSQL group the commits.
    """
    url, count, threads = task
    shares = [count // threads + (1 if i < count % threads else 0) for i in range(threads)]

    def run(share):
        client = Client(url)
        return [(c["challengeId"], c["nonce"]) for c in (client.challenge() for _ in range(share))]

    with ThreadPool(threads) as pool:
        return [pair for chunk in pool.map(run, shares) for pair in chunk]


_worker = {}


def signer_init(private_pems):
    _worker["devices"] = load_devices(private_pems)


def sign_chunk(chunk):
    """[(device index, challengeId, nonce)] -> JSON lines of POST /v1/sessions bodies."""
    devices = _worker["devices"]
    lines = []
    for index, challenge_id, nonce in chunk:
        body = proof(devices[index], "login", {"challengeId": challenge_id, "nonce": nonce})
        lines.append(json.dumps(body, separators=(",", ":")) + "\n")
    return "".join(lines)


# --- main ---------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8181")
    parser.add_argument("--devices", type=int, default=200, help="K registered devices (default 200)")
    parser.add_argument("--count", type=int, required=True, help="N pre-signed login bodies")
    parser.add_argument("--algorithm", choices=("mixed",) + ALGORITHMS, default="mixed",
                        help="sign only with devices of this algorithm (default: mixed, round-robin over all)")
    parser.add_argument("--keys", required=True, help="device key cache (JSON list of PKCS#8 PEMs); created if missing")
    parser.add_argument("--out", required=True, help="output: one POST /v1/sessions JSON body per line")
    parser.add_argument("--connections", type=int, default=32, help="concurrent connections for challenges (default 32)")
    parser.add_argument("--no-register", action="store_true", help="the devices are already registered on this database")
    args = parser.parse_args()
    cores = os.cpu_count() or 2

    started = time.time()
    # 1. Keys: reuse the cache when it has enough; otherwise make the missing ones on every core.
    pems = []
    if os.path.exists(args.keys):
        with open(args.keys) as f:
            pems = json.load(f)
    if len(pems) < args.devices:
        missing = args.devices - len(pems)
        log(f"generating {missing} RSA-2048 keys")
        with multiprocessing.Pool(cores) as pool:
            pems += pool.map(new_key_pem, range(missing))
        tmp = args.keys + ".tmp"
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            json.dump(pems, f)
        os.replace(tmp, args.keys)
    pems = pems[: args.devices]
    devices = load_devices(pems)
    keys_done = time.time()

    # 2. Registration (idempotent across runs on the same database).
    def register(device):
        client = Client(args.url)
        status, body = client.request("POST", "/v1/accounts", proof(device, "register", client.challenge()))
        if status == 409 and ((body or {}).get("error") or {}).get("code") == "device_already_registered":
            return "existing"
        if status != 201:
            raise RuntimeError(f"POST /v1/accounts -> {status} {body}")
        return "created"

    if not args.no_register:
        with ThreadPool(16) as pool:
            outcomes = pool.map(register, devices)
        log(f"devices: {outcomes.count('created')} registered, {outcomes.count('existing')} already registered")
    registered = time.time()

    # 3. Challenges (many connections, several processes), then signatures (every core).
    if args.algorithm == "mixed":
        chosen = list(range(len(devices)))
    else:
        chosen = [i for i, d in enumerate(devices) if d[2] == args.algorithm]
    processes = min(cores, max(1, args.connections // 8))
    per_process = [args.count // processes + (1 if i < args.count % processes else 0) for i in range(processes)]
    log(f"creating {args.count} challenges over {args.connections} connections")
    first_challenge = time.time()  # conservative: before the first one exists
    with multiprocessing.Pool(processes) as pool:
        parts = pool.map(fetch_challenges, [(args.url, n, max(1, args.connections // processes)) for n in per_process])
    challenges = [pair for part in parts for pair in part]
    fetched = time.time()
    log(f"signing {len(challenges)} challenges ({args.algorithm}) on {cores} cores")
    work = [(chosen[n % len(chosen)], cid, nonce) for n, (cid, nonce) in enumerate(challenges)]
    chunks = [work[i : i + 1000] for i in range(0, len(work), 1000)]
    with multiprocessing.Pool(cores, signer_init, (pems,)) as pool, open(args.out, "w") as out:
        for text in pool.imap(sign_chunk, chunks):
            out.write(text)
    signed = time.time()

    # 4. Sanity check: one fresh body per algorithm used must sign in (201).
    client = Client(args.url)
    for algorithm in ALGORITHMS:
        if args.algorithm not in ("mixed", algorithm):
            continue
        device = next(d for d in devices if d[2] == algorithm)
        status, body = client.request("POST", "/v1/sessions", proof(device, "login", client.challenge()))
        if status != 201:
            raise RuntimeError(f"sanity check: POST /v1/sessions ({algorithm}) -> {status} {body}")
    done = time.time()

    log(f"keys {keys_done - started:.1f}s, registration {registered - keys_done:.1f}s, "
        f"challenges {fetched - registered:.1f}s ({args.count / max(fetched - registered, 1e-9):.0f}/s), "
        f"signing {signed - fetched:.1f}s ({args.count / max(signed - fetched, 1e-9):.0f}/s), total {done - started:.1f}s")
    print(
        f"PRESIGN count={args.count} devices={len(pems)} algorithm={args.algorithm} "
        f"keys_s={keys_done - started:.1f} register_s={registered - keys_done:.1f} "
        f"challenges_s={fetched - registered:.1f} sign_s={signed - fetched:.1f} total_s={done - started:.1f} "
        f"first_challenge={first_challenge:.3f} expires={first_challenge + 300:.3f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
