# webcrawler: `make demo` shows it working, `make test` is what CI runs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
CYTOSCAPE_VERSION := 3.34.4
# pytest-xdist workers for the tests not marked wallclock (chosen by measurement on 2 cores:
# BENCHMARKS.md, "Test suite"); 0 runs every test in one process.
TEST_WORKERS ?= 3
CYTOSCAPE := webcrawler/workbench/static/vendor/cytoscape.min.js

.PHONY: install test lint docs demo serve bench bench-report clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP) $(CYTOSCAPE)  ## create .venv and install the package with its test tools

# Optional: without npm (or the registry) the workbench works without its graph and says how to
# get it, its graph tests skip that piece, and this says so in one line instead of failing.
$(CYTOSCAPE):  ## the workbench's graph library, from the npm registry (served by the app, never a CDN)
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: the Workbench's graph (cytoscape.js) is left out; apt-get install npm, then make install" >&2; \
	elif mkdir -p build/npm $(dir $(CYTOSCAPE)) \
	  && (cd build/npm && npm pack --silent cytoscape@$(CYTOSCAPE_VERSION) >/dev/null) \
	  && tar -xzf build/npm/cytoscape-$(CYTOSCAPE_VERSION).tgz -C build/npm package/dist/cytoscape.min.js \
	  && cp build/npm/package/dist/cytoscape.min.js $@.part && mv $@.part $@; then :; \
	else \
	  rm -f $@.part; \
	  echo "npm could not fetch cytoscape@$(CYTOSCAPE_VERSION): the Workbench's graph is left out; make install again when the registry answers" >&2; \
	fi

# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: without the cache every pytest
# process, each worker and each command a test starts compiles the same modules again.
test: export PYTHONDONTWRITEBYTECODE :=
# The wall-clock tests run after the others, side by side only with each other: they mostly
# wait (a deadline, a delay), so they leave each other the cores that their timing needs.
test: $(STAMP) $(CYTOSCAPE)  ## run every test: most in parallel, then the wall-clock ones
ifeq ($(TEST_WORKERS),0)
	$(PY) -m pytest -q
else
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m 'not wallclock'
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist load -m wallclock
endif

lint: $(STAMP)  ## ruff, and mypy over webcrawler/ (configured in pyproject.toml)
	$(VENV)/bin/ruff check webcrawler tests bench examples
	$(VENV)/bin/mypy

docs: $(STAMP)  ## docs/configuration.md's settings tables, generated from the settings tables (webcrawler/settings/)
	$(PY) -m webcrawler.config.docs

demo: $(STAMP) $(CYTOSCAPE)  ## crawl a local demo web, index it, serve the search page (and a working workbench)
	$(VENV)/bin/webcrawler demo

serve: $(STAMP)  ## serve the index in ./webcrawler-data
	$(VENV)/bin/webcrawler serve

bench-report: $(STAMP) $(CYTOSCAPE)  ## re-run the quick benchmarks into bench/results/, render BENCHMARKS.md from them
	$(PY) -m bench.run_all

bench: bench-report  ## the same (long benchmarks run alone: see BENCHMARKS.md for their commands)

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
