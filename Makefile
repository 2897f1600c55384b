# Stoa — the two commands that matter: `make run` and `make test`.
CARGO ?= cargo
STOA_ADDR ?= 127.0.0.1:8080

NPM ?= npm
WEB_STAMP := web/node_modules/.installed

.PHONY: run build release web web-deps test test-build fmt lint test-rust test-web fuzz fuzz-short chromium nginx s3-server tools prefetch bench clean-test-dbs help

help:
	@echo "make run   - release build, serve on SQLite (./data/stoa.db) at http://$(STOA_ADDR)"
	@echo "make test  - every suite: fmt, clippy, unit + integration tests (SQLite, and PostgreSQL when STOA_TEST_POSTGRES_URL is set),"
	@echo "             web: API types current, tsc, oxlint, Vitest, build, first-load JS budget, Playwright end-to-end in Chromium,"
	@echo "             generated API clients (Python, two TypeScript) against a real stoa, redocly lint"
	@echo "make bench - load benchmarks (see docs/benchmarks.md)"
	@echo "make fuzz  - schemathesis over the whole API as anonymous, user and admin (FUZZ_SECONDS per role, default 300)"

# The demo site ('for planet') is loaded on first start; later starts keep what is there.
run: release web
	./target/release/stoa seed --demo
	STOA_ADDR=$(STOA_ADDR) STOA_WEB_DIR=web/dist ./target/release/stoa serve

release:
	$(CARGO) build --release -p stoa-server

build:
	$(CARGO) build --workspace

test: fmt test-build test-rust test-web fuzz-short

# `make test` lints while it compiles: clippy-driver wraps rustc for the workspace's own crates,
# so the one compilation the tests need also runs every clippy lint, warnings denied. A separate
# `cargo clippy` type-checked all ~600 crates a second time (~170 s of CI's 2 cores); the lints
# themselves add ~25 s to the build. Incremental compilation only slows a build from scratch.
# The same settings reach every cargo command `make test` runs (target-specific variables are
# inherited by prerequisites), so none of them rebuilds what another built. `make lint` is the
# plain `cargo clippy` run, for use on its own.
TEST_ENV := test test-build
$(TEST_ENV): export RUSTC_WORKSPACE_WRAPPER := clippy-driver
$(TEST_ENV): export CLIPPY_ARGS := -D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
$(TEST_ENV): export CARGO_INCREMENTAL := 0

# Every test binary, compiled and linted (`.ci/run` runs this while downloads finish).
test-build: tools
	$(CARGO) nextest run --workspace --no-run

# schemathesis (PyPI) over every operation of the API as anonymous, user and admin; fails on a 5xx
# or an ERROR logged (bench/fuzz.sh). `make fuzz`: a release build, FUZZ_SECONDS (300) per role;
# `make test` runs a short pass on the debug build.
fuzz: release
	bench/fuzz.sh

fuzz-short:
	$(CARGO) build -p stoa-server --bin stoa
	FUZZ_SECONDS=20 STOA_BIN=target/debug/stoa bench/fuzz.sh

# npm packages, installed from the lockfile when it changes.
$(WEB_STAMP): web/package.json web/package-lock.json
	# `npm install` (not `ci`): npm 11 leaves other platforms' optional binaries out of the lockfile, and
	# `ci` then refuses it. Versions are pinned exactly in package.json.
	cd web && $(NPM) install --no-audit --no-fund
	@touch $@

web-deps: $(WEB_STAMP)

web: web-deps
	cd web && $(NPM) run build

# Debian's Chromium for the end-to-end suite.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; }

test-web: web-deps chromium
	$(CARGO) build -p stoa-server --bin stoa -p stoa-fakes --bin stoa-fakes
	# The checks that need nothing of each other, side by side (each is mostly one Node process);
	# then Vitest, which uses every core itself and waits on the clock in places.
	cd web && STOA_BIN=../target/debug/stoa node scripts/checks.mjs kind:check build typecheck api:check lint
	cd web && $(NPM) run budget
	cd web && $(NPM) test
	cd web && STOA_BIN=../target/debug/stoa $(NPM) run e2e
	# The API as integrators meet it: redocly lint, then clients generated with openapi-python-client,
	# @hey-api/openapi-ts and orval, type-checked and run through a scenario against a real stoa.
	cd web && STOA_BIN=../target/debug/stoa ./scripts/clients/run.sh

fmt:
	$(CARGO) fmt --all -- --check

lint: fmt
	$(CARGO) clippy --workspace --all-targets -- -D warnings

tools:
	@command -v cargo-nextest >/dev/null 2>&1 || env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS $(CARGO) install cargo-nextest --locked

# Debian's nginx: the two-instance test (crates/server/tests/cluster.rs) runs two stoa behind it.
nginx:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
	  echo "installing Debian's nginx"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends nginx; }

# moto (PyPI): the local S3-compatible server the file-storage tests start.
s3-server:
	@python3 -c "import moto.server, flask" >/dev/null 2>&1 || { \
	  echo "installing moto[server] (a local S3-compatible server for the file tests)"; \
	  python3 -m pip install -q --disable-pip-version-check 'moto[server]==5.2.1'; }

# Everything `make test` downloads (apt, npm, PyPI), without compiling: .ci/run fetches it while
# the Rust code compiles.
prefetch: nginx chromium web-deps s3-server

test-rust: tools s3-server nginx web-deps
	@if [ -n "$$STOA_TEST_POSTGRES_URL" ]; then echo "integration suites: SQLite and PostgreSQL ($$STOA_TEST_POSTGRES_URL)"; else echo "integration suites: SQLite only (set STOA_TEST_POSTGRES_URL for PostgreSQL)"; fi
	$(CARGO) nextest run --workspace --no-fail-fast
	$(CARGO) test --workspace --doc

bench: release
	./bench/api.sh

# Drops test databases a killed test run may have left behind.
clean-test-dbs:
	@psql "$${STOA_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}" -Atc "select datname from pg_database where datname like 'stoa_t_%'" | while read d; do psql "$${STOA_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}" -qc "drop database $$d with (force)"; done
