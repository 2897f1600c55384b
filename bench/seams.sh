#!/usr/bin/env bash
# The counts issue 50 asks for, at a revision (default: the working tree): hand-written JSON object
# schemas, `&Map` parameters, reads of a row by column name, `Result<_, String>`, non-test files
# over 800 lines in crates/modules, and routes per idiom.
#   bench/seams.sh [REV]
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-}
g() { if [ -n "$rev" ]; then git grep -E "$1" "$rev" -- crates/modules; else git grep -E "$1" -- crates/modules; fi; }
count() { g "$1" | grep -v '/tests/' | wc -l; }
echo "hand-written object schemas (json!({\"type\": \"object\"…)): $(count 'json!\(\{"type": "object"')"
echo "&Map parameters: $(count ': &(serde_json::)?Map<String, Value>')"
echo "reads by column name (.text/.int/.uuid/.json/.bool(\"…\") with one argument; a form builder's .text(\"Field\", v) and a declaration's ..int(\"number\") are not): $(count '[^.]\.(text|int|uuid|json|bool|decimal|timestamp)\("[^"]*"\)')"
echo "Result<_, String>: $(count 'Result<[^<>]*, String>')"
echo "typed routes (.endpoint(…) and .endpoint_replying(…)): $(count '\.endpoint(_replying)?\(')"
echo "custom(…) operations: $(count '\bcustom\($')"
over=0
for f in $( (if [ -n "$rev" ]; then git ls-tree -r --name-only "$rev" -- crates/modules; else git ls-files crates/modules; fi) | grep '\.rs$' | grep -v '/tests/'); do
  n=$( (if [ -n "$rev" ]; then git show "$rev:$f"; else cat "$f"; fi) | wc -l)
  if [ "$n" -gt 800 ]; then over=$((over + 1)); echo "  over 800: $f ($n)"; fi
done
echo "files over 800 lines: $over"
# Functions over 80 lines (at the working tree only).
if [ -z "$rev" ]; then python3 bench/fn-lengths.py; fi
# The web's layers (at the working tree only: it reads web/src).
if [ -z "$rev" ]; then node bench/web-seams.mjs; fi
