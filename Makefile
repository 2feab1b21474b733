# docmunch — project entry points. Every target sets itself up from a fresh clone.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DOCMUNCH_FIXTURES ?= $(abspath ../shared/fixtures)
export DOCMUNCH_FIXTURES
DOCS ?= docs
DEMO_QUERY ?=

.PHONY: help venv venv-test compile test lint demo bench gate report oracle baseline fixtures clean browser

help:
	@echo "make demo [DOCS=path]  index a docs folder, search it, print one verified section (own index: .docmunch-demo/, DEMO_HOME=path)"
	@echo "make test              create .venv with test extras, compile (mypyc); ruff, mypy (strict; tests/ checked too), the whole suite"
	@echo "make compile           compile the hot stages with mypyc (no-op when fresh)"
	@echo "make bench             benchmarks -> reports/bench.json"
	@echo "make gate              extraction quality gate on the 20-page set"
	@echo "make report            reports/extraction.html + .json"
	@echo "make oracle            re-run Readability.js (Chromium) and refresh its cache"
	@echo "make fixtures          fetch/verify the external fixtures named in fixtures/manifest.json"

# The stamp depends on pyproject.toml, so an unchanged checkout re-runs in well under a second.
$(VENV)/.stamp-base: pyproject.toml
	test -x $(PY) || { $(PYTHON) -m venv $(VENV) && $(PY) -m pip install -q --disable-pip-version-check -U 'pip>=25'; }
	$(PY) -m pip install -q --disable-pip-version-check -e '.[compile]'
	touch $@

$(VENV)/.stamp-test: pyproject.toml
	test -x $(PY) || { $(PYTHON) -m venv $(VENV) && $(PY) -m pip install -q --disable-pip-version-check -U 'pip>=25'; }
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	touch $(VENV)/.stamp-base $@

venv: $(VENV)/.stamp-base
	$(PY) scripts/compile.py
venv-test: $(VENV)/.stamp-test

# Chromium (Debian) and the oracle's npm packages, installed only when missing.
browser:
	@bash oracle/setup.sh

# The hot stages compiled with mypyc (docmunch/compiled.py says which, and how it stays honest);
# a no-op when the build is fresh, pure Python (same output) on a machine without a C compiler.
compile: $(VENV)/.stamp-base
	$(PY) scripts/compile.py

test: venv-test compile browser
	$(VENV)/bin/ruff check docmunch oracle tests bench fixtures
	$(VENV)/bin/mypy
	$(PY) -m pytest

lint: venv-test
	$(VENV)/bin/ruff check docmunch oracle tests bench fixtures
	$(VENV)/bin/mypy

demo: venv
	@DOCS="$(DOCS)" DEMO_QUERY="$(DEMO_QUERY)" bash scripts/demo.sh

bench: venv-test compile browser
	$(PY) -m bench

gate: venv-test compile browser
	$(PY) -m oracle gate

report: venv-test compile browser
	$(PY) -m oracle report

oracle: venv-test browser
	$(PY) -m oracle refresh

baseline: venv-test browser
	$(PY) -m oracle baseline

fixtures: venv
	$(PY) fixtures/fetch.py

clean:
	test ! -x $(PY) || $(PY) scripts/compile.py --clean
	rm -rf $(VENV) build reports/*.html reports/*.json .pytest_cache .mypy_cache
