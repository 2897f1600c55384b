#!/usr/bin/env bash
# Admin list and search at 1 000 000 rows (issue 4), on SQLite and PostgreSQL, against a release
# `stoa`. Figures go to stdout as a markdown table; record them in docs/benchmarks.md.
#
#   bench/admin-scale.sh              # both backends
#   bench/admin-scale.sh sqlite       # one
#   ROWS=100000 N=50 bench/admin-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BACKENDS=${1:-both}
ROWS=${ROWS:-1000000}
N=${N:-200}
PORT=${PORT:-18091}
PG_ADMIN=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BIN=./target/release/stoa
[ -x "$BIN" ] || cargo build --release -p stoa-server
DIR=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
base="http://127.0.0.1:$PORT"

serve() {
  STOA_ADDR=127.0.0.1:$PORT STOA_DATA_DIR=$DIR STOA_LOG=warn DATABASE_URL=$1 "$BIN" serve &
  pid=$!
  for _ in $(seq 1 300); do curl -fs "$base/ready" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server did not start" >&2; exit 1
}

if [ "$BACKENDS" = both ] || [ "$BACKENDS" = sqlite ]; then
  url="sqlite://$DIR/stoa.db"
  DATABASE_URL=$url STOA_DATA_DIR=$DIR STOA_LOG=warn "$BIN" migrate >/dev/null
  python3 bench/admin_scale.py seed-sqlite "$DIR/stoa.db" "$ROWS"
  serve "$url"
  echo "## SQLite, $ROWS articles"
  python3 bench/admin_scale.py measure "$base" "$N"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
fi

if [ "$BACKENDS" = both ] || [ "$BACKENDS" = postgres ]; then
  db=stoa_bench_scale
  psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  url="${PG_ADMIN%/*}/$db"
  DATABASE_URL=$url STOA_DATA_DIR=$DIR STOA_LOG=warn "$BIN" migrate >/dev/null
  python3 bench/admin_scale.py seed-postgres "$url" "$ROWS"
  serve "$url"
  echo "## PostgreSQL, $ROWS articles"
  python3 bench/admin_scale.py measure "$base" "$N"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"
fi
