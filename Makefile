# `make demo` and `make test` each set up .venv on a fresh machine, then run.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST_WORKERS ?= 2

.PHONY: demo test test-slow lint check-wheel docs docs-check bench clean

$(STAMP): pyproject.toml setup.py sdpkern/_svmcore.pyx sdpkern/_hkcore.pyx sdpkern/_newtoncore.pyx
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,plot,solvers]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/sdpkern demo

test: $(STAMP)
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --durations=15 tests --doctest-modules sdpkern

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

lint: $(STAMP)
	$(VENV)/bin/ruff check sdpkern tests examples docs/conf.py docs/sphinxext
	$(VENV)/bin/mypy sdpkern

DOCS_STAMP := $(VENV)/.docs-installed

$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[test,plot,solvers,docs]'
	touch $(DOCS_STAMP)

# The docs site (docs/_build/html): API reference from the docstrings, the README's sections and
# docs/*.md as pages, every example run for the gallery; warnings are errors. Built afresh, so
# the site holds only what this build wrote.
docs: $(DOCS_STAMP)
	rm -rf docs/_build/html docs/auto_examples docs/gen_modules docs/generated docs/sg_execution_times.rst
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

# Check the built site: index.html and a gallery page per example exist, every internal link and
# anchor resolves, no page loads a script from the network (docs/sphinxext/check_site.py).
docs-check:
	$(PY) docs/sphinxext/check_site.py docs/_build/html --examples examples

# Build the wheel, install it into a fresh venv, run `sdpkern list/inspect/solve/demo --quick`
# from outside the source tree (what CI does).
check-wheel:
	bash .ci/check-wheel $(PYTHON)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache docs/_build docs/api.rst docs/generated docs/gen_modules docs/auto_examples docs/sg_execution_times.rst
