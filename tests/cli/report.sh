#!/bin/bash
# The human report: where it goes (stderr, -o FILE, -o -, nowhere with -q)
# and the labels it must carry, whatever became of the workload.
. "$(dirname "$0")/lib.sh"

LABELS='exit status|wall time|user time|sys time|peak RSS|processes|sampler'

# assert_report FILE: every label is in FILE.
assert_report() {
	old_ifs=$IFS
	IFS='|'
	for label in $LABELS; do
		grep -q -- "$label" "$1" || fail "no '$label' in the report in $1"
	done
	IFS=$old_ifs
}

# label_line FILE LABEL: the first line of FILE with LABEL, in $line.
label_line() {
	line=$(grep -m 1 -- "$2" "$1") || fail "no '$2' line in $1"
}

test_report_on_stderr() {
	try "$JOULESTAT" -- "$JS_WORK" exit 0
	assert_rc 0
	assert_report err
	[ ! -s out ] || fail "the report went to stdout too"
}

test_quiet_prints_nothing() {
	try "$JOULESTAT" -q -- "$JS_WORK" exit 0
	assert_rc 0
	[ ! -s err ] || fail "-q still wrote to stderr"
	[ ! -s out ] || fail "-q still wrote to stdout"
}

test_quiet_long() {
	try "$JOULESTAT" --quiet -- "$JS_WORK" exit 0
	assert_rc 0
	[ ! -s err ] || fail "--quiet still wrote to stderr"
}

test_output_file() {
	try "$JOULESTAT" -o report.txt -- "$JS_WORK" exit 0
	assert_rc 0
	assert_report report.txt
	[ ! -s err ] || fail "the report also went to stderr"
}

test_output_long() {
	try "$JOULESTAT" --output=report.txt -- "$JS_WORK" exit 0
	assert_rc 0
	assert_report report.txt
	[ ! -s err ] || fail "the report also went to stderr"
}

test_output_stdout() {
	try "$JOULESTAT" -o - -- "$JS_WORK" exit 0
	assert_rc 0
	assert_report out
	[ ! -s err ] || fail "the report also went to stderr"
}

test_exit_status_shown() {
	try "$JOULESTAT" -- "$JS_WORK" exit 7
	assert_rc 7
	label_line err 'exit status'
	printf '%s\n' "$line" | grep -qw 7 || fail "exit status line does not say 7: $line"
}

test_report_after_signal_death() {
	try "$JOULESTAT" -- "$JS_WORK" signal TERM
	assert_rc 143
	assert_report err
	label_line err 'exit status'
	printf '%s\n' "$line" | grep -Eqi 'TERM|15|143' ||
	    fail "exit status line does not name the signal: $line"
}

test_processes_one() {
	try "$JOULESTAT" -- "$JS_WORK" exit 0
	assert_rc 0
	label_line err 'processes'
	printf '%s\n' "$line" | grep -qw 1 || fail "processes line does not say 1: $line"
}

# No machine-readable form sneaks into the human report.
test_human_is_not_csv() {
	try "$JOULESTAT" -- "$JS_WORK" exit 0
	assert_rc 0
	assert_no_match err 'schema_version'
}

t_run "the report goes to stderr by default" test_report_on_stderr
t_run "-q prints no report" test_quiet_prints_nothing
t_run "--quiet prints no report" test_quiet_long
t_run "-o FILE writes the report there" test_output_file
t_run "--output=FILE writes the report there" test_output_long
t_run "-o - writes the report to stdout" test_output_stdout
t_run "the report shows the exit status" test_exit_status_shown
t_run "the report is written after a death by signal" test_report_after_signal_death
t_run "the report counts one process for a plain workload" test_processes_one
t_run "the human report has no CSV header" test_human_is_not_csv
t_done
