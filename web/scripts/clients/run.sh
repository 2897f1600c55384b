#!/usr/bin/env bash
# Generated clients against a real `stoa`: generates API clients from the server's OpenAPI document
# with openapi-python-client, @hey-api/openapi-ts and orval (fetch), lints it with redocly; imports
# every Python module,
# type-checks both TypeScript outputs with `tsc --strict`, and runs the same scenario with each
# (scenario.py, scenario-heyapi.ts, scenario-orval.ts). Any generator output beyond its usual
# progress lines counts as a warning about the document and fails the run.
#
#   cd web && STOA_BIN=../target/debug/stoa ./scripts/clients/run.sh
#
# Needs web's npm packages installed (`npm install` in web/); the Python venv is made here on the
# first run (.venv, from requirements.txt). Output, logs and builds go to .out/ (git-ignored).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
web=$(cd "$here/../.." && pwd)
out="$here/.out"
bin=${STOA_BIN:-$web/../target/debug/stoa}
[[ $bin = /* ]] || bin="$PWD/$bin"
[ -x "$bin" ] || { echo "no stoa binary at $bin (set STOA_BIN)" >&2; exit 2; }
for t in openapi-ts orval tsc redocly; do
  [ -x "$web/node_modules/.bin/$t" ] || { echo "web/node_modules/.bin/$t is missing: run \`npm install --no-audit --no-fund\` in web/" >&2; exit 2; }
done

export NO_COLOR=1 FORCE_COLOR=0
start=$SECONDS
since() { echo "$((SECONDS - start))s"; }

rm -rf "$out"
mkdir -p "$out/logs"
export CLIENTS_OUT="$out"

# --- the Python generator, in its own venv (re-made when requirements.txt changes) ---
venv="$here/.venv"
want=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$want" ]; then
  echo "== python venv: installing requirements.txt"
  rm -rf "$venv"
  python3 -m venv "$venv" &&
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" &&
    echo "$want" >"$venv/.requirements" || { echo "could not install requirements.txt" >&2; exit 2; }
fi
# The generator runs ruff (from the venv) on what it writes.
export PATH="$venv/bin:$PATH"

# --- a stoa on a fresh SQLite database, as web/e2e/harness.mjs starts it ---
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data=$(mktemp -d "${TMPDIR:-/tmp}/stoa-clients-XXXXXX")
base="http://127.0.0.1:$port"
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
  fi
  rm -rf "$data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export DATABASE_URL="sqlite://$data/stoa.db" STOA_DATA_DIR="$data" STOA_ADDR="127.0.0.1:$port" \
  STOA_PUBLIC_URL="$base" STOA_LOG=warn STOA_AUTH_RATE_BURST=1000
export STOA_BASE_URL="$base" STOA_EMAIL="admin@clients.test" STOA_PASSWORD="correct horse battery staple"
"$bin" seed --demo >"$out/logs/seed.log" 2>&1 || { cat "$out/logs/seed.log"; echo "stoa seed --demo failed" >&2; exit 1; }
echo "$STOA_PASSWORD" | "$bin" admin create --email "$STOA_EMAIL" --password-stdin >"$out/logs/admin.log" 2>&1 ||
  { cat "$out/logs/admin.log"; echo "stoa admin create failed" >&2; exit 1; }
"$bin" serve >"$out/logs/stoa.log" 2>&1 &
server=$!
for i in $(seq 1 300); do
  curl -fso /dev/null "$base/ready" && break
  kill -0 "$server" 2>/dev/null || { cat "$out/logs/stoa.log"; echo "stoa serve exited" >&2; exit 1; }
  [ "$i" = 300 ] && { cat "$out/logs/stoa.log"; echo "stoa did not get ready in 30 s" >&2; exit 1; }
  sleep 0.1
done
curl -fsS "$base/api/openapi.json" -o "$out/openapi.json" || { echo "GET /api/openapi.json failed" >&2; exit 1; }
echo "== stoa at $base ($(since)); document: $(wc -c <"$out/openapi.json") bytes"

# --- results ---
declare -a rows=()
problems=0
pass=0
result() { # name ok|FAIL detail
  rows+=("$(printf '%-8s %-4s %s' "$1" "$2" "$3")")
  if [ "$2" = ok ]; then pass=$((pass + 1)); else problems=$((problems + 1)); fi
}

# Runs a generator; every output line that is not one of its usual progress lines is a warning.
generate() { # name usual-lines-regex command...
  local name=$1 usual=$2
  shift 2
  echo "== $name: generating ($(since))"
  "$@" >"$out/logs/$name-generate.log" 2>&1
  local rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' "$out/logs/$name-generate.log"
  grep -vE "$usual" "$out/logs/$name-generate.log" | grep -vE '^\s*$' >"$out/logs/$name-warnings.log"
  local n
  n=$(wc -l <"$out/logs/$name-warnings.log")
  if [ "$n" -gt 0 ]; then sed 's/^/    | /' "$out/logs/$name-warnings.log"; fi
  if [ $rc -ne 0 ]; then
    result "$name" FAIL "generator exited $rc; $n lines of warnings/errors (logs/$name-generate.log)"
  elif [ "$n" -gt 0 ]; then
    result "$name" FAIL "generated with $n lines of warnings (logs/$name-warnings.log)"
  else
    result "$name" ok "generated without warnings"
  fi
}

# Type-checks (strict) and compiles a TypeScript client with its scenario, then runs the scenario.
typescript() { # name
  local name=$1
  echo "== $name: tsc --strict ($(since))"
  "$web/node_modules/.bin/tsc" -p "$here/tsconfig.$name.json" >"$out/logs/$name-tsc.log" 2>&1
  local rc=$? n
  n=$(grep -c 'error TS' "$out/logs/$name-tsc.log")
  if [ $rc -eq 0 ]; then
    result "$name" ok "tsc --strict: no errors"
  else
    sed 's/^/    | /' "$out/logs/$name-tsc.log" | head -60
    result "$name" FAIL "tsc --strict: $n errors (logs/$name-tsc.log)"
  fi
  echo "== $name: scenario ($(since))"
  if [ -f "$out/build/$name/scenario-$name.js" ]; then
    timeout 60 node "$out/build/$name/scenario-$name.js" 2>&1 | tee "$out/logs/$name-scenario.log"
    local src=${PIPESTATUS[0]}
    if [ "$src" -eq 0 ]; then result "$name" ok "scenario: $(tail -1 "$out/logs/$name-scenario.log")"
    else result "$name" FAIL "scenario exited $src: $(tail -1 "$out/logs/$name-scenario.log")"; fi
  else
    result "$name" FAIL "scenario: not compiled"
  fi
}

# 0. The document itself: redocly's recommended rules, no errors and no warnings.
echo "== redocly lint ($(since))"
"$web/node_modules/.bin/redocly" lint "$out/openapi.json" --format=stylish >"$out/logs/redocly.log" 2>&1
lrc=$?
lint=$(grep -E '^\s+[0-9]+:[0-9]+\s+(error|warning)' "$out/logs/redocly.log")
if [ $lrc -eq 0 ] && [ -z "$lint" ]; then
  result redocly ok "lint: no errors, no warnings"
else
  echo "$lint" | head -40 | sed 's/^/    | /'
  result redocly FAIL "lint exited $lrc; $(echo "$lint" | grep -c .) problems (logs/redocly.log)"
fi

# 1. openapi-python-client
generate python '^Generating ' \
  openapi-python-client generate --path "$out/openapi.json" --output-path "$out/python" --overwrite \
  --config "$here/openapi-python-client.yaml"
echo "== python: imports and scenario ($(since))"
timeout 60 "$venv/bin/python" "$here/scenario.py" 2>&1 | tee "$out/logs/python-scenario.log"
prc=${PIPESTATUS[0]}
if grep -q '^  ok    python: 0 import' "$out/logs/python-scenario.log"; then
  result python ok "$(grep -m1 'imported .* modules' "$out/logs/python-scenario.log" | sed 's/^ *//')"
else
  result python FAIL "not every module imports (logs/python-scenario.log)"
fi
if [ "$prc" -eq 0 ]; then result python ok "scenario: $(tail -1 "$out/logs/python-scenario.log")"
else result python FAIL "scenario exited $prc: $(tail -1 "$out/logs/python-scenario.log")"; fi

# 2. @hey-api/openapi-ts
mkdir -p "$out/build"
echo '{"type": "commonjs"}' >"$out/build/package.json"
generate heyapi '^@hey-api/openapi-ts v[0-9.]+$|\[Job [0-9]+\] ~ Generating\.\.\.$|\[Job [0-9]+\] +\[[0-9]+\] |\[Job [0-9]+\] ✓ .* · [0-9]+ files · ' \
  "$web/node_modules/.bin/openapi-ts" -f "$here/openapi-ts.config.mjs"
typescript heyapi

# 3. orval (fetch)
generate orval '^🍻 orval v[0-9.]+ - A swagger client generator for typescript$|^stoa - 🎉 .* has been converted into ready to use orval!$' \
  "$web/node_modules/.bin/orval" --config "$here/orval.config.mjs"
typescript orval

echo
echo "== generated clients ($(since)); logs in ${out#"$web/"}/logs"
printf '%s\n' "${rows[@]}"
echo "clients: $pass passed, $problems failed"
[ "$problems" -eq 0 ]
