#!/bin/sh
# Runs every layer of the suite (HACKING.md, "Tests"): unit -> cli (which includes the
# simulated-NVML and fixture tests).  Each test program speaks TAP; this
# script prints one PASS/FAIL line per program with its duration, shows the
# log only of programs that failed (VERBOSE=1: also the figures that passing
# tests print as "# ..." comments), and ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
TIMEOUT_MULT=${TIMEOUT_MULT:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "$top/$BUILD" && pwd)
logdir=$(mktemp -d "${TMPDIR:-/tmp}/joulestat-check.XXXXXX")
trap 'rm -rf "$logdir"' EXIT INT TERM

JOULESTAT=$b/joulestat
if [ -n "${WRAP:-}" ]; then
	# Run the tool under valgrind wherever a test calls it.  Its messages go
	# to log files, not into the stderr that tests read; they are checked
	# at the end.
	mkdir "$logdir/vg"
	printf '#!/bin/sh\nexec %s --log-file=%s/vg/%%p.log %s "$@"\n' "$WRAP" "$logdir" \
	    "$b/joulestat" >"$logdir/joulestat"
	chmod +x "$logdir/joulestat"
	JOULESTAT=$logdir/joulestat
fi
export JOULESTAT TIMEOUT_MULT
export JS_WORK="$b/tests/js-work" CSVTOOL="$b/tests/csvtool" JSONTOOL="$b/tests/jsontool"
export FAILMALLOC="$b/tests/failmalloc.so"
export FAILSYS_LIB="$b/tests/failsys.so"
export SIMLIB="$b/sim/libnvidia-ml.so.1" TOP="$top"
export CMOCKA_MESSAGE_OUTPUT=TAP
# Tests must not see the developer's own overrides.
unset JOULESTAT_NVML_LIB JOULESTAT_SYSFS_ROOT JOULESTAT_PROC_ROOT

# Every command the suite runs must be here (scripts/deps lists them with
# their Debian packages; scripts/setup.sh installs them).
need=$(sed -e 's/#.*//' "$top/scripts/deps" | awk 'NF && $2 != "-" { print $2 ":" $1 }')
absent=""
for n in $need; do
	command -v "${n%%:*}" >/dev/null 2>&1 || absent="$absent ${n%%:*} (${n#*:})"
done
if [ -n "$absent" ]; then
	echo "tests/run.sh: missing:$absent; run scripts/setup.sh --deps-only as root" >&2
	exit 1
fi

passed=0 failed=0 skipped=0
run_one() {
	name=$1
	shift
	# ONLY="gates merge": run just the files whose names contain one of these words.
	if [ -n "${ONLY:-}" ]; then
		case " $ONLY " in *" ${name#*/} "*) ;; *) return ;; esac
	fi
	log="$logdir/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s%N)
	timeout -k 10 $((600 * TIMEOUT_MULT)) "$@" >"$log" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	# A "# SKIP" directive makes a test skipped, "ok" or "not ok" (cmocka
	# writes "not ok N # SKIP").
	p=$(grep -c '^ok ' "$log" | head -n 1)
	s=$(grep -c '^\(not \)\{0,1\}ok .*# *[Ss][Kk][Ii][Pp]' "$log" | head -n 1)
	f=$(grep -c '^not ok ' "$log" | head -n 1)
	k=$(grep -c '^not ok .*# *[Ss][Kk][Ii][Pp]' "$log" | head -n 1)
	p=$((p - s + k)) f=$((f - k))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or timed out outside any test
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -eq 0 ]; then
		printf 'PASS %-28s %4d ok %3d skip %6d ms\n' "$name" "$p" "$s" "$ms"
		# VERBOSE=1: the figures the tests measured (their "# ..." lines).
		[ -n "${VERBOSE:-}" ] && grep '^# ' "$log" | grep -v '^# ok\|^# not ok' |
		    sed 's/^/    /' || :
	else
		printf 'FAIL %-28s %4d ok %3d not ok (exit %d) %6d ms\n' "$name" "$p" "$f" "$rc" "$ms"
		sed 's/^/    | /' "$log"
	fi
}

for t in "$b"/tests/test_*; do
	[ -x "$t" ] || continue
	case $t in *.d) continue ;; esac
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$top"/tests/cli/*.sh; do
	case $(basename "$t") in lib.sh) continue ;; esac
	run_one "cli/$(basename "$t" .sh)" bash "$t"
done

if [ -n "${WRAP:-}" ]; then
	# Any error or definite leak in any run of the tool fails the suite.
	bad=$(grep -l -E 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$logdir"/vg/*.log 2>/dev/null)
	runs=$(ls "$logdir"/vg | wc -l)
	if [ -n "$bad" ]; then
		failed=$((failed + 1))
		echo "FAIL valgrind: errors in $(echo "$bad" | wc -l) of $runs runs"
		for f in $bad; do sed 's/^/    | /' "$f"; done
	else
		passed=$((passed + 1))
		echo "PASS valgrind: $runs runs of joulestat, no errors, no definite leaks"
	fi
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
