#!/bin/bash
# Options: --help names every option and exits 0, --version exits 0, and
# the long and short spellings of each option are accepted.
. "$(dirname "$0")/lib.sh"

test_help() {
	try "$JOULESTAT" --help
	assert_rc 0
	[ -s out ] || fail "--help printed nothing on stdout"
	for opt in --interval -i --output -o --field-separator -x --csv --quiet -q \
	    --pid -p --descendants --help --version; do
		grep -qw -- "$opt" out || fail "--help does not mention $opt"
	done
}

test_help_runs_nothing() {
	try "$JOULESTAT" --help -- "$JS_WORK" -p ran exit 3
	assert_rc 0
	[ ! -e ran ] || fail "--help ran the workload"
}

test_version() {
	try "$JOULESTAT" --version
	assert_rc 0
	assert_match out '[0-9]+\.[0-9]+'
}

# accepted ARGS...: joulestat ARGS... -- js-work exit 0 runs and exits 0.
accepted() {
	try "$JOULESTAT" "$@" -- "$JS_WORK" -p ran exit 0
	assert_rc 0
	[ -e ran ] || fail "the workload did not run"
}

test_interval_long_equals() {
	accepted --interval=50
}

test_interval_long_separate() {
	accepted --interval 50
}

test_interval_attached() {
	accepted -i50
}

test_descendants_values() {
	for v in leave wait kill; do
		accepted "--descendants=$v"
	done
}

test_combined_options() {
	accepted -q -i 20 -o report -x ';' --csv=s.csv --descendants=wait
	[ -s s.csv ] || fail "--csv file is empty"
}

t_run "--help mentions every option" test_help
t_run "--help does not run the command" test_help_runs_nothing
t_run "--version exits 0 with a version" test_version
t_run "--interval=50 is accepted" test_interval_long_equals
t_run "--interval 50 is accepted" test_interval_long_separate
t_run "-i50 is accepted" test_interval_attached
t_run "--descendants=leave|wait|kill are accepted" test_descendants_values
t_run "options combine" test_combined_options
t_done
