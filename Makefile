# The project's front door: `make run` serves, `make test` runs the service's tests.
# Both create .venv with what the project needs on first use (Python 3.11+ only).

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-browser test-db test-pooler lint lint-openapi client bench install clean-db stop-db \
	solver-lib pgbouncer nats-server test-tools

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# Freecell Solver's library (solver-lib) makes hints fast and exact in three of the games:
# installed when missing and we are root, else the engine's own solver answers
run: $(STAMP) solver-lib
	$(PY) -m service run

test: $(STAMP) solver-lib pgbouncer nats-server
	$(PY) -m pytest -q -n 2 -p no:cacheprovider -m "not browser"

# the deal tables' tools (tools/deal_tables): the prover is compiled with gcc, which the
# tests need (CI runs them; `make test` does not)
test-tools: $(STAMP)
	$(PY) -m pytest -q -n 2 -p no:cacheprovider tools/deal_tables/tests

# PgBouncer (Debian), which tests/api/contract/test_pooler.py (and test-pooler) run in front of the
# tests' PostgreSQL: installed here when missing and we are root; as root, the tests fail
# without it, otherwise they are skipped with the reason
pgbouncer:
	@command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && apt-get install -y -qq pgbouncer) >/dev/null 2>&1 \
	      || echo "could not install pgbouncer: tests/api/contract/test_pooler.py will fail"; \
	  else echo "pgbouncer is not installed (apt-get install pgbouncer): the pooler tests are skipped"; fi; }

# the broker of EVENTS_BROKER's tests (tests/api/live/test_stream_broker.py)
nats-server:
	@command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && apt-get install -y -qq nats-server) >/dev/null 2>&1 \
	      || echo "could not install nats-server: the broker's tests are skipped"; \
	  else echo "nats-server is not installed (apt-get install nats-server): the broker's tests are skipped"; fi; }

# the API, live-event, race and fault tests again, every service instance behind a
# pgbouncer in transaction mode (DATABASE_POOLER=transaction, the listener direct)
test-pooler: $(STAMP) solver-lib pgbouncer
	TEST_POOLER=pgbouncer $(PY) -m pytest -q -n 2 -p no:cacheprovider -m "db and not browser" \
	  tests/api tests/faults

# Freecell Solver's library and binary (Debian), the fast path for hints and the tests'
# oracle: installed here when missing and we are root; the service works without them
solver-lib:
	@for lib in /usr/lib/libfreecell-solver.so.0 /usr/lib/*/libfreecell-solver.so.0; do [ -e "$$lib" ] && exit 0; done; { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && apt-get install -y -qq libfreecell-solver0 freecell-solver-bin) >/dev/null 2>&1 \
	      || echo "could not install Freecell Solver; hints use the engine's solver only"; \
	  else echo "Freecell Solver's library is not installed (apt-get install libfreecell-solver0)"; fi; }

# the reference web client in headless Chromium: Debian's chromium (installed here when
# missing and we are root), driven by Playwright (no browser download)
test-browser: $(STAMP)
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else echo "test-browser needs Debian's chromium: sudo apt-get install chromium"; exit 1; fi; }
	$(PY) -m pip install --quiet -e '.[dev,browser]'
	$(PY) -m pytest -q -p no:cacheprovider -m browser tests/browser

# the tests that touch PostgreSQL only (CI runs them again against another server)
test-db: $(STAMP)
	$(PY) -m pytest -q -n 2 -p no:cacheprovider -m "db and not browser"

lint: $(STAMP)
	$(VENV)/bin/ruff check engine service tests bench migrations tools
	$(VENV)/bin/mypy --strict engine

# typed clients generated from openapi.yaml into build/client: Python (openapi-python-client,
# with .venv/bin on PATH so that its ruff post-hooks run; docs/client-guide.md) and, where
# Node is present, TypeScript types (openapi-typescript, from the npm registry)
client: $(STAMP)
	rm -rf build/client && mkdir -p build/client
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/openapi-python-client generate \
	  --path openapi.yaml --config openapi-client.yaml --meta none \
	  --output-path build/client/solitaire_client --overwrite
	@if command -v npx >/dev/null; then \
	  npx --yes openapi-typescript@7 openapi.yaml --output build/client/solitaire.d.ts; \
	else echo "no Node.js: the TypeScript types are skipped"; fi

# openapi.yaml against Redocly's recommended rules (npm registry; not part of CI)
lint-openapi:
	npx --yes @redocly/cli@latest lint openapi.yaml

# wrk (Debian) is the load generator of the move benchmark, valgrind counts the
# instructions benchmark's: installed here when missing and we are root
bench: $(STAMP) solver-lib
	@command -v wrk >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && apt-get install -y -qq wrk) >/dev/null 2>&1 \
	      || echo "could not install wrk: the move benchmark is skipped"; \
	  else echo "wrk is not installed (apt-get install wrk): the move benchmark is skipped"; fi; }
	@command -v valgrind >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && apt-get install -y -qq valgrind) >/dev/null 2>&1 \
	      || echo "could not install valgrind: the instructions benchmark is skipped"; \
	  else echo "valgrind is not installed (apt-get install valgrind): the instructions benchmark is skipped"; fi; }
	@$(MAKE) --no-print-directory pgbouncer
	$(PY) -m bench

# the embedded servers keep running when a command ends (the next one finds them at once)
stop-db:
	@for d in .pgdata .pgdata-test .pgdata-bench; do \
	  [ ! -e "$$d/postmaster.pid" ] || DATA_DIR=$$d $(PY) -m service stop-db; done

clean-db: stop-db
	rm -rf .pgdata .pgdata-test .pgdata-bench .pgdata-outage .pgdata-failover
