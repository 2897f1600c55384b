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
# shellcheck source=bench/checkout-common.sh
. bench/checkout-common.sh

failed=0
run() {
  local backend=$1 url=$2 stamp; stamp=$(date -u +%Y%m%dT%H%M%SZ)
  local log="$OUT/kill-checkout-server-$backend-$stamp.log"
  export ACKS="$OUT/kill-checkout-acks-$backend-$stamp.jsonl"
  : >"$ACKS"
  echo "## $backend: $CLIENTS clients for $DURATION s, $KILLS × kill -9 after ${KILL_AFTER} s (down ${DOWN} s), dummy webhook delay $DELAY s"
  migrate "$url" "$log"
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

each_backend run
if [ "$failed" = 0 ]; then echo "kill test: PASS"; else echo "kill test: FAIL"; fi
exit "$failed"
