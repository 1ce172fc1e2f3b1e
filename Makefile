# Bummerl: the two commands a newcomer needs are `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
VARIANT ?= schnapsen-at
PROTOS := $(wildcard proto/bummerl/v1/*.proto)

.PHONY: setup serve-deps proto run test test-cluster lint typecheck bench strong-results demo clean

# Two installs in one virtualenv, each with its stamp: the server's (make run, make demo: the
# project's dependencies and grpcio-tools, which generates bummerl.v1 from proto/) and, on top of it,
# the dev extra that make test needs (test tools, linters, OpenSpiel, Playwright...; from PyPI).
$(VENV)/.serve-installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[proto]'
	touch $@

$(VENV)/.installed: $(VENV)/.serve-installed
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

service/bummerl/v1/__init__.py: $(PROTOS) proto/generate.py $(VENV)/.serve-installed
	$(PY) proto/generate.py service

# The Node.js gRPC client's packages (clients/node/grpc.mjs, tested in tests/e2e), where npm exists.
NPM := $(shell command -v npm 2>/dev/null)
NODE_DEPS := $(if $(NPM),clients/node/node_modules/.package-lock.json)

clients/node/node_modules/.package-lock.json: clients/node/package.json clients/node/package-lock.json
	cd clients/node && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Chromium for the browser tests (tests/web: Playwright drives the system's Chromium, never a
# downloaded one): installed with apt-get where we are root, else the tests skip with one loud line.
$(VENV)/.chromium:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "!!! apt-get install chromium failed: the browser tests will be skipped"; \
	else echo "!!! no chromium and no root apt-get: the browser tests will be skipped (apt-get install chromium)"; fi
	@touch $@

setup: $(VENV)/.installed service/bummerl/v1/__init__.py $(NODE_DEPS) $(VENV)/.chromium  ## create .venv, install, generate protobuf code, chromium

proto: $(VENV)/.serve-installed  ## regenerate bummerl.v1 from proto/
	$(PY) proto/generate.py service

# What the server needs (make run, make demo): the server's install and the protobuf code; not the
# dev extra, the tests' Node packages or Chromium (only make test fetches those).
serve-deps: $(VENV)/.serve-installed service/bummerl/v1/__init__.py

run: serve-deps  ## serve on :50051 with embedded Valkey, play one demo Bummerl greedy vs random, serve until Ctrl-C
	$(PY) -m bummerl_cli serve --demo greedy,random --variant $(VARIANT)

demo: serve-deps
	$(PY) -m bummerl_cli play --variant $(VARIANT) --bots greedy,random

lint: setup
	$(PY) -m ruff check service clients cli tests bench proto/generate.py deploy

# mypy --strict (pyproject's [tool.mypy]) on every package of the server, the SDK and the CLI
typecheck: setup
	$(PY) -m mypy service/bummerl clients/python/bummerl_client cli/bummerl_cli

# The suites that run a second time on a local Valkey Cluster (three masters, three replicas, started
# by tests/conftest.py): every Lua script (match create/commit/claim/load, ladder claim/start/finish/
# assign, rate limits, house bots), every stream path (the stream hub, Play, WatchMatch, ladder and
# bot-assignment feeds) and the multi-replica end-to-end tests. Tests marked single_node are skipped.
CLUSTER_TESTS := tests/store tests/core tests/ladder tests/api tests/e2e/test_replicas.py tests/e2e/test_ladder_e2e.py

test: setup lint typecheck  ## lint, typecheck, the whole test suite on one Valkey, then the cluster subset
	$(PY) -m pytest
	BUMMERL_TEST_REDIS=cluster $(PY) -m pytest $(CLUSTER_TESTS) --deselect tests/store/test_embedded_cluster.py

test-cluster: setup  ## only the cluster subset (on a local three-master Valkey Cluster)
	BUMMERL_TEST_REDIS=cluster $(PY) -m pytest $(CLUSTER_TESTS) --deselect tests/store/test_embedded_cluster.py

bench: setup  ## print engine and service figures
	$(PY) -m bummerl_cli bench engine --variant $(VARIANT) --seconds 10
	$(PY) -m bummerl_cli bench service --matches 64 --seconds 10
	$(PY) -m bummerl_cli bench service --matches 64 --seconds 10 --stream
	$(PY) -m bummerl_cli bench service --matches 64 --seconds 10 --rest
	$(PY) -m bummerl_cli bench floor --seconds 8
	$(PY) -m bummerl_cli bench floor --seconds 8 --play
	$(PY) -m bummerl_cli bench core
	$(PY) bench/probe_bad_input.py
	$(PY) -m bummerl_cli bench timeouts --matches 200
	$(PY) -m bummerl_cli bench ladder --matches 100
	$(PY) -m bummerl_cli bench leaderboard
	$(PY) -m bummerl_cli bench strong --variant $(VARIANT) --pairs 20 --bot strong:samples=16,seed=1 --jobs 2
	$(PY) -m bummerl_cli bench sprt
	$(PY) -m bummerl_cli bench web --seconds 16 --rate 50
	@if $(PY) -c "import pyspiel" 2>/dev/null; then $(PY) -m bummerl_cli bench openspiel --variant $(VARIANT) --seconds 6; \
	else echo "bench openspiel: skipped (needs the learning extra: .venv/bin/pip install -e '.[learning]')"; fi

PAIRS ?= 100
strong-results: setup  ## regenerate bench/STRONG_RESULTS.md (PAIRS pairs or sets a row, 400 pairs a row against strong-v1, the clairvoyant references or ismcts-ref; about 65 min on 2 quiet cores)
	$(PY) bench/strong_results.py --pairs $(PAIRS) --jobs 2

clean:
	rm -rf $(VENV) build dist *.egg-info service/bummerl/v1/*_pb2* service/bummerl/v1/__init__.py clients/node/node_modules
