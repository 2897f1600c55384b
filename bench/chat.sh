#!/usr/bin/env bash
# Live chat delivery: a release `stoa`; SUBSCRIBERS anonymous accounts (one profile each) in CHATS
# group chats, every account with one open `GET /api/live` stream (bench/chat.mjs, Node 18+, no
# packages); then RATE messages/s for DURATION seconds, each posted by a random member of a random
# chat with its send time in the text. Every member's stream times every delivery (receive time −
# send time, one process and one clock). Afterwards the client waits up to GRACE s for deliveries
# still due; what never arrived is `missed`. The target (issue): 1 000 subscribers over 200 chats at
# 200 messages/s, p99 delivery < 100 ms, no missed delivery. Runs on SQLite and on PostgreSQL; prints
# a markdown table (record it in docs/benchmarks.md).
#
#   bench/chat.sh                        # both backends (PostgreSQL at BENCH_POSTGRES_URL or the local server)
#   bench/chat.sh sqlite                 # one backend
#   DURATION=5 RATE=100 bench/chat.sh sqlite
#   SUBSCRIBERS=2000 CHATS=400 bench/chat.sh postgres
#
# Columns: subscribers / chats; load s = time to post every message; sent = POSTs answered 201;
# errors = other answers (429s included); msgs/s = sent / load s; deliveries = chat.message events
# received for sent messages (each message is due on each of its chat's member streams, the
# author's included: 5 per message at 1000/200); missed = deliveries due that had not arrived GRACE s
# after the load; delivery p50…max = receive − send, ms; POST p50/p99 = the message POST at the
# client, ms; server RSS = VmRSS after the setup with no stream open → idle with every stream open,
# then the peak sampled during the load / VmHWM at the end (MiB); CPU = server / client / every
# other process (PostgreSQL included) during the load, % of one core. Client and server share the
# machine: the Node client's CPU (and its event loop's delay, in the JSON) is part of the measured
# latency, and a large `other` means something else was running: run it on a quiet machine.
#
# The anonymous-init and chat-write rate limits are raised out of the way (every account posts from
# 127.0.0.1; STOA_CHAT_RATE counts profiles, chats and messages per account per minute). Other
# STOA_* variables in the environment reach the server (e.g. STOA_DB_MAX_CONNECTIONS=64). Server
# logs and JSON summaries go to bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."

BACKENDS=${1:-both}
export SUBSCRIBERS=${SUBSCRIBERS:-1000} CHATS=${CHATS:-200} RATE=${RATE:-200} DURATION=${DURATION:-20}
export POSTERS=${POSTERS:-64} GRACE=${GRACE:-5}
export STOA_CHAT_RATE=${STOA_CHAT_RATE:-1000000}
DELAY=0
PORT=${PORT:-18093}
DB_PREFIX=stoa_bench_chat
# shellcheck source=bench/checkout-common.sh
. bench/checkout-common.sh
(( SUBSCRIBERS % CHATS == 0 )) || { echo "SUBSCRIBERS must be a multiple of CHATS" >&2; exit 1; }
(( SUBSCRIBERS / CHATS <= 50 )) || { echo "a chat has at most 50 members" >&2; exit 1; }

run() {
  local backend=$1 url=$2 stamp; stamp=$(date -u +%Y%m%dT%H%M%SZ)
  local log="$OUT/chat-server-$backend.log"
  migrate "$url" "$log"
  start "$url" "$log"
  SERVER_PID=$pid CLK_TCK=$(getconf CLK_TCK) LABEL=$backend RESULT="$OUT/chat-$backend-$stamp.json" node bench/chat.mjs
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

echo "Live chat delivery: $SUBSCRIBERS subscribers in $CHATS chats, $RATE messages/s for $DURATION s ($POSTERS posters), $(nproc) cores shared by client and server, $(date -u +%F)"
echo
echo "| backend | subscribers / chats | load s | sent | errors | msgs/s | deliveries | missed | delivery p50 ms | p95 | p99 | max | POST p50 ms | p99 | server RSS MiB: setup → idle streams | peak load / VmHWM | CPU % server / client / other |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
each_backend run
