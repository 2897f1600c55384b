#!/usr/bin/env bash
# PostgreSQL's statements behind COUNT checkouts by one client (bench/checkout.sh): turns on
# PostgreSQL's statement log (`log_min_duration_statement = 0`, which needs a superuser on the
# local server), runs the checkouts, turns it off again, and counts the executed statements by
# their first WIDTH characters (60 unless set; wider tells apart statements that begin alike:
# `WIDTH=200 bench/pg-statements.sh …`) (the executions of prepared statements and the simple queries; not
# their parse and bind steps). Setup, migration and the background jobs that ran meanwhile are
# counted too; compare two builds by their difference.
#
#   bench/pg-statements.sh target/release/stoa          # 100 checkouts
#   COUNT=300 bench/pg-statements.sh /tmp/stoa-before
#
# Prints the checkout row and the total; the counts by statement go to
# bench/results/pg-statements-<binary name>.txt. PG_LOG is the server's log file.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?the stoa binary to run}
LOG=${PG_LOG:-/var/log/postgresql/postgresql-15-main.log}
URL=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
OUT=bench/results; mkdir -p "$OUT"
[ -r "$LOG" ] || { echo "cannot read PostgreSQL's log $LOG (set PG_LOG)" >&2; exit 1; }
off=$(wc -c <"$LOG")
psql "$URL" -qAtc "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" >/dev/null
trap 'psql "$URL" -qAtc "ALTER SYSTEM RESET log_min_duration_statement" -c "SELECT pg_reload_conf()" >/dev/null' EXIT
STOA_BIN=$BIN COUNT=${COUNT:-100} CLIENTS=1 BACKGROUND=0 bench/checkout.sh postgres 2>&1 | grep "^| postgres"
counts="$OUT/pg-statements-$(basename "$BIN").txt"
tail -c +"$((off + 1))" "$LOG" | grep -E "LOG:  duration: [0-9.]+ ms  (statement|execute)" |
  sed -E 's/.*ms  (statement|execute [^:]*): //' | cut -c1-${WIDTH:-60} | sort | uniq -c | sort -rn >"$counts"
awk '{s += $1} END {print "statements:", s}' "$counts"
