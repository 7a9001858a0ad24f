# webcrawler: `make demo` shows it working, `make test` is what CI runs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test lint demo serve bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install the package with its test tools

test: $(STAMP)  ## run every test
	$(PY) -m pytest -q

lint: $(STAMP)  ## ruff
	$(VENV)/bin/ruff check webcrawler tests bench

demo: $(STAMP)  ## crawl a local demo web, index it, serve the search page
	$(VENV)/bin/webcrawler demo

serve: $(STAMP)  ## serve the index in ./webcrawler-data
	$(VENV)/bin/webcrawler serve

bench: $(STAMP)  ## run every benchmark, append the figures to BENCHMARKS.md
	$(PY) -m bench.run_all

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
