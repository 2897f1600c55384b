#!/usr/bin/env bash
# Load benchmark of the generic API (issue 2): a release `stoa` with 1 000 seeded blog articles;
# wrk on GET /api/blog/articles?limit=100 and GET /api/blog/articles/{id}, 2 threads,
# 32 connections, 20 s each, anonymous and then signed in (a bearer token, issue 17 build 5).
# Runs on SQLite and on PostgreSQL.
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

base="http://127.0.0.1:$PORT"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; }
trap cleanup EXIT

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
  DATABASE_URL="$url" STOA_ADDR="127.0.0.1:$PORT" STOA_LOG=warn STOA_SECRET_KEY="$KEY" STOA_DATA_DIR="$OUT" "$BIN" serve >"$OUT/server-$backend.log" 2>&1 &
  pid=$!
  wait_ready
  seed
  local count; count=$(curl -fs "$base/api/blog/articles?limit=1&count=true" -D - -o /dev/null | tr -d '\r' | awk -F': ' 'tolower($1)=="x-total-count"{print $2}')
  local id; id=$(curl -fs "$base/api/blog/articles?limit=1&offset=500" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])')
  {
    echo "# $backend — $count articles — $(date -u) — wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency"
    echo "## GET /api/blog/articles?limit=100"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$base/api/blog/articles?limit=100"
    echo "## GET /api/blog/articles/{id}"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$base/api/blog/articles/$id"
    # The same two as a signed-in user (a bearer access token: its session is checked per request).
    local jwt; jwt=$(curl -fs -H 'content-type: application/json' -d '{"login":"bench-user@example.com","password":"bench-password-123"}' "$base/api/rbac/subjects/authentication/email-and-password/registration" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["jwt"])')
    echo "## signed in: GET /api/blog/articles?limit=100"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -H "Authorization: Bearer $jwt" "$base/api/blog/articles?limit=100"
    echo "## signed in: GET /api/blog/articles/{id}"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -H "Authorization: Bearer $jwt" "$base/api/blog/articles/$id"
    echo "## server RSS after the run: $(ps -o rss= -p "$pid" | awk '{printf "%.1f MiB", $1/1024}')"
  } | tee "$file" | grep -E '^#|Requests/sec|  (50|99)%|Non-2xx|Socket errors'
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
