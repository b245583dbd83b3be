# Each target creates the virtual environment it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-dev
PORT   ?= 8765

.PHONY: run test test-fast dist bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## Serve the bundled example tools over MCP, with their web catalog (streamable HTTP on 127.0.0.1; Ctrl+C stops it).
run: $(STAMP)
	@echo "Serving the example tools over MCP at http://127.0.0.1:$(PORT)/mcp and their catalog at http://127.0.0.1:$(PORT)/ - press Ctrl+C to stop."
	$(BIN)/forge-tools serve --transport http --host 127.0.0.1 --port $(PORT)

## Lint, type-check, check the import layers and run the whole test suite.
test: $(STAMP)
	$(BIN)/ruff check src tests bench examples corpora
	$(BIN)/ruff format --check src tests bench examples corpora
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q --cov=forge --cov-report=term-missing:skip-covered --cov-fail-under=90

## The fast part of the suite only (skips the tests marked slow: servers, subprocesses, the corpora, long property runs).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

$(VENV)/.installed-bench: pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $@

## Run the benchmarks against the peers (writes nothing; paste the table into bench/README.md).
bench: $(VENV)/.installed-bench
	$(BIN)/python bench/run_all.py

## Build the wheel into dist/: pip install 'dist/forge_tools-<version>-py3-none-any.whl[mcp]'.
dist: $(BIN)/python
	rm -rf dist
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .coverage build dist
