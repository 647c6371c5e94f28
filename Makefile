# Thin front door: every target installs what it needs, then defers to CMake.
# `make run` and `make test` are the two commands the README promises.

JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
RELEASE := build/release
TEST    := build/test
FUZZ_SECONDS ?= 60

PREFIX  ?= /usr/local

.PHONY: all deps release test run install bench bench-scale fuzz fuzz-long \
	eval clean

all: release

deps:
	@.ci/deps

release: deps
	@cmake -S . -B $(RELEASE) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(RELEASE) -j $(JOBS) --target castls

# Sanitized build with clang (libFuzzer needs it); CTest prints the summary.
test: deps
	@.ci/deps --editors --corpora
	@CC=clang cmake -S . -B $(TEST) -DCMAKE_BUILD_TYPE=Debug \
		-DCASTLS_SANITIZE=ON >/dev/null
	@cmake --build $(TEST) -j $(JOBS)
	@tests/corpus/fetch build/corpus
	@cd $(TEST) && ctest --output-on-failure -j $(JOBS)

# The main job: index this repository, then print the ranked context for
# a cursor inside castls_repo() of the eval harness (it calls into
# lsp_client.py, so the definitions it needs live in another file).
RUN_AT ?= tests/eval/run.py:252
run: release
	@./$(RELEASE)/castls context --root . $(RUN_AT) --budget 1200
	@echo "castls: the binary is $(RELEASE)/castls;" \
		"make install puts it in $(PREFIX)/bin" >&2

# Installs under PREFIX (DESTDIR for staging): bin/castls, its man page,
# the Neovim plugin and the Emacs package.
install: release
	@DESTDIR="$(DESTDIR)" cmake --install $(RELEASE) --prefix "$(PREFIX)"

bench: release
	@.ci/deps --corpora
	@tests/corpus/fetch build/corpus
	@tests/bench/run $(RELEASE) build/corpus

# Issue 16's benchmark at scale (tests/bench/bench_scale.py): a corpus of
# about 5.5 million lines (Debian's python3-* packages from `.ci/deps
# --scale`, the stdlib, npm packages pinned in tests/bench/scale) copied
# into build/scale, and its 10% slice; cold index, re-scan, context,
# search, workspace/symbol, keystroke and branch-switch figures for both.
# Run it alone on the machine. SCALE_ARGS replaces the options, e.g.
# SCALE_ARGS="--size full --only context,search --repeat 1", or adds the
# soak: SCALE_ARGS="--repeat 3 --soak".
SCALE_ARGS ?= --repeat 3
bench-scale: release
	@.ci/deps --scale
	@cmake --build $(RELEASE) --target bench_chunk >/dev/null
	@python3 tests/bench/bench_scale.py --castls $(RELEASE)/castls \
		--work build/scale $(SCALE_ARGS)

fuzz: deps
	@CC=clang cmake -S . -B $(TEST) -DCMAKE_BUILD_TYPE=Debug \
		-DCASTLS_SANITIZE=ON >/dev/null
	@cmake --build $(TEST) -j $(JOBS) --target fuzz_chunker
	@mkdir -p build/fuzz-corpus
	@./$(TEST)/tests/fuzz_chunker -max_total_time=$(FUZZ_SECONDS) \
		-max_len=65536 build/fuzz-corpus tests/fixtures \
		tests/fuzz/regressions/chunker

# Every fuzz target, one after another, until FUZZ_LONG_RUNS executions
# or FUZZ_LONG_SECONDS each, whichever comes first; prints executions,
# exec/s and findings (tests/fuzz/long.sh). Hours, so not in `make test`.
FUZZ_LONG_RUNS ?= 10000000
FUZZ_LONG_SECONDS ?= 1800
fuzz-long: deps
	@CC=clang cmake -S . -B $(TEST) -DCMAKE_BUILD_TYPE=Debug \
		-DCASTLS_SANITIZE=ON >/dev/null
	@cmake --build $(TEST) -j $(JOBS) --target fuzz_chunker fuzz_framing \
		fuzz_dispatch fuzz_mcp fuzz_includes
	@tests/fuzz/long.sh $(TEST) build/fuzz-long $(FUZZ_LONG_RUNS) \
		$(FUZZ_LONG_SECONDS)

# Retrieval quality beside two baselines (tests/eval/README.md): RepoEval's
# dev split (../shared/bench), then the development set of Python projects
# (Debian packages, installed by `.ci/deps --eval`; a project whose package
# is missing is left out with a note), of npm TypeScript packages and of
# Go, Rust, Java, C and C++ projects (`.ci/deps --corpora`), each in a
# tuning and a check half. EVAL_ARGS adds options to run.py, e.g.
# EVAL_ARGS="--sets go --methods castls".
EVAL_ARGS ?=
eval: release
	@.ci/deps --eval || echo "eval: .ci/deps --eval failed;" \
		"projects whose packages are missing are left out" >&2
	@.ci/deps --corpora
	@tests/corpus/fetch build/corpus
	@python3 tests/eval/run.py --castls $(RELEASE)/castls \
		--data ../shared/bench/repoeval-function-dev.tgz --work build/eval \
		--ts-root build/corpus/npm/node_modules \
		--json build/eval/results.json $(EVAL_ARGS)

clean:
	rm -rf build
