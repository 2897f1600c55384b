#!/usr/bin/env bash
# Checkout throughput (commerce): a release `stoa` with the dummy payment provider; CLIENTS
# concurrent buyers (bench/checkout.mjs, Node 20) each repeat init (a new anonymous subject) → add
# to cart → checkout for DURATION seconds (or COUNT checkouts in all). Then the client waits until
# every acknowledged order is `approving` (the dummy provider's webhook went through the inbox and
# was applied by the job runner), at most PAY_TIMEOUT seconds, and audits through the admin API.
# Runs on SQLite and on PostgreSQL; prints a markdown table (record it in docs/benchmarks.md).
#
#   bench/checkout.sh                    # both backends (PostgreSQL at BENCH_POSTGRES_URL or the local server)
#   bench/checkout.sh sqlite             # one backend
#   DURATION=5 CLIENTS=8 bench/checkout.sh
#   COUNT=500 bench/checkout.sh postgres # a fixed number of checkouts instead of a duration
#
# Columns: acknowledged = checkouts answered 201; errors = other answers of init, add or checkout;
# acked/s = acknowledged / load time; paid/s = acknowledged / time from the start until the last
# acknowledged order went paying → approving (the figure that counts: checkouts completed and paid
# per second); last paid = that time; p50/p99 = latency of the checkout request alone, at the
# client, over every answered checkout request (refused ones too); lost = acknowledged but not approving when the wait ended; double-paid = orders with more
# than one paying → approving change plus invoices with more than one applied webhook.
# Besides the row, the client logs the server's CPU per paid checkout (/proc of the server, from
# the load's start until the last payment) and, on SQLite, the write transactions per checkout
# and the writers per fsync (stoa_db_sqlite_writes_total of /metrics). Then it waits until the
# background work behind the payments (receipts, mail: a lower job class, which trails the
# payments) is done as well and logs the whole cost: checkouts fully processed per second and the
# server's CPU per checkout in all (BACKGROUND=0 skips this wait).
# The dummy webhook is delayed STOA_DUMMY_WEBHOOK_DELAY s (0 here); the anonymous-init rate limit is
# raised so it does not limit the load. Other STOA_* variables in the environment reach the server
# (e.g. STOA_DB_MAX_CONNECTIONS=64). The mail is sent for real, over SMTP to a local sink
# (bench/smtp-sink.mjs, which only counts what arrives; the client checks every paid order's
# mail arrived with its receipt attached); SMTP=0 keeps it in the outbox instead, as a server
# without STOA_SMTP_URL does. Server logs and JSON summaries (with the jobs behind the
# payments, by name and status) go to bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."

BACKENDS=${1:-both}
export CLIENTS=${CLIENTS:-32} DURATION=${DURATION:-20} PAY_TIMEOUT=${PAY_TIMEOUT:-120}
[ -n "${COUNT:-}" ] && export COUNT
DELAY=${STOA_DUMMY_WEBHOOK_DELAY:-0}
PORT=${PORT:-18092}
# shellcheck source=bench/checkout-common.sh
. bench/checkout-common.sh
[ "${SMTP:-1}" = 0 ] || start_smtp_sink "$((PORT + 10))"

run() {
  local backend=$1 url=$2 stamp; stamp=$(date -u +%Y%m%dT%H%M%SZ)
  local log="$OUT/checkout-server-$backend.log"
  migrate "$url" "$log"
  start "$url" "$log"
  PRODUCT=$(node bench/checkout.mjs setup) SERVER_PID=$pid LABEL=$backend RESULT="$OUT/checkout-$backend-$stamp.json" node bench/checkout.mjs bench
  echo "server RSS after the run ($backend): $(ps -o rss= -p "$pid" | awk '{printf "%.1f MiB", $1/1024}')" >&2
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

if [ -n "${COUNT:-}" ]; then amount="$COUNT checkouts"; else amount="$DURATION s"; fi
echo "Checkout: $CLIENTS clients, $amount, dummy webhook delay $DELAY s, $(nproc) cores, $(date -u +%F)"
echo
echo "| backend | clients | load s | acknowledged | errors | acked/s | paid/s | last paid after s | checkout p50 ms | p99 ms | lost | double-paid |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
each_backend run
