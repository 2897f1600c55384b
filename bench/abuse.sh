#!/usr/bin/env bash
# Abuse (issue 47): the attacks of the second security review, replayed against a release `stoa`
# on SQLite with the server's own limits (none raised), to run before and after a fix. Prints a
# markdown table, one row per scenario (bench/abuse.py has the scenarios and what each figure
# means):
#   1a/1b slow bodies   SLOW_CONNECTIONS (300) connections from 127.0.0.1 declare 2 MiB of JSON,
#                       send all but 100 bytes and hold the rest: to the sign-in refresh route and
#                       to an admin JSON route (POST /api/analytic/metrics with the secret key)
#   2 image variants    a 6000 × 6000 flat PNG; IMAGE_ROUNDS (2) rounds of IMAGE_CONCURRENCY (3)
#                       anonymous GET <url>?format=avif
#   3 search + offset   ARTICLES (3000) articles; SEARCH_CLIENTS (6) anonymous clients loop
#                       ?offset=SEARCH_OFFSET&limit=1&search=alpha for SEARCH_SECONDS (10)
#   4 CRM relay         CRM_POSTS (60) anonymous form submissions with distinct victim emails
#   5 forged webhooks   WEBHOOK_POSTS (100) badly signed Stripe webhooks with 40 headers of 8 KiB
#   6 share images      anonymous guests make social profiles; their share images are asked for
# Each row: what was sent, the answers, the server's RssAnon growth (peak and end), its CPU
# seconds, and what an honest client at 127.0.0.2 got meanwhile.
#
#   bench/abuse.sh                                   # STOA_BIN=target/release/stoa
#   STOA_BIN=target/debug/stoa bench/abuse.sh
#   SCENARIOS="1 5" bench/abuse.sh                   # some scenarios only (1a, 1b … also work)
#   SLOW_CONNECTIONS=100 ARTICLES=1000 bench/abuse.sh
#
# Stripe is enabled with made-up credentials (its API address points nowhere) so its webhook
# route answers; other STOA_* variables in the environment reach the server (e.g.
# STOA_BODY_TIMEOUT=3, STOA_CONNECTIONS_PER_ADDRESS=64). The table and a JSON summary go to
# bench/results/abuse-<time>.{md,json}, the server's log to bench/results/abuse-server.log.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${STOA_BIN:-target/release/stoa}
OUT=bench/results
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "no $BIN: build it first (cargo build --release -p stoa-server) or set STOA_BIN" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 1; }

# A free port unless PORT is given.
PORT=${PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
BASE="http://127.0.0.1:$PORT"
# Admin rights for the setup and the audit: a per-run server-to-server secret key.
KEY="bench-$(date +%s)-$$-0123456789abcdef0123456789"
DIR=$(mktemp -d)
LOG="$OUT/abuse-server.log"
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$DIR"
}
trap cleanup EXIT

senv=(DATABASE_URL="sqlite://$DIR/stoa.db" STOA_ADDR="127.0.0.1:$PORT" STOA_DATA_DIR="$DIR" STOA_LOG="${STOA_LOG:-warn}"
  STOA_SECRET_KEY="$KEY"
  STOA_PAYMENT_PROVIDERS="${STOA_PAYMENT_PROVIDERS:-dummy,stripe}"
  STOA_STRIPE_SECRET_KEY="${STOA_STRIPE_SECRET_KEY:-sk_test_abuse_bench_not_a_real_key}"
  STOA_STRIPE_WEBHOOK_SECRET="${STOA_STRIPE_WEBHOOK_SECRET:-whsec_abuse_bench_not_a_real_secret}"
  STOA_STRIPE_API_URL="${STOA_STRIPE_API_URL:-http://127.0.0.1:9}")

if curl -fs "$BASE/ready" >/dev/null 2>&1; then echo "something already answers on $BASE: stop it or set PORT" >&2; exit 1; fi
env "${senv[@]}" "$BIN" migrate >"$LOG" 2>&1
# An admin with an email address: the CRM alerts go to the admins' addresses.
echo "abuse-bench-password-$$" | env "${senv[@]}" "$BIN" admin create --email admin@abuse-bench.example --password-stdin >>"$LOG" 2>&1 \
  || echo "could not create an admin account (see $LOG): the CRM row counts no admin alerts" >&2
# `env` execs the server, so `$!` is the server itself (the pid whose /proc figures are read).
env "${senv[@]}" "$BIN" serve >>"$LOG" 2>&1 &
pid=$!
ready=""
for _ in $(seq 1 300); do
  if curl -fs "$BASE/ready" >/dev/null 2>&1; then ready=1; break; fi
  kill -0 "$pid" 2>/dev/null || { echo "the server exited at start (see $LOG)" >&2; pid=""; exit 1; }
  sleep 0.1
done
[ -n "$ready" ] || { echo "the server did not become ready (see $LOG)" >&2; exit 1; }

stamp=$(date -u +%Y%m%dT%H%M%SZ)
table="$OUT/abuse-$stamp.md"
{
  echo "Abuse: $("$BIN" --version 2>/dev/null || echo stoa), $(nproc) cores, $(date -u +%F), $BASE"
  echo
} | tee "$table"
BASE="$BASE" KEY="$KEY" SERVER_PID="$pid" DATA_DIR="$DIR" DB="$DIR/stoa.db" RESULT="$OUT/abuse-$stamp.json" \
  python3 bench/abuse.py | tee -a "$table"
echo >&2
echo "server RssAnon at the end: $(awk '/^RssAnon/ {printf "%.1f MiB", $2/1024}' "/proc/$pid/status" 2>/dev/null || echo '?' )" >&2
echo "table: $table; figures: $OUT/abuse-$stamp.json; server log: $LOG" >&2
