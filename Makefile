# Thin front door: every target installs what it needs, then defers to CMake.
# `make run` and `make test` are the two commands the README promises.

JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
RELEASE := build/release
TEST    := build/test
FUZZ_SECONDS ?= 60

.PHONY: all deps release test run bench fuzz eval clean

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

bench: release
	@.ci/deps --corpora
	@tests/corpus/fetch build/corpus
	@tests/bench/run $(RELEASE) build/corpus

fuzz: deps
	@CC=clang cmake -S . -B $(TEST) -DCMAKE_BUILD_TYPE=Debug \
		-DCASTLS_SANITIZE=ON >/dev/null
	@cmake --build $(TEST) -j $(JOBS) --target fuzz_chunker
	@mkdir -p build/fuzz-corpus
	@./$(TEST)/tests/fuzz_chunker -max_total_time=$(FUZZ_SECONDS) \
		-max_len=65536 build/fuzz-corpus tests/fixtures

# Retrieval quality on RepoEval (../shared/bench), beside two baselines.
EVAL_TS ?= build/corpus/npm/node_modules/rxjs
eval: release
	@.ci/deps --corpora
	@tests/corpus/fetch build/corpus
	@python3 tests/eval/run.py --castls $(RELEASE)/castls \
		--data ../shared/bench/repoeval-function-dev.tgz --work build/eval \
		--json build/eval/results.json \
		$(if $(wildcard $(EVAL_TS)),--ts-package $(EVAL_TS))

clean:
	rm -rf build
