# The two commands: `make demo` and `make test`. Everything else is a step of them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test setup system-deps bots lint typecheck pytest bench clean

demo: setup system-deps bots
	$(BIN)/arena league demo/league.toml

test: setup system-deps bots lint typecheck pytest

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Debian packages the tests need (a C msgpack library, bubblewrap). As root they are
# installed; otherwise the script says what is missing.
system-deps:
	scripts/system-deps.sh

# Build every starter kit that has a build step.
bots: setup
	scripts/build-bots.sh

lint: setup
	$(BIN)/ruff check arena protocol tests bench example_bots
	$(BIN)/ruff format --check arena protocol tests bench example_bots

typecheck: setup
	$(BIN)/mypy

pytest: setup
	$(BIN)/pytest -q

bench: setup bots
	$(BIN)/python bench/rules.py
	$(BIN)/python bench/referee.py
	$(BIN)/python bench/league.py
	$(BIN)/python bench/ratings.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
