#!/usr/bin/env bash
# Peak memory of one image upload for the Soom server. See Tests/Benchmarks/README.md.
#
#   Tests/Benchmarks/upload-memory.sh
#   SOOM_BENCH_SKIP_BUILD=1 Tests/Benchmarks/upload-memory.sh     # reuse .build-release
#
# Builds the server in release mode (.build-release), makes a JPEG just under the 5 MiB upload
# limit (ImageMagick: fractal plasma plus noise at quality 95, resized until it is about 4.9 MiB)
# that carries real metadata (exiftool: GPS position, Make, Model, date, comment), and starts the
# server on a fresh embedded database in a temporary folder (the database is removed at the end,
# the results are kept). It registers one device, uploads the file once to warm up and then
# SOOM_BENCH_UPLOADS times, each:
#   reset the server's peak resident memory (`echo 5 > /proc/PID/clear_refs` sets VmHWM to the
#   current VmRSS), read VmRSS, POST /v1/images once with curl, read VmHWM and VmRSS;
# and prints the peak growth (VmHWM after − VmRSS before) in MiB and as a multiple of the file's
# size: what one upload holds at once on top of what the server already holds (the body, the
# scrubbed copy, the bytea sent to PostgreSQL, ...).
# It does this twice, restarting the server on the same database: with glibc's malloc as it is,
# which keeps freed 5 MiB blocks in its heaps after the first uploads (RSS settles at 65-80 MiB
# and the growth of one upload then reads anything from 0 to 3 × the file: it mostly reuses what
# is kept), and with MALLOC_MMAP_THRESHOLD_=131072, which returns every large block to the kernel
# when it is freed, so each upload starts from the same RSS and its growth is its real peak.
# The answers are checked after each series (fetching an image between two uploads would change
# what the next one starts from): 201, `width`/`height` as the file's, and the served bytes
# (GET /v1/images/{id}) without the Make string. Exits 1 when a check fails.
# Takes /tmp/soom-bench.lock for the duration (waits while another benchmark holds it).
#
# Needs curl, python3 + cryptography (register.py), ImageMagick and exiftool (installed with
# apt-get when missing: imagemagick, libimage-exiftool-perl).
#
# Settings (environment):
#   SOOM_BENCH_PORT=8186  SOOM_BENCH_UPLOADS=5  SOOM_BENCH_SKIP_BUILD=0
#   SOOM_BENCH_IMAGE_BYTES=5138022   the size to aim the JPEG at (4.9 MiB; the limit is 5,242,880)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PORT=${SOOM_BENCH_PORT:-8186}
UPLOADS=${SOOM_BENCH_UPLOADS:-5}
TARGET=${SOOM_BENCH_IMAGE_BYTES:-5138022}
SKIP_BUILD=${SOOM_BENCH_SKIP_BUILD:-0}
URL="http://127.0.0.1:$PORT"
WORK=$(mktemp -d /tmp/soom-upload-bench.XXXXXX)
chmod 755 "$WORK" # the embedded cluster runs as the postgres user: it must reach DATA
DATA="$WORK/data"
BIN="$ROOT/.build-release/release/soom"
SERVER_PID=""
MAKE="SoomBenchCameraMaker"

BENCH_NAME=upload-memory.sh
. "$HERE/common.sh"
cleanup() {
    stop_server
    release_lock
    rm -rf "$DATA"
}
trap cleanup EXIT

if ! command -v convert >/dev/null || ! command -v exiftool >/dev/null; then
    apt-get update -q && apt-get install -y -q imagemagick libimage-exiftool-perl
fi
build_release
take_lock

# The picture: plasma with noise compresses poorly, like a photo of foliage at full quality. Its
# area is scaled towards TARGET bytes (noise makes the size nearly proportional to the area), then
# exiftool adds a camera's metadata (a few kilobytes).
say "making a JPEG of about $TARGET bytes with metadata"
IMAGE="$WORK/photo.jpg"
width=2000 height=1500
for _ in 1 2 3 4 5 6; do
    convert -seed 7 -size "${width}x${height}" plasma:fractal -attenuate 1.5 +noise Gaussian -quality 95 "$IMAGE"
    size=$(stat -c %s "$IMAGE")
    # Within 1.5 % below the target (room for the metadata): done.
    if [ "$size" -le "$TARGET" ] && [ "$size" -ge $((TARGET * 985 / 1000)) ]; then break; fi
    read -r width height < <(python3 -c "import math,sys; w,h,s,t=map(int,sys.argv[1:]); f=math.sqrt(t*0.993/s); print(round(w*f), round(h*f))" \
        "$width" "$height" "$size" "$TARGET")
done
exiftool -q -overwrite_original -Make="$MAKE" -Model="Soom Bench Model 7" -Software="Soom Bench 1.0" \
    -DateTimeOriginal="2024:05:17 09:41:00" -GPSLatitude=37.5665 -GPSLatitudeRef=N -GPSLongitude=126.9780 \
    -GPSLongitudeRef=E -GPSAltitude=38 -GPSAltitudeRef=0 -Comment="soom upload-memory benchmark" "$IMAGE"
BYTES=$(stat -c %s "$IMAGE")
read -r WIDTH HEIGHT < <(identify -format '%w %h\n' "$IMAGE")
[ "$BYTES" -le 5242880 ] || { say "the JPEG is $BYTES bytes, over the 5 MiB limit"; exit 1; }
grep -qa "$MAKE" "$IMAGE" || { say "exiftool did not write the Make string"; exit 1; }
say "$IMAGE: $BYTES bytes ($(awk -v b="$BYTES" 'BEGIN {printf "%.2f", b / 1048576}') MiB), ${WIDTH}×${HEIGHT}, with GPS, Make, Model"

kib() { awk -v key="$1:" '$1 == key {print $2}' "/proc/$SERVER_PID/status"; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
FAILED=0
UPLOADED=0
# One upload, measured; prints a row. $1: its label. Its answer is checked later, by check_all:
# fetching the served image between two uploads would change what the next one starts from.
upload() {
    echo 5 >"/proc/$SERVER_PID/clear_refs"
    local before peak after status
    before=$(kib VmRSS)
    UPLOADED=$((UPLOADED + 1))
    status=$(curl -s -o "$WORK/answer-$UPLOADED.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
        -H 'Content-Type: image/jpeg' --data-binary @"$IMAGE" "$URL/v1/images")
    peak=$(kib VmHWM)
    after=$(kib VmRSS)
    echo "$status" >"$WORK/status-$UPLOADED"
    printf '%-9s RSS before %5s MiB  peak %5s MiB  after %5s MiB  peak growth %5s MiB = %s × the file  (HTTP %s)\n' "$1" \
        "$(mib "$before")" "$(mib "$peak")" "$(mib "$after")" "$(mib $((peak - before)))" \
        "$(awk -v k=$((peak - before)) -v b="$BYTES" 'BEGIN {printf "%.2f", k * 1024 / b}')" "$status" | tee -a "$WORK/results.txt"
}

# Checks the answers of the uploads since the server started ($1: the first one's number): 201,
# width and height as the file's, and the served bytes of the image without the Make string.
check_all() {
    local line
    line=$(python3 - "$WORK" "$1" "$UPLOADED" "$WIDTH" "$HEIGHT" "$URL" "$MAKE" <<'PY'
import json, sys, urllib.request
work, first, last, width, height, url, make = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
problems, sizes = [], set()
for n in range(first, last + 1):
    status = open(f"{work}/status-{n}").read().strip()
    if status != "201":
        problems.append(f"upload {n}: HTTP {status} {open(f'{work}/answer-{n}.json').read()[:200]}"); continue
    answer = json.load(open(f"{work}/answer-{n}.json"))
    if (answer.get("width"), answer.get("height")) != (width, height):
        problems.append(f"upload {n}: {answer.get('width')}x{answer.get('height')}, not {width}x{height}")
    served = urllib.request.urlopen(url + answer["url"]).read()
    if make.encode() in served: problems.append(f"upload {n}: the served bytes still contain {make}")
    if len(served) != answer["byteCount"]: problems.append(f"upload {n}: served {len(served)} bytes, byteCount {answer['byteCount']}")
    sizes.add((answer["width"], answer["height"], answer["byteCount"]))
if problems: print("FAILED: " + "; ".join(problems))
else: print(f"checked {last - first + 1} answers: 201, width x height x stored bytes {sorted(sizes)}, served bytes without {make!r}")
PY
)
    case $line in FAILED*) FAILED=1 ;; esac
    echo "$line" | tee -a "$WORK/results.txt"
}

# A server on DATA with the environment given ("NAME=value" ..., or none), a device, a warm-up
# upload and the measured ones; then the server stops.
measure() {
    say "starting the server on $URL (database in $DATA)${*:+ with $*}"
    env SOOM_RATE_LIMIT=off "$@" "$BIN" serve --port "$PORT" --data-directory "$DATA" >>"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    wait_ready
    python3 "$HERE/register.py" "$URL" "$WORK/tokens" 1
    TOKEN=$(head -1 "$WORK/tokens")
    local first=$((UPLOADED + 1))
    upload "warm-up"
    for i in $(seq "$UPLOADS"); do upload "upload $i"; done
    check_all "$first"
    stop_server
}

# glibc's malloc as it is: it raises its mmap threshold to the size of a large block once one is
# freed, and keeps later ones in the heap, so after the first uploads their memory stays resident
# and a measured upload mostly reuses it (growth near 0; RSS before/after tell what is kept).
echo "glibc malloc as configured by default:" | tee -a "$WORK/results.txt"
measure
# The threshold pinned at its initial 128 KiB: every block of 128 KiB or more is its own mapping,
# returned to the kernel when freed, so each upload starts from the same RSS and the growth is
# what the upload holds at its peak.
echo "MALLOC_MMAP_THRESHOLD_=131072 (large blocks unmapped when freed):" | tee -a "$WORK/results.txt"
measure MALLOC_MMAP_THRESHOLD_=131072
echo "file: $BYTES bytes ($(awk -v b="$BYTES" 'BEGIN {printf "%.2f", b / 1048576}') MiB), ${WIDTH}×${HEIGHT}; results in $WORK" | tee -a "$WORK/results.txt"
exit "$FAILED"
