#!/usr/bin/env bash
# The kill test of checkout and the webhook inbox: a release `stoa` (dummy payment provider, its
# webhook after 1 s) takes checkouts from CLIENTS buyers (bench/checkout.mjs kill) who also post each
# invoice's webhook directly 2-3 times (identical copies, some at once, and a copy with other
# bytes). After KILL_AFTER seconds the server is killed with SIGKILL, restarted on the same database
# DOWN seconds later (KILLS times), and the client carries on to DURATION seconds. Then, once the
# inbox and the job queue have drained (at most DRAIN_TIMEOUT seconds), it checks and prints
# PASS/FAIL for:
#   - every acknowledged checkout (201 received; the client appends its order ids to a file at
#     once) is in the database, and was paid (approving);
#   - no order paid twice (at most one paying → approving change) and no invoice paid twice (at
#     most one applied webhook);
#   - the inbox is drained (no billing.webhook left `received`);
#   - the job queue (platform_job) has nothing due or running left, and no dead job.
# Exit status 1 when a check fails.
#
#   bench/kill-checkout.sh                 # SQLite
#   bench/kill-checkout.sh postgres        # PostgreSQL at BENCH_POSTGRES_URL or the local server
#   bench/kill-checkout.sh both
#   KILLS=3 KILL_AFTER=4 DURATION=20 bench/kill-checkout.sh
#
# Jobs that were running when the server died stay leased until their lease runs out (the longest
# job timeout + 30 s: 330 s today), so the drain after a kill takes up to ~5.5 minutes; hence the
# default DRAIN_TIMEOUT of 400 s. Server logs and the acknowledged checkouts go to bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."

BACKENDS=${1:-sqlite}
export CLIENTS=${CLIENTS:-16} DURATION=${DURATION:-15} DRAIN_TIMEOUT=${DRAIN_TIMEOUT:-400}
KILL_AFTER=${KILL_AFTER:-5}
KILLS=${KILLS:-1}
DOWN=${DOWN:-1}
DELAY=${STOA_DUMMY_WEBHOOK_DELAY:-1}
PORT=${PORT:-18093}
PG_ADMIN=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BIN=${STOA_BIN:-./target/release/stoa}
OUT=bench/results
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "no $BIN: build it first (cargo build --release -p stoa-server)" >&2; exit 1; }

export BASE="http://127.0.0.1:$PORT"
export KEY="kill-$(date +%s)-$$-0123456789abcdef0123456789"
DIR=$(mktemp -d)
pid="" cpid="" db=""
cleanup() {
  [ -n "$cpid" ] && kill "$cpid" 2>/dev/null || true
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  [ -n "$db" ] && psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
  rm -rf "$DIR"
}
trap cleanup EXIT

# The server's settings for database $1 (the anonymous-init and webhook rate limits raised out of
# the way: every client posts from 127.0.0.1).
# `env` execs the server, so `$!` of `env … &` is the server itself (what kill must reach).
server_env() {
  senv=(DATABASE_URL="$1" STOA_ADDR="127.0.0.1:$PORT" STOA_DATA_DIR="$DIR" STOA_LOG=warn STOA_SECRET_KEY="$KEY"
    STOA_PAYMENT_PROVIDERS=dummy STOA_DUMMY_WEBHOOK_DELAY="$DELAY"
    STOA_AUTH_RATE_BURST=1000000 STOA_AUTH_RATE_WINDOW=1 STOA_AUTH_ACCOUNT_RATE=1000000 STOA_WEBHOOK_RATE=1000000)
}

# Starts the server on $1, logging to $2 (appended), and waits until it is ready.
start() {
  server_env "$1"
  env "${senv[@]}" "$BIN" serve >>"$2" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do curl -fs "$BASE/ready" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server did not become ready (see $2)" >&2; exit 1
}

failed=0
run() {
  local backend=$1 url=$2 stamp; stamp=$(date -u +%Y%m%dT%H%M%SZ)
  local log="$OUT/kill-checkout-server-$backend-$stamp.log"
  export ACKS="$OUT/kill-checkout-acks-$backend-$stamp.jsonl"
  : >"$ACKS"
  echo "## $backend: $CLIENTS clients for $DURATION s, $KILLS × kill -9 after ${KILL_AFTER} s (down ${DOWN} s), dummy webhook delay $DELAY s"
  server_env "$url"
  env "${senv[@]}" "$BIN" migrate >"$log" 2>&1
  start "$url" "$log"
  export PRODUCT; PRODUCT=$(node bench/checkout.mjs setup)
  RESULT="$OUT/kill-checkout-client-$backend-$stamp.json" node bench/checkout.mjs kill &
  cpid=$!
  local restarted=0
  for k in $(seq 1 "$KILLS"); do
    sleep "$KILL_AFTER"
    kill -9 "$pid"; wait "$pid" 2>/dev/null || true
    echo "killed the server (kill -9) with $(wc -l <"$ACKS") checkouts acknowledged so far"
    echo "----- kill -9 #$k at $(date -u +%T.%N) -----" >>"$log"
    sleep "$DOWN"
    start "$url" "$log"
    restarted=$(date +%s%3N)
    echo "restarted the server"
  done
  wait "$cpid" || { echo "the client failed" >&2; failed=1; }
  cpid=""
  echo "client done: $(wc -l <"$ACKS") checkouts acknowledged; waiting for the drain (at most $DRAIN_TIMEOUT s)"
  RESTARTED_AT=$restarted node bench/checkout.mjs verify || failed=1
  local errors; errors=$(grep -c '"level":"ERROR"' "$log" || true)
  echo "INFO  server log: $errors ERROR lines ($log)"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

if [ "$BACKENDS" = sqlite ] || [ "$BACKENDS" = both ]; then
  run sqlite "sqlite://$DIR/stoa.db"
fi
if [ "$BACKENDS" = postgres ] || [ "$BACKENDS" = both ]; then
  db="stoa_bench_kill_$(date +%s)"
  psql "$PG_ADMIN" -qc "CREATE DATABASE $db"
  run postgres "${PG_ADMIN%/*}/$db"
  psql "$PG_ADMIN" -qc "DROP DATABASE $db WITH (FORCE)"; db=""
fi
if [ "$failed" = 0 ]; then echo "kill test: PASS"; else echo "kill test: FAIL"; fi
exit "$failed"
