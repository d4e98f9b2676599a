# One command per chore, the same for people and CI.
SHELL := /bin/bash
VENV  ?= .venv
PY    := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)
export RAY_USAGE_STATS_ENABLED := 0

.PHONY: setup run stop test test-deep test-all test-unit test-integration lint bench loadtest clean

setup:            ## install system packages, the virtualenv and the models (idempotent)
	cluster/local/setup.sh

run: setup        ## set up, start Redis + Ray + the Serve app, print base URL and a dev token
	cluster/local/up.sh

stop:             ## stop the Serve app, Ray and the local Redis
	cluster/local/down.sh

test: setup       ## set up and run the test suite (every behaviour, real engines; what .ci/run calls)
	$(PY) -m pytest -m "not deep"

test-deep: setup  ## the deep tier: every language of each sweep, fault drills, the two-node cluster, the API fuzzer
	$(PY) -m pytest -m deep

test-all: setup   ## both tiers
	$(PY) -m pytest

test-unit: setup
	$(PY) -m pytest tests/unit

test-integration: setup
	$(PY) -m pytest tests/integration

lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy -p core -p engines -p deployments -p pipelines -p serve_app

bench: setup      ## benchmarks (they start their own service)
	$(PY) loadtests/bench_api.py

# A dedicated account whose limits stay out of the way (the dev account's 600 requests/min would answer 429).
loadtest: run     ## staged locust run (LOADTEST_SHAPE=ramp|spike|soak|all) → var/loadtest/: CSVs, chart, summary
	@$(VENV)/bin/mediatrans-admin account ensure loadtest >/dev/null
	@$(VENV)/bin/mediatrans-admin account set-limits loadtest --rate 1000000 --burst 100000 \
	  --quota video_tasks=unlimited --quota video_minutes=unlimited \
	  --quota game_characters=unlimited --quota grammar_characters=unlimited >/dev/null
	@MEDIATRANS_TOKEN=$$($(VENV)/bin/mediatrans-admin token create loadtest --ttl-days 1 --quiet) \
	  $(PY) loadtests/loadtest.py $(LOADTEST_ARGS)

clean:
	rm -rf var models $(VENV)
