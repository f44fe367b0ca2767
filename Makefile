# The two commands: `make demo` and `make test`. Everything else is a step of them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
RUNTIME := $(VENV)/.installed-runtime

.PHONY: demo test setup runtime system-deps bots lint typecheck pytest bench clean

# The demo needs arena and its runtime dependencies only (no linters, type checker or
# test tools): `make test` adds those to the same virtual environment.
demo: runtime system-deps bots
	$(BIN)/arena league demo/league.toml

test: setup system-deps bots lint typecheck pytest

runtime: $(RUNTIME)

setup: $(STAMP)

$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	# Bots run with PYTHONDONTWRITEBYTECODE: compile the helper once here (as a wheel's
	# install does), or every Python bot compiles protocol/bot.py at every start.
	$(BIN)/python -m compileall -q protocol
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Debian packages the tests need (a C msgpack library, bubblewrap). As root they are
# installed; otherwise the script says what is missing.
system-deps:
	scripts/system-deps.sh

# Build every starter kit that has a build step.
bots: runtime
	scripts/build-bots.sh

lint: setup
	$(BIN)/ruff check arena protocol tests bench example_bots
	$(BIN)/ruff format --check arena protocol tests bench example_bots

typecheck: setup
	$(BIN)/mypy

# The slowest tests are listed at the end. The tests wait on bot processes, clusters
# and timeouts far more than they compute: a worker per core (pytest-xdist) halved the
# suite's time (measured on 2 cores: 6.5 minutes against 11), and twice as many (half
# as many again took 9:12 of pytest in a clean clone, over the 10 minutes in all), each
# taking the next test as it is free (worksteal), keep the cores busy while tests
# wait. Every test passes on a loaded machine (two CPU hogs on 2 cores).
pytest: setup
	$(BIN)/pytest -q -n $$(( $$(nproc) * 2 )) --dist worksteal --durations=12

# Benchmarks run with bytecode cached: under PYTHONDONTWRITEBYTECODE every fresh
# process would compile arena again, which is not what a user's runs cost.
BENCH = env -u PYTHONDONTWRITEBYTECODE $(BIN)/python

bench: setup bots
	$(BENCH) bench/rules.py
	$(BENCH) bench/referee.py
	$(BENCH) bench/league.py
	$(BENCH) bench/cluster.py
	$(BENCH) bench/large_league.py
	$(BENCH) bench/ratings.py
	$(BENCH) bench/bootstrap_coverage.py
	$(BENCH) bench/report.py
	$(BENCH) bench/places_csv.py
	$(BENCH) bench/standings.py
	$(BENCH) bench/export.py
	$(BENCH) bench/sprt.py
	$(BENCH) bench/startup.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
