# The project's front door: `make run` serves, `make test` runs every test.
# Both create .venv with what the project needs on first use (Python 3.11+ only).

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-browser test-db lint bench install clean-db

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m service run

test: $(STAMP)
	$(PY) -m pytest -q -n 2 -p no:cacheprovider -m "not browser"

# the reference web client in headless Chromium (installs Debian's chromium if missing)
test-browser: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m browser

# the tests that touch PostgreSQL only (CI runs them again against another server)
test-db: $(STAMP)
	$(PY) -m pytest -q -n 2 -p no:cacheprovider -m "db and not browser"

lint: $(STAMP)
	$(VENV)/bin/ruff check engine service tests bench migrations
	$(VENV)/bin/mypy --strict engine

bench: $(STAMP)
	$(PY) -m bench

clean-db:
	rm -rf .pgdata .pgdata-test
