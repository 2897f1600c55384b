#!/usr/bin/env bash
# Files benchmark (issue 14): a release `stoa` on SQLite with local file storage; one 2400 × 1600
# photo-like PNG uploaded; the first generation time of each size (webp, jpeg and avif), then wrk on the
# cached 800-px webp (2 threads, 32 connections).
#
#   bench/files.sh               # DURATION=20s by default
#   DURATION=5s bench/files.sh
#
# Results go to bench/results/ and are summarised on stdout; record them in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-20s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
PORT=${PORT:-18093}
# shellcheck source=bench/wrk-common.sh
. bench/wrk-common.sh

base="http://127.0.0.1:$PORT"
dir=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
KEY="bench-$(date +%s)-$$-0123456789abcdef0123456789"

# A photo-like image: gradients plus noise (so it compresses like a photograph, not like a flat fill).
python3 - "$dir/photo.png" <<'PY'
import random, struct, sys, zlib
w, h = 2400, 1600
random.seed(7)
rows = bytearray()
for y in range(h):
    rows.append(0)
    for x in range(w):
        n = random.randint(-18, 18)
        rows += bytes((max(0, min(255, (x * 255) // w + n)), max(0, min(255, (y * 255) // h + n)), max(0, min(255, 128 + n))))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY

DATABASE_URL="sqlite://$dir/stoa.db" STOA_ADDR="127.0.0.1:$PORT" STOA_LOG=warn STOA_SECRET_KEY="$KEY" STOA_DATA_DIR="$dir" "$BIN" serve >"$OUT/server-files.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -fs "$base/ready" >/dev/null 2>&1 && break; sleep 0.1; done

stamp=$(date -u +%Y%m%dT%H%M%SZ)
file="$OUT/files-$stamp.txt"
url=$(curl -fs -X POST "$base/api/file-storage/files" -H "x-rbac-secret-key: $KEY" \
  -F 'data={"alt":"bench"}' -F "file=@$dir/photo.png;type=image/png" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["file"])')
{
  echo "# files — $(date -u) — original $(stat -c %s "$dir/photo.png") bytes, 2400 × 1600 PNG — $url"
  echo "## first generation (s) and size (bytes) per width"
  for fmt in webp jpeg avif; do
    for w in 256 640 800 1280 1920; do
      first=$(curl -fs -o "$dir/out" -w '%{time_total}' "$base$url?w=$w&format=$fmt")
      again=$(curl -fs -o /dev/null -w '%{time_total}' "$base$url?w=$w&format=$fmt")
      echo "$fmt w=$w: first ${first}s, cached ${again}s, $(stat -c %s "$dir/out") bytes"
    done
  done
  echo "## GET $url?w=800&format=webp (cached)"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$base$url?w=800&format=webp"
  echo "## GET $url (the original, $(stat -c %s "$dir/photo.png") bytes)"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$base$url"
  echo "## server RSS after the run: $(ps -o rss= -p "$pid" | awk '{printf "%.1f MiB", $1/1024}')"
} | tee "$file" | grep -E '^#|first|Requests/sec|Transfer/sec|  (50|99)%|Non-2xx|Socket errors'
