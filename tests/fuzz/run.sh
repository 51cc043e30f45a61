#!/bin/sh
# make fuzz-run: run each libFuzzer binary given as an argument for
# FUZZ_SECONDS seconds (and at most FUZZ_RUNS inputs, when set) over its
# committed corpus tests/fuzz/corpus/<target>/, which it only reads; new
# inputs go to $FUZZDIR/corpus/<target>/ and crashes to
# $FUZZDIR/artifacts/<target>/.  Prints one line per target: execs,
# execs per second, libFuzzer's final coverage (cov, ft) and findings.
# Exits 1 when any target found something.
set -u
FUZZDIR=${FUZZDIR:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-10}
top=$(cd "$(dirname "$0")/../.." && pwd)
found=0

for bin in "$@"; do
	t=$(basename "$bin")
	work="$FUZZDIR/corpus/$t"
	art="$FUZZDIR/artifacts/$t"
	log="$FUZZDIR/$t.log"
	mkdir -p "$work" "$art" "$top/tests/fuzz/corpus/$t"
	"$bin" -max_total_time="$FUZZ_SECONDS" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=10 \
	    -print_final_stats=1 -artifact_prefix="$art/" \
	    "$work" "$top/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1 ft \2/p')
	n=$(find "$art" -type f | wc -l)
	printf '%-22s execs %10s  exec/s %7s  %-18s findings %d\n' "$t" "${execs:-?}" \
	    "${rate:-?}" "${cov:-cov ? ft ?}" "$n"
	if [ "$rc" -ne 0 ] || [ "$n" -gt 0 ]; then
		found=1
		find "$art" -type f | sed 's/^/    artifact: /'
		grep -E 'ERROR|SUMMARY|check failed|runtime error' "$log" | head -n 5 | sed 's/^/    | /'
		echo "    log: $log"
	fi
done
exit $found
