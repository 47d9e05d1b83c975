# The two commands a new user runs (see README.md):
#   make demo  - set-up, then build -> serve -> check -> sweep -> report on the bundled CPU server
#   make test  - set-up, then the whole test suite (what CI runs)
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test test-unit clean clean-results
setup:
	@bash scripts/setup.sh

demo: setup
	@bash scripts/demo.sh

# --durations=15: the log ends with the times of the 15 slowest tests, so CI shows where the time goes
test: setup
	$(PY) -m pytest --durations=15 $(PYTEST_ARGS)

# the fast tier (under 90 s on 2 cores): no server, no perf_analyzer, no real export, no pip/ruff/mypy/lint-imports
# (tests/support/fast_tier.py fails a test that does one: mark it slow)
test-unit: setup
	$(PY) -m pytest -m "not integration and not slow" $(PYTEST_ARGS)

# clean: what `builders build` made: builds/, the variant folders model_repository/index.json lists and
# index.json; a folder there no build listed (a hand-written model) is kept and named. Sweep results
# (results/) are yours and stay: `make clean-results` deletes them. (python3 when there is no .venv yet)
clean:
	@$(if $(wildcard $(PY)),$(PY),python3) -m builders.repository.clean

clean-results:
	rm -rf results
