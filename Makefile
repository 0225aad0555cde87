# Bootstraps uv with pip when it is missing, so a machine with only python3 can run every target.
#
# No target removes a package from .venv: `make sync` syncs inexactly (--inexact) and the others
# go through `uv run`, which never uninstalls, so what you added to .venv yourself stays. A
# plain `uv sync` (exact) would remove it, and every extra this Makefile did not ask for.
PY ?= python3
UV := $(shell command -v uv 2>/dev/null || echo "$(PY) -m uv")
EXTRAS := --extra litellm --extra s3 --extra mcp --extra anthropic --extra plot --extra serve

.PHONY: uv sync demo test test-slow coverage lint typecheck check bench live model-install docs

uv:
	@command -v uv >/dev/null 2>&1 || $(PY) -m uv --version >/dev/null 2>&1 || $(PY) -m pip install --quiet uv

sync: uv
	$(UV) sync --frozen --inexact $(EXTRAS)

# Only what the demo runs: the core dependencies, no dev group, no extras (a few MB, not the
# ~640 MB of mypy, moto, ruff, matplotlib and litellm that `make sync` brings).
demo: uv
	$(UV) run --frozen --no-dev memfs demo

# The files of the suite spread over the machine's CPUs (at most 4 processes), a file's tests
# together in one process so its module fixtures (the S3 server) start once.
test: sync
	$(UV) run --frozen $(EXTRAS) pytest -q -n auto --maxprocesses 4 --dist loadfile

test-slow: sync
	$(UV) run --frozen $(EXTRAS) pytest -q -m slow

# The default suite under coverage, the processes it starts included ([tool.coverage.*] in
# pyproject.toml), then one combined report that fails under the figure it gates at (a failing
# test still gets its report, and fails the target). Slower than `make test` (what CI runs), so
# kept apart from it.
coverage: sync
	rm -rf build/coverage && mkdir -p build/coverage
	$(UV) run --frozen $(EXTRAS) coverage run -m pytest -q; status=$$?; \
	$(UV) run --frozen $(EXTRAS) coverage combine -q && \
	$(UV) run --frozen $(EXTRAS) coverage report && exit $$status

lint: sync
	$(UV) run --frozen $(EXTRAS) ruff check memfs adapters tests benchmarks
	$(UV) run --frozen $(EXTRAS) ruff format --check memfs adapters tests benchmarks

typecheck: sync
	$(UV) run --frozen $(EXTRAS) mypy

check: test lint typecheck

bench: sync
	$(UV) run --frozen $(EXTRAS) python -m benchmarks.run_all

# The documentation site (mkdocs.yml, docs/) into build/site. --strict turns every warning into a
# failure: a broken link or anchor, a page missing from the nav, a nav entry with no page.
# NO_MKDOCS_2_WARNING only silences Material's end-of-life banner.
docs: uv
	NO_MKDOCS_2_WARNING=1 $(UV) run --frozen --group docs mkdocs build --strict

# The local CPU model (llama-cpp-python server in its own venv under ~/.cache/memfs); the first
# install compiles llama.cpp (~8 min on 2 cores), later ones reuse the wheel it keeps.
model-install: sync
	$(UV) run --frozen $(EXTRAS) memfs model install
	$(UV) run --frozen $(EXTRAS) memfs model start

# Real-model tests: one agent turn on the local model (started if installed and not running).
live: sync
	$(UV) run --frozen $(EXTRAS) pytest -q -m live
