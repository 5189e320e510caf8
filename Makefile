# `make demo` and `make test` each set up .venv on a fresh machine, then run.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_WORKERS ?= 2

.PHONY: demo test test-slow lint bench clean

$(STAMP): pyproject.toml setup.py sdpkern/_svmcore.pyx
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,plot]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/sdpkern demo

test: $(STAMP)
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --durations=15 tests --doctest-modules sdpkern

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

lint: $(STAMP)
	$(VENV)/bin/ruff check sdpkern tests examples
	$(VENV)/bin/mypy sdpkern

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
