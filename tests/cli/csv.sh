#!/bin/bash
# The CSV forms (perf's stat+csv_output.sh): -x SEP writes the
# report as CSV, --csv=FILE writes the summary.  Every check goes through
# csvtool, a real CSV parser: the same field count on every row, the
# required columns, C-locale numbers, and a command line with commas,
# quotes and a newline that comes back intact.
. "$(dirname "$0")/lib.sh"

COLUMNS='schema_version scope command exit_status wall_s user_s sys_s max_rss_kib
processes max_concurrent ticks missed_ticks late_max_ms late_p99_ms sampler_cpu_s'
NUMERIC='schema_version exit_status wall_s user_s sys_s max_rss_kib processes
max_concurrent ticks missed_ticks late_max_ms late_p99_ms sampler_cpu_s'

# csv_ok FILE: parses, same field count on every row, a header with every
# required column, and exactly one row with scope=run.
csv_ok() {
	"$CSVTOOL" ${csv_sep:+-s "$csv_sep"} check "$1" >check.out 2>&1 ||
	    fail "$1 is not consistent CSV: $(cat check.out)"
	grep -q '^rows=[2-9]\|^rows=[1-9][0-9]' check.out ||
	    fail "$1 has no data row: $(cat check.out)"
	for col in $COLUMNS; do
		csv_get "$1" "$col" scope=run
	done
	n=$("$CSVTOOL" ${csv_sep:+-s "$csv_sep"} count "$1" scope=run)
	assert_eq "$n" 1 "rows with scope=run"
}

# numbers_ok FILE: every numeric column of the run row is a C-locale number or empty.
numbers_ok() {
	for col in $NUMERIC; do
		csv_get "$1" "$col" scope=run
		[ -z "$csv_v" ] || assert_num "$csv_v" "$col"
	done
}

test_x_comma_on_stderr() {
	try "$JOULESTAT" -x , -- "$JS_WORK" exit 0
	assert_rc 0
	csv_ok err
	assert_no_match err 'wall time'
	[ ! -s out ] || fail "the CSV report went to stdout too"
}

test_x_semicolon() {
	try "$JOULESTAT" -x ';' -- "$JS_WORK" exit 0
	assert_rc 0
	csv_sep=';' csv_ok err
	csv_sep=';' csv_get err exit_status scope=run
	assert_eq "$csv_v" 0 exit_status
}

test_x_tab() {
	try "$JOULESTAT" -x "$(printf '\t')" -- "$JS_WORK" exit 0
	assert_rc 0
	csv_sep='\t' csv_ok err
}

test_field_separator_long() {
	try "$JOULESTAT" --field-separator=';' -- "$JS_WORK" exit 0
	assert_rc 0
	csv_sep=';' csv_ok err
}

test_x_to_output_file() {
	try "$JOULESTAT" -x , -o report.csv -- "$JS_WORK" exit 0
	assert_rc 0
	csv_ok report.csv
	[ ! -s err ] || fail "stderr is not empty with -o"
}

test_x_to_stdout() {
	try "$JOULESTAT" -x , -o - -- "$JS_WORK" exit 0
	assert_rc 0
	csv_ok out
}

test_csv_file() {
	try "$JOULESTAT" --csv=summary.csv -- "$JS_WORK" exit 0
	assert_rc 0
	csv_ok summary.csv
}

test_csv_stdout() {
	try "$JOULESTAT" --csv=- -- "$JS_WORK" exit 0
	assert_rc 0
	csv_ok out
}

# -x and --csv together: each form on its own destination, each valid.
test_x_and_csv_together() {
	try "$JOULESTAT" -x ';' --csv=summary.csv -- "$JS_WORK" exit 0
	assert_rc 0
	csv_ok summary.csv
	csv_sep=';' csv_ok err
}

test_exit_status_column() {
	try "$JOULESTAT" --csv=s.csv -- "$JS_WORK" exit 7
	assert_rc 7
	csv_get s.csv exit_status scope=run
	assert_eq "$csv_v" 7 exit_status
}

test_command_round_trip() {
	try "$JOULESTAT" --csv=s.csv -- "$JS_WORK" args 'a,b' 'say "hi"' $'line1\nline2' 'x'
	assert_rc 0
	csv_ok s.csv
	"$CSVTOOL" get s.csv command scope=run >got || fail "no command in s.csv"
	printf '%s\n' "$JS_WORK args a,b say \"hi\" line1
line2 x" >want
	cmp -s want got || fail "command came back as '$(cat got)'"
}

test_command_with_separator_in_x_mode() {
	try "$JOULESTAT" -x ';' -- "$JS_WORK" args 'a;b' 'c,d'
	assert_rc 0
	csv_sep=';' csv_ok err
	csv_sep=';' csv_get err command scope=run
	assert_eq "$csv_v" "$JS_WORK args a;b c,d" command
}

test_numbers_are_c_locale() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" spin 200ms
	assert_rc 0
	numbers_ok s.csv
}

# A locale with a decimal comma must not leak into the CSV.
test_numbers_under_comma_locale() {
	command -v localedef >/dev/null || skip "no localedef"
	[ -e /usr/share/i18n/locales/de_DE ] || skip "no de_DE locale source"
	mkdir loc
	localedef -i de_DE -f UTF-8 loc/de_DE.UTF-8 >/dev/null 2>&1 ||
	    skip "localedef de_DE failed"
	LOCPATH=$PWD/loc LC_ALL=de_DE.UTF-8 try "$JOULESTAT" -i 20 --csv=s.csv -x , \
	    -- "$JS_WORK" spin 200ms
	assert_rc 0
	numbers_ok s.csv
	numbers_ok err
}

test_spin_times() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" spin 500ms
	assert_rc 0
	csv_get s.csv user_s scope=run
	assert_ge "$csv_v" 0.3 user_s
	csv_get s.csv wall_s scope=run
	assert_ge "$csv_v" 0.5 wall_s
	csv_get s.csv sys_s scope=run
	assert_ge "$csv_v" 0 sys_s
}

test_plain_workload_counts() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" sleep 200ms
	assert_rc 0
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" 1 processes
	csv_get s.csv max_concurrent scope=run
	assert_eq "$csv_v" 1 max_concurrent
	csv_get s.csv max_rss_kib scope=run
	assert_ge "$csv_v" 1 max_rss_kib
}

test_sampler_columns() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" sleep 300ms
	assert_rc 0
	csv_get s.csv ticks scope=run
	assert_ge "$csv_v" 1 ticks
	csv_get s.csv missed_ticks scope=run
	assert_ge "$csv_v" 0 missed_ticks
	csv_get s.csv sampler_cpu_s scope=run
	assert_ge "$csv_v" 0 sampler_cpu_s
	csv_get s.csv schema_version scope=run
	assert_ge "$csv_v" 1 schema_version
}

# A death by signal still yields a complete, consistent CSV.
test_csv_after_signal_death() {
	try "$JOULESTAT" --csv=s.csv -- "$JS_WORK" signal TERM
	assert_rc 143
	csv_ok s.csv
}

test_csv_unwritable() {
	try "$JOULESTAT" --csv=/nonexistent/dir/s.csv -- "$JS_WORK" exit 0
	assert_rc 125
}

t_run "-x , writes CSV to stderr instead of the text" test_x_comma_on_stderr
t_run "-x ';' uses that separator" test_x_semicolon
t_run "-x TAB uses that separator" test_x_tab
t_run "--field-separator=';' works" test_field_separator_long
t_run "-x with -o FILE writes CSV there" test_x_to_output_file
t_run "-x with -o - writes CSV to stdout" test_x_to_stdout
t_run "--csv=FILE writes the summary" test_csv_file
t_run "--csv=- writes the summary to stdout" test_csv_stdout
t_run "-x and --csv together are both valid" test_x_and_csv_together
t_run "exit_status column holds the status" test_exit_status_column
t_run "a command with commas, quotes and a newline round-trips" test_command_round_trip
t_run "a command with the separator round-trips under -x ';'" test_command_with_separator_in_x_mode
t_run "numbers are C-locale" test_numbers_are_c_locale
t_run "numbers stay C-locale under a decimal-comma locale" test_numbers_under_comma_locale
t_run "spin 500ms: user_s >= 0.3, wall_s >= 0.5" test_spin_times
t_run "a plain workload: 1 process, some RSS" test_plain_workload_counts
t_run "sampler columns are filled" test_sampler_columns
t_run "CSV is complete after a death by signal" test_csv_after_signal_death
t_run "--csv to an unwritable path is 125" test_csv_unwritable
t_done
