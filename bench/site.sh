#!/usr/bin/env bash
# Public pages on the demo site against a release `stoa` (issues 5 and 16):
#   1. sequential timings of page HTML and bundles (cached, built afresh) on SQLite and PostgreSQL;
#   2. side by side in one run: the cached `/ru/` from `stoa` and the same bytes as a static file
#      from nginx (Debian package; installed when missing), wrk -t2 -c32, without and with
#      `Accept-Encoding: gzip`, and the CPU time `stoa` spends per cached request;
#   3. the render path (server rendering on every request: the page cache off), p50/p95.
#
#   bench/site.sh              # everything
#   N=100 DURATION=5s bench/site.sh
#
# Needs the web UI built (`make web`): the server script `web/dist/server/render.js` renders pages.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-18093}
NPORT=${NPORT:-18094}
N=${N:-200}
DURATION=${DURATION:-10s}
PG_ADMIN=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
# shellcheck source=bench/wrk-common.sh
. bench/wrk-common.sh
[ -f web/dist/server/render.js ] || { echo "build the web UI first: make web" >&2; exit 1; }
# shellcheck source=bench/nginx-common.sh
. bench/nginx-common.sh
KEY="bench-$(date +%s)-$$-0123456789abcdef0123456789"
DIR=$(mktemp -d)
# nginx's workers run as another user: mktemp's 0700 folder made every nginx answer a 404 (the
# figures before 2026-11-25 compared stoa with nginx answering 153-byte 404s). They may pass
# through it to www/, not list it.
chmod 711 "$DIR"
pid=""
npid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  [ -n "$npid" ] && kill "$npid" 2>/dev/null || true
  rm -rf "$DIR"
}
trap cleanup EXIT
base="http://127.0.0.1:$PORT"

start() { # DATABASE_URL [ENV=VALUE...]
  local db=$1; shift
  export STOA_SECRET_KEY=$KEY STOA_ADDR=127.0.0.1:$PORT STOA_DATA_DIR=$DIR STOA_LOG=warn DATABASE_URL=$db STOA_WEB_DIR=web/dist
  "$BIN" seed --demo >/dev/null
  env "$@" "$BIN" serve &
  pid=$!
  for _ in $(seq 1 300); do curl -fs "$base/ready" >/dev/null 2>&1 && break; sleep 0.1; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# wrk's requests/s and p50/p99 latency, as one table row. A run with any answer other than 2xx
# or 3xx measures nothing: it stops the script.
bench_row() { # NAME URL [HEADER]
  local name=$1 url=$2 hdr=${3:-}
  local out
  if [ -n "$hdr" ]; then out=$(wrk -t2 -c32 -d"$DURATION" --latency -H "$hdr" "$url"); else out=$(wrk -t2 -c32 -d"$DURATION" --latency "$url"); fi
  if grep -q "Non-2xx" <<<"$out"; then
    echo "$name answered errors to $url: $(grep Non-2xx <<<"$out")" >&2
    exit 1
  fi
  local rps p50 p99 reqs
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  reqs=$(awk '/requests in/ {print $1}' <<<"$out")
  echo "$name|$rps|$p50|$p99|$reqs"
}

echo "## 1. Sequential timings, SQLite"
start "sqlite://$DIR/stoa.db"
python3 bench/site_pages.py "$base" "$KEY" "$N"

echo
echo "## 2. Cached /ru/: stoa and nginx side by side (wrk -t2 -c32 -d$DURATION)"
mkdir -p "$DIR/www/ru"
curl -fs "$base/ru/" -o "$DIR/www/ru/index.html"
gzip -9 -k "$DIR/www/ru/index.html"
raw=$(stat -c %s "$DIR/www/ru/index.html")
gz=$(curl -fs -H 'Accept-Encoding: gzip' "$base/ru/" | wc -c)
rendered=$(grep -c 'data-variant="content-block-for-planet-heading"' "$DIR/www/ru/index.html" || true)
echo "page: $raw bytes, $gz bytes gzip (stoa's), server-rendered blocks present: $rendered"
nginx_conf "$DIR" "$NPORT" text/html "gzip_static on;" "location / { try_files \$uri \$uri/index.html =404; }"
nginx -c "$DIR/nginx.conf" -p "$DIR" &
npid=$!
sleep 0.5
# Both serve the same bytes, or the comparison means nothing.
for enc in identity gzip; do
  curl -fs -H "Accept-Encoding: $enc" "http://127.0.0.1:$NPORT/ru/" -o "$DIR/nginx.$enc" || { echo "nginx does not serve /ru/ ($enc)" >&2; exit 1; }
done
cmp -s "$DIR/nginx.identity" "$DIR/www/ru/index.html" || { echo "nginx serves other bytes than the page" >&2; exit 1; }
cmp -s "$DIR/nginx.gzip" "$DIR/www/ru/index.html.gz" || { echo "nginx does not serve the gzipped page" >&2; exit 1; }
echo "| server | Accept-Encoding | req/s | p50 | p99 | stoa CPU per request |"
echo "|---|---|---:|---:|---:|---:|"
for enc in "" "gzip"; do
  hdr=""; [ -n "$enc" ] && hdr="Accept-Encoding: $enc"
  IFS='|' read -r _ nrps np50 np99 _ <<<"$(bench_row nginx "http://127.0.0.1:$NPORT/ru/" "$hdr")"
  t0=$(cpu_ticks "$pid")
  IFS='|' read -r _ srps sp50 sp99 sreqs <<<"$(bench_row stoa "$base/ru/" "$hdr")"
  t1=$(cpu_ticks "$pid")
  cpu=$(awk -v t="$((t1 - t0))" -v n="$sreqs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f µs", t / hz / n * 1e6 }')
  share=$(awk -v a="$srps" -v b="$nrps" 'BEGIN { printf "%.0f %%", a / b * 100 }')
  echo "| nginx (static file) | ${enc:-none} | $nrps | $np50 | $np99 | |"
  echo "| stoa (page cache) | ${enc:-none} | $srps ($share of nginx) | $sp50 | $sp99 | $cpu |"
done
kill "$npid" 2>/dev/null || true; wait "$npid" 2>/dev/null || true; npid=""
stop

echo
echo "## 3. The render path: every request rendered (STOA_PAGE_CACHE_BYTES=0; bundles cached)"
start "sqlite://$DIR/stoa.db" STOA_PAGE_CACHE_BYTES=0
python3 - "$base" "$N" <<'EOF'
import statistics, sys, time, urllib.request
base, n = sys.argv[1], int(sys.argv[2])
print("| page | HTML | p50 ms | p95 ms | max ms |")
print("|---|---:|---:|---:|---:|")
for path in ["/ru/", "/en/", "/ru/blog/articles/how-we-plant", "/en/ecommerce/products/tree", "/ru/blog"]:
    times, size = [], 0
    for i in range(n // 2 + 5):
        t = time.perf_counter()
        with urllib.request.urlopen(base + path) as r:
            body = r.read()
        size = len(body)
        if i >= 5:
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    ok = b'<div id="root"><' in body
    print(f"| `{path}`{'' if ok else ' (NOT rendered)'} | {size / 1024:.0f} KB | {statistics.median(times):.2f} | {times[int(len(times) * 0.95) - 1]:.2f} | {times[-1]:.2f} |")
EOF
stop

echo
echo "## 1'. Sequential timings, PostgreSQL"
psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS stoa_bench_site WITH (FORCE)" -c "CREATE DATABASE stoa_bench_site"
start "${PG_ADMIN%/*}/stoa_bench_site"
python3 bench/site_pages.py "$base" "$KEY" "$N"
stop
psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS stoa_bench_site WITH (FORCE)"
