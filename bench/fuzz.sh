#!/usr/bin/env bash
# Fuzzes the whole API with schemathesis (PyPI), generated from our own OpenAPI document, as an
# anonymous visitor, a signed-in user and an admin; fails on any 5xx (schemathesis's
# `not_a_server_error` check) and on any ERROR line the server logs.
#
#   make fuzz                                  # release build, 300 s per role
#   FUZZ_SECONDS=30 STOA_BIN=target/debug/stoa bench/fuzz.sh    # the short run CI makes
#
# A fresh SQLite database in a temporary folder; rate limits are raised so the fuzzer reaches the
# handlers instead of 429s. Reports (JUnit XML, the server log) go to bench/results/fuzz-<time>/.
set -euo pipefail
cd "$(dirname "$0")/.."

PER_ROLE=${FUZZ_SECONDS:-300}
BIN=${STOA_BIN:-target/release/stoa}
VENV=${FUZZ_VENV:-target/fuzz-venv}
VERSION=4.32.5

[ -x "$BIN" ] || { echo "no $BIN: build it first (cargo build --release -p stoa-server)" >&2; exit 2; }
if [ ! -x "$VENV/bin/schemathesis" ]; then
  echo "installing schemathesis $VERSION into $VENV"
  rm -rf "$VENV"
  if python3 -m venv "$VENV" 2>/dev/null; then
    "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$VERSION"
  else
    # No venv module (Debian without python3-venv): the user's site-packages instead.
    python3 -m pip install -q --user --disable-pip-version-check "schemathesis==$VERSION"
    mkdir -p "$VENV/bin"
    printf '#!/bin/sh\nexec python3 -m schemathesis.cli "$@"\n' > "$VENV/bin/schemathesis"
    chmod +x "$VENV/bin/schemathesis"
  fi
fi

OUT="bench/results/fuzz-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
DIR=$(mktemp -d)
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
SECRET=$(python3 -c 'import secrets; print(secrets.token_hex(24))')

env DATABASE_URL="sqlite://$DIR/fuzz.db" STOA_DATA_DIR="$DIR" STOA_ADDR="127.0.0.1:$PORT" \
  STOA_PUBLIC_URL="$BASE" STOA_SECRET_KEY="$SECRET" STOA_LOG=warn STOA_LOG_FORMAT=json \
  STOA_AUTH_RATE_BURST=1000000 STOA_AUTH_ACCOUNT_RATE=1000000 STOA_AUTH_FAILURES=1000000 \
  STOA_AUTH_SLOW_AFTER=1000000 STOA_FORM_RATE=1000000 STOA_CHAT_RATE=1000000 \
  STOA_WEBHOOK_RATE=1000000 STOA_FETCH_TIMEOUT=2 STOA_REQUEST_TIMEOUT=10 \
  "$BIN" serve > "$OUT/server.log" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT

for _ in $(seq 1 100); do
  curl -sf "$BASE/ready" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -sf "$BASE/ready" >/dev/null || { echo "the server did not start:" >&2; cat "$OUT/server.log" >&2; exit 1; }

# A signed-in user (registration answers its tokens).
JWT=$(curl -sf -H 'content-type: application/json' \
  -d '{"login":"fuzz-user@example.com","password":"fuzz-password-123"}' \
  "$BASE/api/rbac/subjects/authentication/email-and-password/registration" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["jwt"])')

status=0
run() {
  local role=$1
  shift
  echo "== fuzzing as $role for ${PER_ROLE}s"
  "$VENV/bin/schemathesis" run "$BASE/api/openapi.json" \
    --checks not_a_server_error \
    --phases examples,coverage,fuzzing \
    --max-time "$PER_ROLE" \
    --workers 2 \
    --request-timeout 15 \
    --suppress-health-check all \
    --warnings off \
    --report junit --report-dir "$OUT/$role" \
    "$@" || true
  # Failed checks (a 5xx) fail the run. Errors of the tool itself (a generator that cannot draw
  # for a schema, Hypothesis's flakiness guard) are reported, not counted: a crash of the server
  # shows as a failed check, a dead process or a log line below.
  python3 - "$OUT/$role" "$role" <<'PY' || status=1
import glob, sys, xml.etree.ElementTree as ET
root = ET.parse(sorted(glob.glob(sys.argv[1] + "/*.xml"))[-1]).getroot()
failures = int(root.get("failures", 0))
errors = int(root.get("errors", 0))
print(f"{sys.argv[2]}: {root.get('tests')} operations, {failures} failed checks, {errors} tool errors")
for case in root.iter("testcase"):
    for f in case.findall("failure"):
        print(f"  FAILED {case.get('name')}: {(f.text or '').strip()[:400]}")
    for e in case.findall("error"):
        print(f"  tool error at {case.get('name')}: {(e.text or '').strip().splitlines()[0]}")
sys.exit(1 if failures else 0)
PY
}
run anonymous
run user -H "Authorization: Bearer $JWT"
run admin -H "X-RBAC-SECRET-KEY: $SECRET"

if ! kill -0 "$PID" 2>/dev/null || ! curl -sf "$BASE/ready" >/dev/null; then
  echo "the server is down after fuzzing" >&2
  status=1
fi
# A 5xx is also logged; a bug (500) is logged at ERROR with its request id.
if grep -q '"level":"ERROR"' "$OUT/server.log"; then
  echo "the server logged errors:" >&2
  grep '"level":"ERROR"' "$OUT/server.log" | head -20 >&2
  status=1
fi
echo "reports: $OUT"
exit $status
