# The two commands a new user runs (see README.md):
#   make demo  - set-up, then build -> serve -> check -> sweep -> report on the bundled CPU server
#   make test  - set-up, then the whole test suite (what CI runs)
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test test-unit clean
setup:
	@bash scripts/setup.sh

demo: setup
	@bash scripts/demo.sh

test: setup
	$(PY) -m pytest $(PYTEST_ARGS)

# no server, no perf_analyzer, no cnn/encoder exports (under 90 s); the import-layering check included
test-unit: setup
	$(PY) -m pytest -m "not integration and not slow" $(PYTEST_ARGS)

clean:
	rm -rf builds results model_repository/*/ model_repository/index.json
