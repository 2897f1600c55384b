#!/usr/bin/env bash
# the site search at 1 000 and 20 000 articles (issue 51) against a release `stoa` on SQLite, then PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-18093}
N=${N:-300}
PG_ADMIN=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BIN=./target/release/stoa
[ -x "$BIN" ] || cargo build --release -p stoa-server
KEY="bench-$(date +%s)-$$-0123456789abcdef0123456789"
DIR=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
base="http://127.0.0.1:$PORT"
run() {
  STOA_TRUSTED_PROXIES=127.0.0.1 STOA_SECRET_KEY=$KEY STOA_ADDR=127.0.0.1:$PORT STOA_DATA_DIR=$DIR STOA_LOG=warn DATABASE_URL=$1 "$BIN" serve &
  pid=$!
  for _ in $(seq 1 300); do curl -fs "$base/ready" >/dev/null 2>&1 && break; sleep 0.1; done
  python3 bench/site_search.py "$base" "$KEY" "$N" ${2:-}
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}
echo "## SQLite"; run "sqlite://$DIR/stoa.db"
psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS stoa_bench_search WITH (FORCE)" -c "CREATE DATABASE stoa_bench_search"
echo "## PostgreSQL"; run "${PG_ADMIN%/*}/stoa_bench_search" "${PG_ADMIN%/*}/stoa_bench_search"
psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS stoa_bench_search WITH (FORCE)"
