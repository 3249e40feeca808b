#!/usr/bin/env python3
"""A stand-in Web Push service for the push benchmark: HTTPS (a CA and a certificate for
localhost made at start, the CA written to CA_FILE for SOOM_PUSH_CA_FILE), HTTP/1.1 with
keep-alive, every POST /push/<id> answered 201 and counted. One message in SAMPLE is checked
the way a browser and push service would: its VAPID token verified with the key it names (ES256,
`aud` this origin) and its payload decrypted with the subscription's private key (RFC 8291);
a failed check is counted. `GET /stats` answers the counts as JSON.

    push_standin.py PORT CA_FILE BROWSER_KEY_FILE [--sample 100]

BROWSER_KEY_FILE receives the browser's keys the subscriptions use: the p256dh and auth
(base64url) on its first two lines (one browser key for every subscription: the server cannot tell).
"""
import argparse
import base64
import datetime
import json
import os
import ssl
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hmac import HMAC
from cryptography.x509.oid import NameOID
import ipaddress


def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hmac(key, data):
    h = HMAC(key, hashes.SHA256())
    h.update(data)
    return h.finalize()


def certificates():
    ca_key = ec.generate_private_key(ec.SECP256R1())
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Soom benchmark push CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = lambda c: c.public_bytes(serialization.Encoding.PEM)
    key_pem = leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return pem(ca), pem(leaf), key_pem


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.received = 0
        self.checked = 0
        self.bad = 0
        self.first = None
        self.last = None

    def stats(self):
        with self.lock:
            return {"received": self.received, "checked": self.checked, "bad": self.bad, "first": self.first, "last": self.last}


def check(headers, body, origin, browser_private, browser_public, auth):
    """True when the VAPID token verifies for this origin and the payload decrypts to JSON."""
    scheme, _, rest = headers.get("Authorization", "").partition(" ")
    fields = dict(part.strip().split("=", 1) for part in rest.split(",") if "=" in part)
    token, key = fields.get("t", ""), fields.get("k", "")
    head, payload, signature = token.split(".")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    raw = unb64(signature)
    public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                  f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
    claims = json.loads(unb64(payload))
    if scheme != "vapid" or claims.get("aud") != origin or claims.get("exp", 0) > time.time() + 86400 or not claims.get("sub"):
        return False
    salt, id_length = body[:16], body[20]
    sender = body[21:21 + id_length]
    secret = browser_private.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
    ikm = hmac(hmac(auth, secret), b"WebPush: info\x00" + browser_public + sender + b"\x01")
    prk = hmac(salt, ikm)
    cek = hmac(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
    nonce = hmac(prk, b"Content-Encoding: nonce\x00\x01")[:12]
    plain = AESGCM(cek).decrypt(nonce, body[21 + id_length:], None).rstrip(b"\x00")
    return plain.endswith(b"\x02") and "id" in json.loads(plain[:-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("ca_file")
    parser.add_argument("browser_file")
    parser.add_argument("--sample", type=int, default=100)
    options = parser.parse_args()
    ca, leaf, key = certificates()
    with open(options.ca_file, "wb") as out:
        out.write(ca)
    browser_private = ec.generate_private_key(ec.SECP256R1())
    browser_public = browser_private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    auth = os.urandom(16)
    with open(options.browser_file, "w") as out:
        out.write(f"{b64(browser_public)}\n{b64(auth)}\n")
    origin = f"https://localhost:{options.port}"
    counts = Counts()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *arguments):
            pass

        def do_GET(self):
            body = json.dumps(counts.stats()).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with counts.lock:
                counts.received += 1
                number = counts.received
                now = time.time()
                counts.first = counts.first or now
                counts.last = now
            if number % options.sample == 0:
                try:
                    good = check(self.headers, body, origin, browser_private, browser_public, auth)
                except (InvalidSignature, ValueError, KeyError, IndexError):
                    good = False
                with counts.lock:
                    counts.checked += 1
                    counts.bad += 0 if good else 1
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.NamedTemporaryFile("wb", delete=False) as cert, tempfile.NamedTemporaryFile("wb", delete=False) as private:
        cert.write(leaf + ca)
        private.write(key)
    context.load_cert_chain(cert.name, private.name)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"push stand-in on {origin}", file=sys.stderr, flush=True)
    server.serve_forever()


main()
