#!/usr/bin/env python3
"""Registers COUNT devices with the server at URL and writes their session tokens, one a line.

    register.py URL TOKENS_FILE [COUNT]

Each device is a fresh RSA-2048 key that signs its registration challenge with PSS, exactly as
a phone would. The benchmarks read with the first token and write (posts, likes) with all of
them: writes by one account are serialised on its account row, which many real clients are not.
"""

import base64
import json
import sys
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def call(url, method, path, body=None):
    request = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def register(url):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    challenge = call(url, "POST", "/v1/auth/challenges")
    message = f"soom:v1:register:{challenge['nonce']}".encode()
    signature = key.sign(message, padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.MAX_LENGTH), hashes.SHA256())
    body = {"publicKey": pem, "algorithm": "rsa-pss-sha256", "challengeId": challenge["challengeId"],
            "signature": base64.b64encode(signature).decode()}
    return call(url, "POST", "/v1/accounts", body)["session"]["token"]


def main():
    url, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    tokens = [register(url) for _ in range(count)]
    with open(out, "w") as f:
        f.write("\n".join(tokens) + "\n")


if __name__ == "__main__":
    main()
