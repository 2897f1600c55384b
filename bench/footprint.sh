#!/usr/bin/env bash
# Footprint of a release `stoa` (issue 17, build 2) on SQLite with the demo site:
#   1. cold start: process start to the first 200 of GET /ready on an existing database, RUNS times
#      (median and spread), polled every millisecond from Python;
#   2. idle memory: RssAnon at rest (no page) 5 and REST (15) s after start; VmRSS 5 s after one
#      page, and what holds it (smaps_rollup: anonymous against
#      file-backed; the largest mappings);
#   3. under load: wrk by id and list on the API (as bench/api.sh, DURATION each) then VmHWM and VmRSS,
#      and VmRSS and RssAnon 5 s after the load.
#
#   bench/footprint.sh
#   RUNS=10 DURATION=20s bench/footprint.sh
#
# Other STOA_* variables in the environment reach the server (STOA_SSR_ENGINES=0, STOA_DB_MAX_CONNECTIONS=2…).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-7}
DURATION=${DURATION:-20s}
PORT=${PORT:-18094}
# shellcheck source=bench/wrk-common.sh
. bench/wrk-common.sh
base="http://127.0.0.1:$PORT"
DIR=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
export DATABASE_URL="sqlite://$DIR/stoa.db" STOA_ADDR="127.0.0.1:$PORT" STOA_DATA_DIR="$DIR" STOA_LOG=warn
export STOA_WEB_DIR=${STOA_WEB_DIR:-web/dist}
KEY="bench-$(date +%s)-$$-0123456789abcdef0123456789"
export STOA_SECRET_KEY="$KEY"

"$BIN" migrate >/dev/null
"$BIN" seed --demo >/dev/null
echo "# footprint — $(git rev-parse --short HEAD) — $(nproc) cores — $(date -u +%F) — web: $STOA_WEB_DIR"

echo "## cold start (process start → first 200 of /ready), $RUNS runs"
python3 - "$BIN" "$base" "$RUNS" <<'PY'
import subprocess, sys, time, urllib.request, statistics
binary, base, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    p = subprocess.Popen([binary, "serve"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            with urllib.request.urlopen(base + "/ready", timeout=1) as r:
                if r.status == 200:
                    break
        except Exception:
            time.sleep(0.001)
    times.append((time.perf_counter() - t0) * 1000)
    p.terminate(); p.wait()
times.sort()
print(f"median {statistics.median(times):.0f} ms, min {times[0]:.0f} ms, max {times[-1]:.0f} ms ({', '.join(f'{t:.0f}' for t in times)})")
PY

# At rest: no request but /ready, RssAnon 5 s and REST s after start (the store's idle
# connections and the checkpointer's let go after 5–10 s of quiet).
REST=${REST:-15}
"$BIN" serve >"$DIR/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do curl -fs "$base/ready" >/dev/null 2>&1 && break; sleep 0.05; done
sleep 5
at5=$(awk '/RssAnon/{print $2}' "/proc/$pid/status")
sleep $((REST - 5))
echo "## at rest (no page): RssAnon $((at5 / 1024)) MB at 5 s, $(( $(awk '/RssAnon/{print $2}' "/proc/$pid/status") / 1024 )) MB at $REST s"
kill "$pid"; wait "$pid" 2>/dev/null || true

"$BIN" serve >"$DIR/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do curl -fs "$base/ready" >/dev/null 2>&1 && break; sleep 0.05; done
# One page and one API read so the first-use caches are in, then idle.
curl -fs -o /dev/null "$base/ru/" || true
curl -fs -o /dev/null "$base/api/blog/articles?limit=10"
sleep 5
echo "## idle (5 s after start, one page served)"
grep -E 'VmRSS|VmHWM|RssAnon|RssFile|Threads' "/proc/$pid/status" | tr -s ' \t' ' '
echo "largest mappings by RSS (kB):"
awk '/^[0-9a-f]+-[0-9a-f]+ /{name=$6; if(name=="") name="[anon]"} /^Rss:/{rss[name]+=$2} END{for(n in rss) if(rss[n]>=512) printf "%8d  %s\n", rss[n], n}' "/proc/$pid/smaps" | sort -rn | head -8

id=$(curl -fs "$base/api/blog/articles?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])')
echo "## under load: wrk -t2 -c32 -d$DURATION by id, then list (limit 100)"
wrk -t2 -c32 -d"$DURATION" "$base/api/blog/articles/$id" | grep -E 'Requests/sec'
wrk -t2 -c32 -d"$DURATION" "$base/api/blog/articles?limit=100" | grep -E 'Requests/sec'
grep -E 'VmRSS|VmHWM' "/proc/$pid/status" | tr -s ' \t' ' '
# What the server keeps once the load is over.
sleep 5
echo "## 5 s after the load: $(grep -E 'VmRSS|RssAnon' "/proc/$pid/status" | tr -s ' \t' ' ' | paste -sd ' ')"
