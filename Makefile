# One command per chore, the same for people and CI.
SHELL := /bin/bash
VENV  ?= .venv
PY    := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)
export RAY_USAGE_STATS_ENABLED := 0

.PHONY: setup run stop test test-unit test-integration lint bench clean

setup:            ## install system packages, the virtualenv and the models (idempotent)
	cluster/local/setup.sh

run: setup        ## set up, start Redis + Ray + the Serve app, print base URL and a dev token
	cluster/local/up.sh

stop:             ## stop the Serve app, Ray and the local Redis
	cluster/local/down.sh

test: setup       ## set up and run the whole test suite
	$(PY) -m pytest

test-unit: setup
	$(PY) -m pytest tests/unit

test-integration: setup
	$(PY) -m pytest tests/integration

lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: setup      ## benchmarks (they start their own service)
	$(PY) loadtests/bench_api.py

clean:
	rm -rf var models $(VENV)
