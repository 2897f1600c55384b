#!/usr/bin/env bash
# Load benchmark of the generic API (issues 2 and 52): a release `stoa` with 1 000 seeded blog
# articles; wrk on GET /api/blog/articles?limit=100 and GET /api/blog/articles/{id}, 2 threads,
# 32 connections, 20 s each, anonymous and then signed in (a bearer token, issue 17 build 5).
# Side by side in one run, nginx (Debian package; installed when missing) serves the same bytes
# as static files: the share of nginx is the figure issue 52 asks for. Runs on SQLite and on
# PostgreSQL.
#
#   bench/api.sh                 # both backends (PostgreSQL at BENCH_POSTGRES_URL or the local server)
#   bench/api.sh sqlite          # one backend
#   DURATION=5s bench/api.sh     # shorter runs
#
# Results go to bench/results/ and are summarised on stdout; record them in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."

BACKENDS=${1:-both}
DURATION=${DURATION:-20s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
PORT=${PORT:-18090}
PG_ADMIN=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
# shellcheck source=bench/wrk-common.sh
. bench/wrk-common.sh

NPORT=${NPORT:-18091}
# shellcheck source=bench/nginx-common.sh
. bench/nginx-common.sh

base="http://127.0.0.1:$PORT"
pid=""
npid=""
DIR=$(mktemp -d)
# nginx's workers run as another user: they may pass through the folder to www/, not list it.
chmod 711 "$DIR"
mkdir -p "$DIR/www"
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  [ -n "$npid" ] && kill "$npid" 2>/dev/null || true
  rm -rf "$DIR"
}
trap cleanup EXIT

nginx_conf "$DIR" "$NPORT" application/json
nginx -c "$DIR/nginx.conf" -p "$DIR" &
npid=$!

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# wrk's requests/s and p50/p99 latency as "rps|p50|p99|requests". A run with any answer other
# than 2xx or 3xx measures nothing: it stops the script.
bench_row() { # NAME URL [HEADER]
  local name=$1 url=$2 hdr=${3:-} out
  if [ -n "$hdr" ]; then
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -H "$hdr" "$url")
  else
    out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$url")
  fi
  if grep -q "Non-2xx" <<<"$out"; then
    echo "$name answered errors to $url: $(grep Non-2xx <<<"$out")" >&2
    exit 1
  fi
  awk '/Requests\/sec/ {rps=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} /requests in/ {n=$1} END {print rps "|" p50 "|" p99 "|" n}' <<<"$out"
}

wait_ready() {
  for _ in $(seq 1 100); do curl -fs "$base/ready" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server did not become ready" >&2; exit 1
}

# Writes need credentials: the seed uses a per-run server-to-server secret key.
KEY="bench-$(date +%s)-$$-0123456789abcdef0123456789"

seed() {
  # 10 bulk requests of 100 articles each.
  for b in $(seq 0 9); do
    python3 - "$b" <<'PY' | curl -fs -o /dev/null -X POST "$base/api/blog/articles/bulk" -H "x-rbac-secret-key: $KEY" -H 'content-type: application/json' --data-binary @-
import json, sys
b = int(sys.argv[1])
items = [{"data": {"slug": f"article-{b*100+i}", "title": {"en": f"Article {b*100+i}", "ru": f"Статья {b*100+i}"},
          "subtitle": {"en": "A subtitle", "ru": "Подзаголовок"},
          "description": {"en": "Some text of the article body, long enough to look like content."}}}
         for i in range(100)]
print(json.dumps(items))
PY
  done
}

run() {
  local backend=$1 url=$2
  local stamp; stamp=$(date -u +%Y%m%dT%H%M%SZ)
  local file="$OUT/api-$backend-$stamp.txt"
  DATABASE_URL="$url" STOA_ADDR="127.0.0.1:$PORT" STOA_LOG=warn STOA_SECRET_KEY="$KEY" STOA_DATA_DIR="$DIR" "$BIN" serve >"$OUT/server-$backend.log" 2>&1 &
  pid=$!
  wait_ready
  seed
  local count; count=$(curl -fs "$base/api/blog/articles?limit=1&count=true" -D - -o /dev/null | tr -d '\r' | awk -F': ' 'tolower($1)=="x-total-count"{print $2}')
  local id; id=$(curl -fs "$base/api/blog/articles?limit=1&offset=500" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])')
  # The same bytes as static files for nginx; both servers must answer them byte for byte.
  curl -fs "$base/api/blog/articles?limit=100" -o "$DIR/www/list.json"
  curl -fs "$base/api/blog/articles/$id" -o "$DIR/www/one.json"
  for f in list one; do
    curl -fs "http://127.0.0.1:$NPORT/$f.json" -o "$DIR/nginx-$f.json"
    cmp -s "$DIR/nginx-$f.json" "$DIR/www/$f.json" || { echo "nginx does not serve the bytes of $f.json" >&2; exit 1; }
  done
  local jwt; jwt=$(curl -fs -H 'content-type: application/json' -d '{"login":"bench-user@example.com","password":"bench-password-123"}' "$base/api/rbac/subjects/authentication/email-and-password/registration" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["jwt"])')
  {
    echo "# $backend — $count articles — $(git rev-parse --short HEAD) — $(date -u) — wrk -t$THREADS -c$CONNECTIONS -d$DURATION"
    echo "list of 100: $(stat -c %s "$DIR/www/list.json") bytes; by id: $(stat -c %s "$DIR/www/one.json") bytes"
    echo
    echo "| request | server | req/s | p50 | p99 | share of nginx | stoa CPU per request |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    local name path nrps np50 np99 srps sp50 sp99 sreqs t0 t1 cpu share
    for pair in "list of 100|/api/blog/articles?limit=100|list.json" "by id|/api/blog/articles/$id|one.json"; do
      IFS='|' read -r name path static <<<"$pair"
      IFS='|' read -r nrps np50 np99 _ <<<"$(bench_row nginx "http://127.0.0.1:$NPORT/$static")"
      t0=$(cpu_ticks "$pid")
      IFS='|' read -r srps sp50 sp99 sreqs <<<"$(bench_row stoa "$base$path")"
      t1=$(cpu_ticks "$pid")
      cpu=$(awk -v t="$((t1 - t0))" -v n="$sreqs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f µs", t / hz / n * 1e6 }')
      share=$(awk -v a="$srps" -v b="$nrps" 'BEGIN { printf "%.0f %%", a / b * 100 }')
      echo "| $name, anonymous | nginx (static file) | $nrps | $np50 | $np99 | | |"
      echo "| $name, anonymous | stoa | $srps | $sp50 | $sp99 | **$share** | $cpu |"
      # The same as a signed-in user (a bearer access token: its session is checked per request).
      t0=$(cpu_ticks "$pid")
      IFS='|' read -r srps sp50 sp99 sreqs <<<"$(bench_row stoa "$base$path" "Authorization: Bearer $jwt")"
      t1=$(cpu_ticks "$pid")
      cpu=$(awk -v t="$((t1 - t0))" -v n="$sreqs" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f µs", t / hz / n * 1e6 }')
      share=$(awk -v a="$srps" -v b="$nrps" 'BEGIN { printf "%.0f %%", a / b * 100 }')
      echo "| $name, signed in | stoa | $srps | $sp50 | $sp99 | $share | $cpu |"
    done
    echo
    echo "server RSS after the run: $(ps -o rss= -p "$pid" | awk '{printf "%.1f MiB", $1/1024}')"
  } | tee "$file"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

if [ "$BACKENDS" = sqlite ] || [ "$BACKENDS" = both ]; then
  dir=$(mktemp -d)
  run sqlite "sqlite://$dir/stoa.db"
  rm -rf "$dir"
fi
if [ "$BACKENDS" = postgres ] || [ "$BACKENDS" = both ]; then
  db="stoa_bench_$(date +%s)"
  psql "$PG_ADMIN" -qc "CREATE DATABASE $db"
  run postgres "${PG_ADMIN%/*}/$db"
  psql "$PG_ADMIN" -qc "DROP DATABASE $db WITH (FORCE)"
fi
