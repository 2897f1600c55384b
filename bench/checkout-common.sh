# Shared by bench/checkout.sh, bench/kill-checkout.sh and bench/chat.sh (sourced after they set
# BACKENDS, DELAY and PORT): the release binary, a per-run admin key, a scratch directory, the
# server's settings, starting it, and running a function once per backend on a fresh database.

PG_ADMIN=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BIN=${STOA_BIN:-./target/release/stoa}
OUT=bench/results
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "no $BIN: build it first (cargo build --release -p stoa-server)" >&2; exit 1; }
node -e 'process.exit(+process.versions.node.split(".")[0] >= 18 ? 0 : 1)' || { echo "Node 18+ is needed (global fetch)" >&2; exit 1; }

export BASE="http://127.0.0.1:$PORT"
# Admin rights for the setup and the audit: a per-run server-to-server secret key.
export KEY="bench-$(date +%s)-$$-0123456789abcdef0123456789"
DIR=$(mktemp -d)
# The server's data (the SQLite database, the receipts: ~10 000 files a run) on an ext4 of its
# own, made for this run from a sparse image, when this runs as root (BENCH_FS=shared: in the
# plain temporary directory instead). On the machine's shared disk, every file created within
# minutes of many deleted ones (the previous run's data, cargo's builds) paid ext4's scan for
# recently deleted inodes (`recently_deleted` under `find_inode_bit`): 13 % of the server's CPU
# behind the payments in a `perf` profile of a run started a minute after the last. A run's
# figures then depended on what the machine had deleted before it; a fresh file system's don't.
IMG=""
pid="" cpid="" db="" spid=""
cleanup() {
  [ -n "$cpid" ] && kill "$cpid" 2>/dev/null || true
  [ -n "$spid" ] && kill "$spid" 2>/dev/null || true
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; } || true
  [ -n "$db" ] && psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true
  if [ -n "$IMG" ]; then
    { umount "$DIR" 2>/dev/null || umount -l "$DIR"; } || true
    rm -f "$IMG"
  fi
  # Never below a mount point still mounted (the image's file system, if it would not go).
  mountpoint -q "$DIR" || rm -rf "$DIR"
}
trap cleanup EXIT
if [ "${BENCH_FS:-own}" = own ] && [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null; then
  IMG=$(mktemp --suffix=.img)
  # Inode tables and journal written now, not by ext4lazyinit in the background during the run.
  if truncate -s 16G "$IMG" && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$IMG" \
    && mount -o loop "$IMG" "$DIR"; then
    echo "data on a fresh ext4 ($IMG at $DIR)" >&2
  else
    echo "no file system of its own (mount failed): data in $DIR" >&2; rm -f "$IMG"; IMG=""
  fi
fi

# The server's settings for database $1: the dummy provider, and the anonymous-init and webhook
# rate limits raised out of the way (every client posts from 127.0.0.1). `env` execs the server,
# so `$!` of `env … &` is the server itself (what kill must reach).
server_env() {
  senv=(DATABASE_URL="$1" STOA_ADDR="127.0.0.1:$PORT" STOA_DATA_DIR="$DIR" STOA_LOG="${STOA_LOG:-warn}" STOA_SECRET_KEY="$KEY"
    STOA_PAYMENT_PROVIDERS=dummy STOA_DUMMY_WEBHOOK_DELAY="$DELAY"
    STOA_AUTH_RATE_BURST=1000000 STOA_AUTH_RATE_WINDOW=1 STOA_AUTH_ACCOUNT_RATE=1000000 STOA_WEBHOOK_RATE=1000000)
  # Mail goes through SMTP when a sink listens (see start_smtp_sink).
  [ -n "${SMTP_URL:-}" ] && senv+=(STOA_SMTP_URL="$SMTP_URL")
  return 0
}

# Starts bench/smtp-sink.mjs (SMTP on $1, its counts over HTTP on $1+1) and exports SMTP_URL
# and SMTP_STATUS for the server and the client.
start_smtp_sink() {
  node bench/smtp-sink.mjs "$1" "$(($1 + 1))" &
  spid=$!
  export SMTP_URL="smtp://127.0.0.1:$1" SMTP_STATUS="http://127.0.0.1:$(($1 + 1))/"
  for _ in $(seq 1 50); do curl -fs "$SMTP_STATUS" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "the SMTP sink did not start" >&2; exit 1
}

# Migrates database $1 (log $2, truncated).
migrate() {
  server_env "$1"
  env "${senv[@]}" "$BIN" migrate >"$2" 2>&1
}

# Starts the server on $1, logging to $2 (appended), and waits until it is ready.
start() {
  # Another server on the port would answer for this one (with another key: 401 at setup).
  if curl -fs "$BASE/ready" >/dev/null 2>&1; then echo "something already answers on $BASE: stop it or set PORT" >&2; exit 1; fi
  server_env "$1"
  env "${senv[@]}" "$BIN" serve >>"$2" 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do
    curl -fs "$BASE/ready" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { echo "the server exited at start (see $2)" >&2; pid=""; exit 1; }
    sleep 0.1
  done
  echo "server did not become ready (see $2)" >&2; exit 1
}

# Runs `$1 backend url` for each backend BACKENDS names (sqlite, postgres or both), PostgreSQL on
# a database of its own (named DB_PREFIX_<time>), dropped afterwards.
each_backend() {
  if [ "$BACKENDS" = sqlite ] || [ "$BACKENDS" = both ]; then
    "$1" sqlite "sqlite://$DIR/stoa.db"
  fi
  if [ "$BACKENDS" = postgres ] || [ "$BACKENDS" = both ]; then
    db="${DB_PREFIX:-stoa_bench_checkout}_$(date +%s)"
    psql "$PG_ADMIN" -qc "CREATE DATABASE $db"
    "$1" postgres "${PG_ADMIN%/*}/$db"
    psql "$PG_ADMIN" -qc "DROP DATABASE $db WITH (FORCE)"; db=""
  fi
}
