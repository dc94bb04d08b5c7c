# Yoke's two fresh-machine commands: `make demo` and `make test`. Each sets up what it needs on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# Some machines set PYTHONDONTWRITEBYTECODE; then every `yoke` the tests start compiles its ~200 modules
# anew (the suite ran three times slower). Bytecode caching is wanted here.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test lint bench system-deps install venv-broken

# A .venv whose Python is gone, too old, or cannot import yoke (a failed or interrupted setup) is rebuilt
# from scratch; a working one is left alone. Only then is $(PYTHON) itself checked: one line if it is too old.
VENV_OK := $(shell $(PY) -c 'import sys, yoke; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && echo ok)
ifeq ($(VENV_OK),)
ifneq ($(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null),1)
$(error Yoke needs Python 3.11 or newer, and $(PYTHON) is $(or $(shell $(PYTHON) --version 2>&1),not found): install one (e.g. apt-get install python3.11) and run: make PYTHON=python3.11)
endif
endif

# The package alone: all the demo needs.
$(VENV)/.installed: pyproject.toml $(if $(VENV_OK),,venv-broken)
	$(PYTHON) -m venv --clear $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

# Plus what the tests, linters and benchmarks use (pytest, ruff, pypdf, the official Agent SDK).
$(VENV)/.dev-installed: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/yoke demo

# `yoke` on PATH: a link in $(BINDIR) (default ~/.local/bin) to this checkout's .venv/bin/yoke.
BINDIR ?= $(HOME)/.local/bin
install: $(VENV)/.installed
	@mkdir -p $(BINDIR) && ln -sf $(abspath $(VENV))/bin/yoke $(BINDIR)/yoke
	@echo "linked $(BINDIR)/yoke -> $(abspath $(VENV))/bin/yoke"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "$(BINDIR) is not on your PATH; add it: export PATH=\"$(BINDIR):\$$PATH\"";; esac

# Debian packages the test suite drives for real (bubblewrap for the sandbox, git, tmux for the terminal UI,
# openssl for a TLS server's certificate); installed when missing and root.
system-deps:
	@missing=""; \
	command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	command -v git >/dev/null 2>&1 || missing="$$missing git"; \
	command -v jq >/dev/null 2>&1 || missing="$$missing jq"; \
	command -v tmux >/dev/null 2>&1 || missing="$$missing tmux"; \
	command -v openssl >/dev/null 2>&1 || missing="$$missing openssl"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing:$$missing"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null \
			|| echo "warning: could not install$$missing; tests that need them will be skipped"; \
	fi

# The npm language server the LSP tests drive (tests/lsp), in a folder of the checkout's own, never global;
# the tests that need it skip with a reason when npm is missing or the install failed.
NODE_DIR := $(VENV)/node
$(NODE_DIR)/.installed:
	@if command -v npm >/dev/null 2>&1; then \
		mkdir -p $(NODE_DIR) && cd $(NODE_DIR) && { [ -f package.json ] || echo '{"private": true}' > package.json; } && \
		npm install --no-audit --no-fund --silent typescript-language-server@5 typescript@5 >/dev/null 2>&1 \
			&& touch .installed || echo "warning: npm install of typescript-language-server failed; its tests will be skipped"; \
	else echo "npm not found: the TypeScript language server tests will be skipped"; fi

# axe-core, the accessibility checker the remote page's tests inject through Playwright (tests/host);
# they skip with a reason when it is absent.
$(NODE_DIR)/.axe-installed:
	@if command -v npm >/dev/null 2>&1; then \
		mkdir -p $(NODE_DIR) && cd $(NODE_DIR) && { [ -f package.json ] || echo '{"private": true}' > package.json; } && \
		npm install --no-audit --no-fund --silent axe-core@4 >/dev/null 2>&1 \
			&& touch .axe-installed || echo "warning: npm install of axe-core failed; the accessibility tests will be skipped"; \
	else echo "npm not found: the accessibility tests will be skipped"; fi

# Three pytest-xdist workers: most tests wait on a `yoke` process or the scripted server, so three keep two
# cores busy (tests sharing something global carry an `xdist_group` mark; loadgroup runs each group on one
# worker). `make test PYTEST_WORKERS=0` runs serially.
PYTEST_WORKERS ?= 3
test: $(VENV)/.dev-installed system-deps $(NODE_DIR)/.installed $(NODE_DIR)/.axe-installed
	$(PY) -m pytest -q $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadgroup)

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check src tests benchmarks scripts
	$(VENV)/bin/ruff format --check src tests benchmarks scripts
	$(VENV)/bin/lint-imports --config .importlinter
	$(PY) scripts/check_json_parsing.py
	$(PY) scripts/check_spawn.py
	$(PY) scripts/check_types.py

bench: $(VENV)/.dev-installed
	$(PY) benchmarks/bench_targets.py
	$(PY) benchmarks/bench_startup.py
	$(PY) benchmarks/bench_warm.py
	$(PY) benchmarks/run.py
	$(PY) benchmarks/bench_prefix.py
	$(PY) benchmarks/bench_edit.py
	$(PY) benchmarks/bench_grep.py
	$(PY) benchmarks/bench_schedule.py
	$(PY) benchmarks/bench_agents.py
	$(PY) benchmarks/bench_sdk.py
	$(PY) benchmarks/bench_recall.py
	$(PY) benchmarks/bench_checkpoints.py
	$(PY) benchmarks/bench_ledger.py
	$(PY) benchmarks/bench_skills.py
	$(PY) benchmarks/bench_ui.py
	$(PY) benchmarks/bench_mcp.py
	$(PY) benchmarks/bench_sandbox.py
	$(PY) benchmarks/bench_batch.py
	$(PY) benchmarks/bench_host.py
	$(PY) benchmarks/bench_terminal_link.py
	$(PY) benchmarks/bench_remote.py
	$(PY) benchmarks/bench_notify.py
	$(PY) benchmarks/bench_otel.py
	$(PY) benchmarks/bench_lsp.py
