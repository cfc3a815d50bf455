# The two commands a user needs: `make book` and `make test`.
# Everything runs inside .venv, which this file creates from requirements.lock.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The book's own copy of MathJax (package.json, pinned in package-lock.json): no CDN.
NODE_STAMP := node_modules/.installed
# Speed only, for every command below and what it starts: numpy's transparent-huge-page advice makes each
# fresh array of 4 MB or more 10-20 times slower to touch where Linux compacts memory for it (THP defrag
# "madvise"); `make bench` measures both. The chapters' kernels get it from runner.KERNEL_ENVIRONMENT as well.
export NUMPY_MADVISE_HUGEPAGE := 0

.PHONY: book test lint prerequisites lab data bench sweep lock sync clean help

help:
	@echo "make book   build the book into _build/html (sets up .venv, data, notebooks)"
	@echo "make test   build what the tests need, then run every test (make lint first)"
	@echo "make lint   check src/ and tests/ with ruff (pinned; rules in pyproject.toml)"
	@echo "make lab    open JupyterLab on the chapters (notebooks/), the book's .venv as the kernel;"
	@echo "            LAB_ARGS='--port 8899' passes options to jupyter lab (--allow-root is kept when run as root)"
	@echo "make data   regenerate the simulated data if it is missing or stale"
	@echo "make bench  time the build and the heavy kernels into _build/bench.json, and measure the intervals' coverage"
	@echo "make sweep  run every chapter over analysis SEEDS and data SEEDS (default 0-9), then rebuild the book"
	@echo "make sync   bring the paired notebooks/*.ipynb in step with notebooks/*.py"
	@echo "make lock   re-pin requirements.lock from the pins in pyproject.toml"
	@echo "make clean  remove _build, the executed notebooks and killed runs' scratch folders (not .venv)"

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# The lock holds every package of the book (the audit's base dependencies and the extras book, test, cluster);
	# the checkout then goes in without resolving again: the same set as pip install -e '.[book,test,cluster]'.
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

data: $(STAMP)
	$(BIN)/compendium simulate --if-needed

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

book: data $(NODE_STAMP)
	$(BIN)/compendium build

# Two workers (pytest-xdist). --dist loadscope with the scopes of tests/conftest.py (xdist_scope): each
# notebook's cells stay on one worker and kernel, the browser tests share one worker (and one Chromium), the
# wheel tests another unit, and every other test goes to whichever worker is idle.
# nbval re-executes every chapter; its kernels read the results the build stored (the EAD and leakage fits,
# the real token counts, chapter 10's audits and the other analyses of seconds; _build/cache, see
# src/compendium/data/cache.py) instead of recomputing what `make book` computed, in the environment the build
# gives its kernels (runner.KERNEL_ENVIRONMENT).
TEST_WORKERS ?= 2
prerequisites:
	@.ci/prerequisites

# The system's prerequisites first (Chromium, Node.js): a missing one stops make test in a second, naming the
# install command, before minutes of building.
# Then the tests marked numerics (floats from BLAS, LAPACK, numpy's SIMD loops or the encoders compared with
# stored or pinned values) run again under a narrow CPU profile (tests/narrow_cpu.py: numpy without its
# dispatched features, OpenBLAS's SSE4.2 kernels, glibc's libm without AVX2 and FMA), so that a tolerance that
# holds on this machine's instruction set only fails here, not on the next host.
TEST_ENV := COMPENDIUM_CACHE=$(CURDIR)/_build/cache OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	PYTHONHASHSEED=0
# Ruff's rules and what they leave out are in pyproject.toml ([tool.ruff]).
lint: $(STAMP)
	$(BIN)/ruff check --no-cache src tests

test: prerequisites lint book
	$(TEST_ENV) $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope \
	  tests book --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider
	$(TEST_ENV) $(BIN)/python tests/narrow_cpu.py -n $(TEST_WORKERS) --dist loadscope -m numerics -q \
	  -p no:cacheprovider tests

# JupyterLab runs inside .venv, so the notebooks' python3 kernel is the book's environment.
# LAB_ARGS: extra options for jupyter lab (make lab LAB_ARGS='--port 8899 --no-browser'). Setting it does not drop
# --allow-root, which is added on its own whenever make runs as root (jupyter refuses root without it).
LAB_ARGS ?=
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
lab: data
	$(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) --LabApp.default_url=/lab/tree/notebooks $(LAB_ROOT) $(LAB_ARGS)

bench: data $(NODE_STAMP)
	$(BIN)/compendium bench

SEEDS ?= 0-9
sweep: data $(NODE_STAMP)
	$(BIN)/compendium sweep --seeds $(SEEDS)
	$(BIN)/compendium sweep --data-seeds $(SEEDS)
	$(BIN)/compendium build

lock:
	rm -rf $(VENV).lock && $(PYTHON) -m venv $(VENV).lock
	$(VENV).lock/bin/python -m pip install --quiet -e '.[book,test,cluster]'
	{ echo "# Every package of the book's environment, exactly as tested (Python 3.11)."; \
	  echo "# Regenerate with 'make lock' after changing a pin in pyproject.toml."; \
	  $(VENV).lock/bin/python -m pip freeze --exclude-editable; } > requirements.lock
	rm -rf $(VENV).lock

sync: $(STAMP)
	$(BIN)/jupytext --sync notebooks/[0-9][0-9]_*.py

# The build, the executed notebooks, and the hidden scratch folders of chapters whose run was killed
# (runner.execute stages each chapter in one; the chapter's next run removes it too).
clean:
	rm -rf _build book/[0-9][0-9]_*.ipynb book/.[0-9][0-9]_*
