#!/bin/sh
# long.sh BUILD OUT RUNS SECONDS: runs each libFuzzer target of the
# sanitized build in BUILD (FUZZ_TARGETS, default all five) until RUNS
# executions or SECONDS seconds, whichever comes first, one after
# another (`make fuzz-long`). Corpora
# grow in OUT/corpus/TARGET and are kept for the next run; logs go to
# OUT/TARGET.log, anything found to OUT/TARGET-crash-* (and -leak-,
# -timeout-, -oom-). Prints executions, executions per second and
# findings for each target (also in OUT/summary.txt) and exits 1 when a
# target found something or could not run.
#
# A finding is a bug to fix; once fixed, its input goes to
# tests/fuzz/regressions/TARGET, which `make test` replays.
set -u
build=${1:?usage: long.sh BUILD OUT RUNS SECONDS}
out=${2:?}
runs=${3:?}
secs=${4:?}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
status=0
summary="$out/summary.txt"
printf '%-14s %12s %9s %8s %s\n' target executions exec/s seconds \
	findings | tee "$summary"

for t in ${FUZZ_TARGETS:-fuzz_chunker fuzz_framing fuzz_dispatch fuzz_mcp \
	fuzz_includes}; do
	# Where each target's binary, inputs and size limit are (see
	# tests/fuzz/*.cmake).
	case $t in
	fuzz_chunker)
		bin=$build/tests/fuzz_chunker max_len=65536
		seeds="$src/tests/fixtures" ;;
	fuzz_framing)
		bin=$build/fuzz_framing max_len=4096 seeds="" ;;
	fuzz_dispatch)
		bin=$build/fuzz_dispatch max_len=4096
		seeds="$build/tests/fuzz-dispatch-seeds" ;;
	fuzz_mcp)
		bin=$build/fuzz_mcp max_len=4096
		seeds="$build/tests/fuzz-mcp-seeds" ;;
	fuzz_includes)
		bin=$build/tests/fuzz_includes max_len=4096 seeds="" ;;
	esac
	regress="$src/tests/fuzz/regressions/${t#fuzz_}"
	[ -d "$regress" ] && seeds="$seeds $regress"
	if [ ! -x "$bin" ]; then
		printf '%-14s %s\n' "$t" "not built: $bin" | tee -a "$summary"
		status=1
		continue
	fi
	corpus="$out/corpus/$t"
	mkdir -p "$corpus"
	rm -f "$out/$t"-crash-* "$out/$t"-leak-* "$out/$t"-timeout-* \
		"$out/$t"-oom-*
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$bin" -runs="$runs" -max_total_time="$secs" -max_len="$max_len" \
		-timeout=60 -print_final_stats=1 \
		-artifact_prefix="$out/$t-" "$corpus" $seeds \
		>"$out/$t.log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$out/$t.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$t.log")
	found=$(find "$out" -maxdepth 1 -name "$t-*" \
		\( -name "$t-crash-*" -o -name "$t-leak-*" \
		-o -name "$t-timeout-*" -o -name "$t-oom-*" \) | wc -l)
	if [ "$rc" != 0 ] && [ "$found" = 0 ]; then
		found="exit $rc, see $out/$t.log"
	fi
	printf '%-14s %12s %9s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" \
		"$took" "$found" | tee -a "$summary"
	[ "$found" = 0 ] || status=1
done
exit $status
