#!/usr/bin/env bash
# `stoa import sps` at scale (issue 53): the test fixture (every SPS table) plus N articles, each in a
# category, imported by a release `stoa` into SQLite, then PostgreSQL: the first run's wall time,
# rows per second and peak RSS, then a second run's (nothing to write: every row unchanged).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-20000}
PG_ADMIN=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
BASE=${PG_ADMIN%/*}
BIN=./target/release/stoa
[ -x "$BIN" ] || cargo build --release -p stoa-server --bin stoa
SPS=sps_bench_import
TARGET=stoa_bench_import
DIR=$(mktemp -d)
drop() { psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $1 WITH (FORCE)" >/dev/null 2>&1 || true; }
cleanup() { rm -rf "$DIR"; drop "$SPS"; drop "$TARGET"; }
trap cleanup EXIT
drop "$SPS"
psql "$PG_ADMIN" -qc "CREATE DATABASE $SPS"
psql "$BASE/$SPS" -q -v ON_ERROR_STOP=1 -f crates/server/tests/data/sps/schema.sql -f crates/server/tests/data/sps/rows.sql
psql "$BASE/$SPS" -q -v ON_ERROR_STOP=1 <<SQL
INSERT INTO sps_blog_article (id, created_at, updated_at, admin_title, slug, title, subtitle, description)
SELECT gen_random_uuid(), now() - (g || ' minutes')::interval, now(), 'Bench article ' || g, 'bench-article-' || g,
  jsonb_build_object('en', 'Bench article ' || g, 'ru', 'Статья ' || g), '{}'::jsonb,
  jsonb_build_object(
    'en', '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Trees and forests, part ' || g || '."}]}]}',
    'ru', '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Деревья и леса, часть ' || g || '."}]}]}')
FROM generate_series(1, $N) g;
INSERT INTO sps_blog_cs_to_as_d3r (id, order_index, cy_id, ae_id)
SELECT gen_random_uuid(), 0, (SELECT id FROM sps_blog_category ORDER BY id LIMIT 1), a.id
FROM sps_blog_article a WHERE a.slug LIKE 'bench-article-%';
SQL
ROWS=$(psql "$BASE/$SPS" -Atc "SELECT sum((xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I', table_name), false, true, '')))[1]::text::int) FROM information_schema.tables WHERE table_schema = 'public'")
echo "SPS rows: $ROWS (N=$N articles and their category links on top of the fixture)"
# Runs the import into $1; prints its wall time, rows/s and the peak RSS of the process.
run() {
  python3 - "$1" "$ROWS" "$BIN" "$BASE/$SPS" "$DIR" <<'PY'
import os, resource, subprocess, sys, time, json
url, rows, binary, sps, data = sys.argv[1:]
env = dict(os.environ, DATABASE_URL=url, STOA_DATA_DIR=data, STOA_LOG="warn",
           STOA_JWT_SECRET="bench-import-secret-of-32-bytes-long!")
t = time.monotonic()
r = subprocess.run([binary, "import", "sps", "--from", sps, "--files", "crates/server/tests/data/sps/files", "--json"],
                   env=env, capture_output=True, text=True)
took = time.monotonic() - t
if r.returncode != 0:
    sys.exit(r.stderr)
report = json.loads(r.stdout)
written = sum(t["created"] + t["updated"] for t in report["tables"])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"  {took:6.1f} s, {int(rows) / took:7.0f} rows read/s, {written} written, peak RSS {peak:.0f} MiB")
PY
}
echo "## SQLite"
echo " first run:"; run "sqlite://$DIR/stoa.db"
echo " second run:"; run "sqlite://$DIR/stoa.db"
drop "$TARGET"; psql "$PG_ADMIN" -qc "CREATE DATABASE $TARGET"
rm -rf "$DIR/files"
echo "## PostgreSQL"
echo " first run:"; run "$BASE/$TARGET"
echo " second run:"; run "$BASE/$TARGET"
