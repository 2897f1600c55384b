#!/usr/bin/env bash
# Lighthouse (mobile preset: emulated phone, simulated slow 4G and CPU) on the demo site's home
# page, an article and the product page, in both languages, against a release `stoa` on SQLite,
# in Debian's Chromium. Prints one table row per page; JSON reports go to bench/results/.
#
#   bench/lighthouse.sh                    # release build (made when missing)
#   BIN=target/debug/stoa bench/lighthouse.sh
#
# Needs the web UI built (`make web`).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-18095}
LH_VERSION=13.5.0
BIN=${BIN:-./target/release/stoa}
OUT=bench/results
mkdir -p "$OUT"
[ -x "$BIN" ] || cargo build --release -p stoa-server
[ -f web/dist/server/render.js ] || { echo "build the web UI first: make web" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || make chromium
TOOLS=bench/.tools
if [ ! -x "$TOOLS/node_modules/.bin/lighthouse" ]; then
  mkdir -p "$TOOLS"
  npm install --prefix "$TOOLS" --no-audit --no-fund --silent "lighthouse@$LH_VERSION" >/dev/null
fi
DIR=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
base="http://127.0.0.1:$PORT"
export STOA_ADDR=127.0.0.1:$PORT STOA_DATA_DIR=$DIR STOA_LOG=warn DATABASE_URL="sqlite://$DIR/stoa.db" STOA_WEB_DIR=web/dist STOA_PUBLIC_URL=$base
"$BIN" seed --demo >/dev/null
"$BIN" serve &
pid=$!
for _ in $(seq 1 300); do curl -fs "$base/ready" >/dev/null 2>&1 && break; sleep 0.1; done

echo "| page | performance | accessibility | best practices | SEO | FCP | LCP | TBT | CLS | transferred |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for path in ${PAGES:-/ru/ /en/ /ru/blog/articles/how-we-plant /en/blog/articles/how-we-plant /ru/ecommerce/products/tree /en/ecommerce/products/tree}; do
  name=$(echo "$path" | tr '/' '_' | sed 's/^_//; s/_$//')
  # Warm the page cache first: the figure is for the page a visitor normally gets.
  curl -fs "$base$path" >/dev/null
  CHROME_PATH=$(command -v chromium) "$TOOLS/node_modules/.bin/lighthouse" "$base$path" --quiet \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage" \
    --output=json --output-path="$OUT/lighthouse-$name.json" >/dev/null 2>"$DIR/lh.log" || { cat "$DIR/lh.log" >&2; exit 1; }
  node -e '
    const r = require(process.argv[1]);
    const c = r.categories, a = r.audits;
    const s = (k) => Math.round(c[k].score * 100);
    const ms = (k) => (a[k].numericValue / 1000).toFixed(1) + " s";
    const kib = (a["total-byte-weight"].numericValue / 1024).toFixed(0) + " KiB";
    console.log(`| \`${process.argv[2]}\` | ${s("performance")} | ${s("accessibility")} | ${s("best-practices")} | ${s("seo")} | ${ms("first-contentful-paint")} | ${ms("largest-contentful-paint")} | ${a["total-blocking-time"].numericValue.toFixed(0)} ms | ${a["cumulative-layout-shift"].numericValue.toFixed(3)} | ${kib} |`);
    for (const k of ["accessibility", "best-practices", "seo"])
      for (const ref of c[k].auditRefs)
        if (ref.weight > 0 && a[ref.id].score !== null && a[ref.id].score < 1) console.error(`    ${process.argv[2]} ${k}: ${ref.id} — ${a[ref.id].title}`);
  ' "$PWD/$OUT/lighthouse-$name.json" "$path"
done
