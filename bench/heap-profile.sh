#!/usr/bin/env bash
# What the heap of an idle `stoa` holds (issue 17, build 2): a debug build with the system
# allocator (`--no-default-features`: heaptrack wraps malloc, which mimalloc would bypass) serves
# the demo site on SQLite under heaptrack (Debian package), gets one page and one API list, idles
# 3 s and is killed; what was still allocated then is the idle heap. Prints the peak, the live
# total and the live bytes by the innermost two frames of Stoa's or its libraries' code.
#
#   bench/heap-profile.sh            # prints the table; the raw profile stays in bench/results/
#   REST=15 bench/heap-profile.sh    # at rest instead: no page, no list, REST s of idling
set -euo pipefail
cd "$(dirname "$0")/.."

command -v heaptrack >/dev/null 2>&1 || {
  SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
  $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q heaptrack
}
cargo build -q -p stoa-server --bin stoa --no-default-features
mkdir -p bench/results
BIN=bench/results/stoa-sysalloc
cp target/debug/stoa "$BIN"
# The next plain build puts the shipped allocator back in target/debug/stoa.
PORT=${PORT:-18095}
DIR=$(mktemp -d)
trap 'pkill -9 -x stoa-sysalloc 2>/dev/null || true; rm -rf "$DIR"' EXIT
export DATABASE_URL="sqlite://$DIR/stoa.db" STOA_DATA_DIR="$DIR" STOA_ADDR="127.0.0.1:$PORT" STOA_LOG=warn
export STOA_SECRET_KEY="heap-$(date +%s)-0123456789abcdef0123456789" STOA_WEB_DIR=${STOA_WEB_DIR:-web/dist}
"$BIN" migrate >/dev/null
"$BIN" seed --demo >/dev/null
OUT=bench/results/heap-$(date -u +%Y%m%dT%H%M%SZ)
heaptrack -o "$OUT" "$BIN" serve >"$DIR/heaptrack.log" 2>&1 &
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$PORT/ready" >/dev/null 2>&1 && break; sleep 0.1; done
if [ -n "${REST:-}" ]; then
  sleep "$REST"
else
  curl -fs -o /dev/null "http://127.0.0.1:$PORT/ru/" || true
  curl -fs -o /dev/null "http://127.0.0.1:$PORT/api/blog/articles?limit=10"
  sleep 3
fi
pkill -9 -x stoa-sysalloc
for _ in $(seq 1 100); do [ -s "$OUT.zst" ] && ! pgrep -f "heaptrack.*$OUT" >/dev/null && break; sleep 0.2; done
heaptrack_print -f "$OUT.zst" --flamegraph-cost-type leaked -F "$OUT.stacks" 2>/dev/null | grep -E 'peak heap|total memory leaked'
python3 - "$OUT.stacks" <<'PY'
import collections, re, sys
# Frames of the standard library and of the generic containers say nothing about who holds.
generic = re.compile(r'(alloc|core|std|serde|indexmap|tokio|hashbrown|\{closure|budget|block_on|poll<|_R|'
                     r'_\$LT\$(alloc|core|std|serde|indexmap|hashbrown)|map_fold|<|main)')
held = collections.Counter()
for line in open(sys.argv[1]):
    stack, _, n = line.rstrip().rpartition(' ')
    frames = [re.sub(r'::h[0-9a-f]{16}', '', f) for f in stack.split(';')]
    own = [f for f in frames if not generic.match(f) and '{async_fn' not in f]
    held[' < '.join(f[:60] for f in own[-2:]) or '(unattributed)'] += int(n)
print('live at idle, by holder (MB):')
for k, v in held.most_common(15):
    print(f'{v / 1e6:7.2f}  {k}')
PY
