#!/usr/bin/env bash
# Soak: a release `stoa` under a mixed load (bench/soak.mjs: reads, password sign-ins, checkouts
# with the dummy provider and their payments, chat messages) for DURATION seconds (default 1800);
# passes when no answer was a 5xx, no connection failed, and resident memory after the warm-up
# grew by less than MAX_GROWTH percent (10): the median of the last WINDOW seconds against that of
# the first WINDOW seconds after the warm-up (bench/soak.mjs). One backend per run (sqlite by default).
#
#   bench/soak.sh                     # 30 minutes on SQLite
#   DURATION=120 bench/soak.sh postgres
#
# The server's log and the JSON summary (with a memory sample every SAMPLE s) go to bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."

BACKENDS=${1:-sqlite}
export DURATION=${DURATION:-1800} CLIENTS=${CLIENTS:-16}
DELAY=${STOA_DUMMY_WEBHOOK_DELAY:-1}
PORT=${PORT:-18093}
# shellcheck source=bench/checkout-common.sh
. bench/checkout-common.sh
export STOA_CHAT_RATE=${STOA_CHAT_RATE:-1000000} STOA_AUTH_FAILURES=${STOA_AUTH_FAILURES:-1000000} STOA_AUTH_SLOW_AFTER=${STOA_AUTH_SLOW_AFTER:-1000000}

run() {
  local backend=$1 url=$2 stamp; stamp=$(date -u +%Y%m%dT%H%M%SZ)
  local log="$OUT/soak-server-$backend.log"
  migrate "$url" "$log"
  start "$url" "$log"
  echo "soak on $backend: $CLIENTS clients, $DURATION s, $(nproc) cores, $(date -u +%F), $(git rev-parse --short HEAD)"
  PRODUCT=$(node bench/checkout.mjs setup) PID=$pid RESULT="$OUT/soak-$backend-$stamp.json" node bench/soak.mjs
  if grep -q '"level":"ERROR"' "$log"; then
    echo "the server logged errors:" >&2; grep '"level":"ERROR"' "$log" | head >&2; exit 1
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}
each_backend run
