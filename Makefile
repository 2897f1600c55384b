# Stoa — the two commands that matter: `make run` and `make test`.
CARGO ?= cargo
STOA_ADDR ?= 127.0.0.1:8080

.PHONY: run build release test lint test-rust tools bench clean-test-dbs help

help:
	@echo "make run   - release build, serve on SQLite (./data/stoa.db) at http://$(STOA_ADDR)"
	@echo "make test  - every suite: fmt, clippy, unit + integration tests (SQLite, and PostgreSQL when STOA_TEST_POSTGRES_URL is set)"
	@echo "make bench - load benchmarks (see docs/benchmarks.md)"

run: release
	STOA_ADDR=$(STOA_ADDR) ./target/release/stoa serve

release:
	$(CARGO) build --release -p stoa-server

build:
	$(CARGO) build --workspace

test: lint test-rust

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

tools:
	@command -v cargo-nextest >/dev/null 2>&1 || $(CARGO) install cargo-nextest --locked

test-rust: tools
	@if [ -n "$$STOA_TEST_POSTGRES_URL" ]; then echo "integration suites: SQLite and PostgreSQL ($$STOA_TEST_POSTGRES_URL)"; else echo "integration suites: SQLite only (set STOA_TEST_POSTGRES_URL for PostgreSQL)"; fi
	$(CARGO) nextest run --workspace --no-fail-fast
	$(CARGO) test --workspace --doc

bench: release
	./bench/api.sh

# Drops test databases a killed test run may have left behind.
clean-test-dbs:
	@psql "$${STOA_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}" -Atc "select datname from pg_database where datname like 'stoa_t_%'" | while read d; do psql "$${STOA_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}" -qc "drop database $$d with (force)"; done
