# The two commands a new user needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# the referee and what it needs to run; then what the tests need besides (the test extra)
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: demo test proto bots bots-node bots-cpp bots-go bots-java bench lint clean sandbox

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

# The sandbox's system packages, before anything else: bubblewrap, and libseccomp2 for its
# seccomp filter. Root with apt-get installs what is missing (as .ci/run does); anyone else
# without bubblewrap is told in one line what to install.
sandbox:
	@if command -v bwrap >/dev/null 2>&1 && { ! command -v dpkg >/dev/null 2>&1 || dpkg -s libseccomp2 >/dev/null 2>&1; }; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "sandbox: installing bubblewrap and libseccomp2 (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap libseccomp2 >/dev/null; \
	elif ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(uname -s)" = Linux ]; then fix="install bubblewrap (sudo apt-get install bubblewrap libseccomp2)"; else fix="bubblewrap needs Linux"; fi; \
	  echo "sandbox: the demo league needs bubblewrap: $$fix, or set [sandbox] mode = \"rlimits\" in tournaments/demo.toml to run the sample bots as you, uncontained" >&2; \
	  exit 1; \
	fi

# The demo league starts afresh each time (its results file is replaced).
demo: sandbox $(STAMP)
	rm -rf results/demo results/demo.sqlite results/demo.sqlite-wal results/demo.sqlite-shm
	$(PY) -m referee run tournaments/demo.toml

test: $(TEST_STAMP)
	$(VENV)/bin/lint-imports
	$(PY) -m mypy
	$(PY) -m pytest

# Regenerate referee/_proto/ from protos/ (committed; a test fails when it is stale).
proto: $(TEST_STAMP)
	$(PY) -m referee.transport.protogen

# The sample bots in other languages (sample_bots/node, sample_bots/cpp, sample_bots/go,
# sample_bots/java), each with its own target. First the Debian packages each needs
# (sample_bots/packages.sh, listed in README.md): root with apt-get installs what is missing,
# as `make demo` does; anyone else is told in one line per language what to install.
BOT_LANGUAGES := node cpp go java

bots:
	@sample_bots/packages.sh $(BOT_LANGUAGES)
	@$(MAKE) --no-print-directory $(addprefix bots-,$(BOT_LANGUAGES))

bots-node:
	@sample_bots/packages.sh node
	cd sample_bots/node && npm ci --no-audit --no-fund --loglevel=error

bots-cpp:
	@sample_bots/packages.sh cpp
	cmake -S sample_bots/cpp -B sample_bots/cpp/build -DCMAKE_BUILD_TYPE=Release
	cmake --build sample_bots/cpp/build --parallel 2

bots-go:
	@sample_bots/packages.sh go
	$(MAKE) -C sample_bots/go

bots-java:
	@sample_bots/packages.sh java
	$(MAKE) -C sample_bots/java

bench: $(TEST_STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) results .pytest_cache .mypy_cache
