#!/usr/bin/env python3
"""Untimed setup for the login benchmark: register devices, then pre-sign login requests.

The device's RSA signing is the client's cost, not the server's, and a 2-core machine cannot
sign ~3,000 signatures/s and serve them at the same time. So this tool does the signing ahead
of the timed phase:

1. make (or reuse, from --keys) K RSA-2048 device keys, half `rsa-pss-sha256`, half
   `rsa-pkcs1v15-sha256`, and register each with `POST /v1/accounts` (409
   device_already_registered is fine: the key is registered from an earlier run on the same
   database);
2. create N challenges with `POST /v1/auth/challenges` and sign each for purpose `login`
   with a device key (round-robin), on every core (multiprocessing, one keep-alive
   connection per worker), writing one `POST /v1/sessions` JSON body per line to --out;
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
        key = serialization.load_pem_private_key(pem.encode(), password=None)
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

_worker = {}


def worker_init(base_url, private_pems):
    _worker["client"] = Client(base_url)
    _worker["devices"] = load_devices(private_pems)


def worker_register(index):
    client, device = _worker["client"], _worker["devices"][index]
    status, body = client.request("POST", "/v1/accounts", proof(device, "register", client.challenge()))
    if status == 409 and ((body or {}).get("error") or {}).get("code") == "device_already_registered":
        return "existing"
    if status != 201:
        raise RuntimeError(f"POST /v1/accounts -> {status} {body}")
    return "created"


def worker_presign(task):
    """Creates `count` challenges and signs each with devices start, start+step, ... (mod K)."""
    start, count, step, path = task
    client, devices = _worker["client"], _worker["devices"]
    first = None
    with open(path, "w") as out:
        for n in range(count):
            challenge = client.challenge()
            if first is None:
                first = time.time()
            device = devices[(start + n * step) % len(devices)]
            out.write(json.dumps(proof(device, "login", challenge), separators=(",", ":")))
            out.write("\n")
    return first


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
    parser.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 2) + 1,
                        help="signing processes (default: cores + 1, so signing overlaps the HTTP round trips)")
    args = parser.parse_args()

    started = time.time()
    # 1. Keys: reuse the cache when it has enough; otherwise make the missing ones on every core.
    pems = []
    if os.path.exists(args.keys):
        with open(args.keys) as f:
            pems = json.load(f)
    if len(pems) < args.devices:
        missing = args.devices - len(pems)
        log(f"generating {missing} RSA-2048 keys")
        with multiprocessing.Pool(os.cpu_count() or 2) as pool:
            pems += pool.map(new_key_pem, range(missing))
        tmp = args.keys + ".tmp"
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            json.dump(pems, f)
        os.replace(tmp, args.keys)
    pems = pems[: args.devices]
    keys_done = time.time()

    # 2. Registration (idempotent across runs on the same database).
    with multiprocessing.Pool(args.workers, worker_init, (args.url, pems)) as pool:
        outcomes = pool.map(worker_register, range(len(pems)))
    registered = time.time()
    log(f"devices: {outcomes.count('created')} registered, {outcomes.count('existing')} already registered")

    # 3. Challenges + signatures, each worker writing its own part file.
    if args.algorithm == "mixed":
        first_device, step = 0, 1
    else:
        first_device, step = ALGORITHMS.index(args.algorithm), 2  # even = PSS, odd = PKCS#1
    per_worker = [args.count // args.workers + (1 if i < args.count % args.workers else 0) for i in range(args.workers)]
    tasks, offset = [], 0
    for i, count in enumerate(per_worker):
        tasks.append((first_device + offset * step, count, step, f"{args.out}.part{i}"))
        offset += count
    log(f"creating and signing {args.count} login challenges ({args.algorithm}) with {args.workers} workers")
    with multiprocessing.Pool(args.workers, worker_init, (args.url, pems)) as pool:
        firsts = pool.map(worker_presign, tasks)
    first_challenge = min(t for t in firsts if t is not None)
    # Interleave the parts so any prefix of the file mixes workers (and devices) evenly.
    parts = [open(task[3]) for task in tasks]
    with open(args.out, "w") as out:
        live = list(parts)
        while live:
            for f in list(live):
                line = f.readline()
                if line:
                    out.write(line)
                else:
                    live.remove(f)
    for f, task in zip(parts, tasks):
        f.close()
        os.remove(task[3])
    signed = time.time()

    # 4. Sanity check: one fresh body per algorithm used must sign in (201).
    client = Client(args.url)
    devices = load_devices(pems[:2])
    for device in devices:
        if args.algorithm not in ("mixed", device[2]):
            continue
        status, body = client.request("POST", "/v1/sessions", proof(device, "login", client.challenge()))
        if status != 201:
            raise RuntimeError(f"sanity check: POST /v1/sessions ({device[2]}) -> {status} {body}")
    done = time.time()

    rate = args.count / max(signed - registered, 1e-9)
    log(f"keys {keys_done - started:.1f}s, registration {registered - keys_done:.1f}s, "
        f"challenges+signing {signed - registered:.1f}s ({rate:.0f}/s), total {done - started:.1f}s")
    print(
        f"PRESIGN count={args.count} devices={len(pems)} algorithm={args.algorithm} "
        f"keys_s={keys_done - started:.1f} register_s={registered - keys_done:.1f} "
        f"sign_s={signed - registered:.1f} total_s={done - started:.1f} "
        f"first_challenge={first_challenge:.3f} expires={first_challenge + 300:.3f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
