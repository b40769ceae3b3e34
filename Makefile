# The two commands a new user needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test proto bots bench lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The demo league starts afresh each time (its results file is replaced).
demo: $(STAMP)
	rm -rf results/demo results/demo.sqlite results/demo.sqlite-wal results/demo.sqlite-shm
	$(PY) -m referee run tournaments/demo.toml

test: $(STAMP)
	$(VENV)/bin/lint-imports
	$(PY) -m mypy
	$(PY) -m pytest

# Regenerate referee/_proto/ from protos/ (committed; a test fails when it is stale).
proto: $(STAMP)
	$(PY) -m referee.transport.protogen

# The sample bots in other languages (sample_bots/node, sample_bots/cpp, sample_bots/go,
# sample_bots/java): Node.js with npm, for C++ cmake, pkg-config and gRPC, for Go and Java
# Debian's packages (see each README.md).
bots:
	cd sample_bots/node && npm ci --no-audit --no-fund --loglevel=error
	cmake -S sample_bots/cpp -B sample_bots/cpp/build -DCMAKE_BUILD_TYPE=Release
	cmake --build sample_bots/cpp/build --parallel 2
	$(MAKE) -C sample_bots/go
	$(MAKE) -C sample_bots/java

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) results .pytest_cache .mypy_cache
