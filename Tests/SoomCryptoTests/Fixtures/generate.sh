#!/usr/bin/env bash
# Regenerates the SoomCrypto test fixtures in this directory.
#
# Requires: the `openssl` CLI (3.x) and `python3` with the `cryptography` package.
# Keys are random, so every run produces new files; the tests only rely on the
# relationships between them (which key signed what, with which padding), not on
# specific bytes. Run it from anywhere: outputs go next to this script.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

# Fixed message every signature covers (no trailing newline). The tests read it from message.txt.
MESSAGE='soom:v1:login:3q2+7wABAgMEBQYHCAkKCw'
printf '%s' "$MESSAGE" > message.txt

b64() { openssl base64 -A -in "$1"; echo; }

# --- Keys -------------------------------------------------------------------
# RSA 2048 and 4096 key pairs: PKCS#8 private key, SPKI and PKCS#1 public keys.
for bits in 2048 4096; do
    openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:$bits -out rsa${bits}_private.pem
    openssl pkey -in rsa${bits}_private.pem -pubout -out rsa${bits}_spki.pem
    openssl rsa -in rsa${bits}_private.pem -RSAPublicKey_out -out rsa${bits}_pkcs1.pem 2>/dev/null
    # Expected fingerprint: SHA-256 of the SubjectPublicKeyInfo DER, computed independently of SoomCrypto.
    openssl pkey -pubin -in rsa${bits}_spki.pem -outform DER | sha256sum | cut -d' ' -f1 > rsa${bits}_fingerprint.hex
done
# The 2048-bit private key also in the traditional PKCS#1 form ("BEGIN RSA PRIVATE KEY").
openssl rsa -in rsa2048_private.pem -traditional -out rsa2048_private_pkcs1.pem 2>/dev/null

# A second, unrelated 2048-bit key ("wrong key" cases).
openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out tmp_other.pem
openssl pkey -in tmp_other.pem -pubout -out rsa2048_other_spki.pem

# Keys that must be refused.
openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out tmp_1024.pem
openssl pkey -in tmp_1024.pem -pubout -out rsa1024_spki.pem
openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:4104 -out tmp_4104.pem
openssl pkey -in tmp_4104.pem -pubout -out rsa4104_spki.pem
openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -pkeyopt rsa_keygen_pubexp:3 -out tmp_e3.pem
openssl pkey -in tmp_e3.pem -pubout -out rsa2048_e3_spki.pem
openssl genpkey -quiet -algorithm RSA-PSS -pkeyopt rsa_keygen_bits:2048 -out tmp_pss.pem
openssl pkey -in tmp_pss.pem -pubout -out rsapss2048_spki.pem
openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out tmp_ec.pem
openssl pkey -in tmp_ec.pem -pubout -out ec_p256_spki.pem
openssl pkey -in tmp_ec.pem -out ec_p256_private.pem   # PKCS#8, for DevicePrivateKey's notRSA case
openssl genpkey -quiet -algorithm ED25519 -out tmp_ed.pem
openssl pkey -in tmp_ed.pem -pubout -out ed25519_spki.pem
rm -f tmp_*.pem

# --- Signatures by the openssl CLI -------------------------------------------
sign_cli() { # output key sigopts...
    local out=$1 key=$2; shift 2
    local opts=()
    for o in "$@"; do opts+=(-sigopt "$o"); done
    openssl dgst -sha256 -sign "$key" "${opts[@]}" -out tmp.sig message.txt
    b64 tmp.sig > "$out"
    rm -f tmp.sig
}
sign_cli sig_openssl_pss_digest.b64 rsa2048_private.pem rsa_padding_mode:pss rsa_pss_saltlen:digest
sign_cli sig_openssl_pss_max.b64    rsa2048_private.pem rsa_padding_mode:pss rsa_pss_saltlen:max
sign_cli sig_openssl_pss_zero.b64   rsa2048_private.pem rsa_padding_mode:pss rsa_pss_saltlen:0
sign_cli sig_openssl_pkcs1.b64      rsa2048_private.pem rsa_padding_mode:pkcs1
sign_cli sig_openssl_pss_mgf1sha1.b64 rsa2048_private.pem rsa_padding_mode:pss rsa_pss_saltlen:digest rsa_mgf1_md:sha1
sign_cli sig_openssl_4096_pss.b64   rsa4096_private.pem rsa_padding_mode:pss rsa_pss_saltlen:digest
sign_cli sig_openssl_4096_pkcs1.b64 rsa4096_private.pem rsa_padding_mode:pkcs1

# --- Signatures by Python `cryptography` --------------------------------------
python3 - <<'PY'
import base64
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

with open("rsa2048_private.pem", "rb") as f:
    key = serialization.load_pem_private_key(f.read(), password=None)
with open("message.txt", "rb") as f:
    message = f.read()

def write(name, pad):
    sig = key.sign(message, pad, hashes.SHA256())
    with open(name, "w") as out:
        out.write(base64.b64encode(sig).decode() + "\n")

pss = lambda salt: padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=salt)
write("sig_python_pss_digest.b64", pss(padding.PSS.DIGEST_LENGTH))
write("sig_python_pss_max.b64", pss(padding.PSS.MAX_LENGTH))
write("sig_python_pss_zero.b64", pss(0))
write("sig_python_pkcs1.b64", padding.PKCS1v15())
write("sig_python_pss_mgf1sha1.b64", padding.PSS(mgf=padding.MGF1(hashes.SHA1()), salt_length=32))
PY

# Sanity check: every valid signature verifies with the openssl CLI (PSS with auto salt length).
verify_cli() { # sigfile pubkey sigopts...
    local sig=$1 pub=$2; shift 2
    local opts=()
    for o in "$@"; do opts+=(-sigopt "$o"); done
    openssl base64 -d -A -in "$sig" -out tmp.sig
    openssl dgst -sha256 -verify "$pub" "${opts[@]}" -signature tmp.sig message.txt > /dev/null
    rm -f tmp.sig
}
for s in sig_openssl_pss_digest sig_openssl_pss_max sig_openssl_pss_zero sig_python_pss_digest sig_python_pss_max sig_python_pss_zero; do
    verify_cli $s.b64 rsa2048_spki.pem rsa_padding_mode:pss rsa_pss_saltlen:auto
done
verify_cli sig_openssl_pss_mgf1sha1.b64 rsa2048_spki.pem rsa_padding_mode:pss rsa_pss_saltlen:auto rsa_mgf1_md:sha1
verify_cli sig_python_pss_mgf1sha1.b64 rsa2048_spki.pem rsa_padding_mode:pss rsa_pss_saltlen:auto rsa_mgf1_md:sha1
verify_cli sig_openssl_pkcs1.b64 rsa2048_spki.pem
verify_cli sig_python_pkcs1.b64 rsa2048_spki.pem
verify_cli sig_openssl_4096_pss.b64 rsa4096_spki.pem rsa_padding_mode:pss rsa_pss_saltlen:auto
verify_cli sig_openssl_4096_pkcs1.b64 rsa4096_spki.pem
echo "fixtures regenerated in $(pwd)"
