# Two commands set up a fresh machine: `make demo` and `make test` (each creates .venv when missing).
PYTHON ?= python3
VENV := .venv
UV_VERSION := 0.13.9
BIN := $(VENV)/bin
WORKDIR ?= .automl
DEMO_INSTRUCTION ?= Build a model to predict customer churn. F1 should be at least 0.55 and one prediction must take under 10 ms.

.PHONY: setup system-packages demo test test-fast bench autogluon clean

$(BIN)/automl-agent: pyproject.toml uv.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv==$(UV_VERSION)
	# torch first, through pip: the CPU build (2.13.0) lies on this machine's disk, where uv does not look;
	# an unpinned torch would pull GBs of CUDA packages.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	# every other package at the version uv.lock holds (--locked: a pyproject.toml changed without `uv lock` stops
	# here), torch and its CUDA libraries left out; then the project itself.
	$(BIN)/uv export --quiet --locked --extra dev --no-emit-project --no-hashes --prune torch -o $(VENV)/requirements.lock.txt
	# --compile-bytecode: machines that set PYTHONDONTWRITEBYTECODE would otherwise recompile every import on
	# every command (about 7 s per `automl-agent run`).
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -r $(VENV)/requirements.lock.txt
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python --no-deps -e .
	$(BIN)/python -m compileall -q automl_agent > /dev/null
	touch $(BIN)/automl-agent

setup: $(BIN)/automl-agent system-packages

# Debian packages, installed when this is a Debian/Ubuntu machine and we are root; never fatal.
# bubblewrap isolates the generated training scripts (network, PIDs, filesystem); without it the runs fall back to
# the audit-hook guard and say so. chromium is the browser the demo-page tests drive (playwright's own download
# is never used); without it those tests cannot run.
system-packages:
	@missing=""; command -v bwrap > /dev/null || missing="bubblewrap"; \
	command -v chromium > /dev/null || missing="$$missing chromium"; \
	if [ -n "$$missing" ]; then \
		{ [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null \
			&& { apt-get update -qq > /dev/null 2>&1; apt-get install -y -qq $$missing > /dev/null 2>&1; }; } \
		|| echo "note: could not install$$missing (apt-get install$$missing): training scripts run under the guard only without bubblewrap, and the browser tests need chromium"; \
	fi

demo: setup
	$(BIN)/automl-agent --workdir $(WORKDIR) run "$(DEMO_INSTRUCTION)" --data automl_agent/datasets/churn.csv

# two test processes, each test file whole on one of them (a file's tests share its real runs), longest first
# (tests/conftest.py, tests/file_seconds.json), never re-sorted by test count. Three processes were tried once and
# showed no gain: the sandboxed trainings and servers kept both cores busy (load average about 5)
test: setup
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder

test-fast: setup
	$(BIN)/python -m pytest -q -m "not integration and not e2e"

bench: setup
	$(BIN)/python benchmarks/foundation.py

# AutoGluon as a bench baseline (`automl-agent bench --baseline autogluon`) lives in an environment of its own: it
# pins pandas below the version automl-agent uses. About 2 GB (CPU torch for its neural models).
AUTOGLUON_VENV := .venv-autogluon
autogluon: $(AUTOGLUON_VENV)/bin/python

$(AUTOGLUON_VENV)/bin/python:
	$(PYTHON) -m venv $(AUTOGLUON_VENV)
	$(AUTOGLUON_VENV)/bin/python -m pip install --quiet --upgrade pip uv
	$(AUTOGLUON_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(AUTOGLUON_VENV)/bin/uv pip install --quiet --python $(AUTOGLUON_VENV)/bin/python \
		"autogluon.tabular[lightgbm,catboost,xgboost,fastai]==1.6.3"

clean:
	rm -rf $(WORKDIR) .pytest_cache
