#!/bin/bash
# Output failures: the report (-o), --csv,
# --json and --timeline each sent to /dev/full, into a directory that does
# not exist, into a directory that cannot be written, and into a directory
# that is removed while the workload runs.  In every case: one line on
# stderr, "joulestat: FILE: cause", naming the file.  An output that cannot
# be created is said before the workload runs (125, the workload never
# starts).  One that fails later leaves the other outputs written and
# parsing (csvtool, jsontool); the workload runs to its end (it leaves
# ./marker as its last act); and the exit status is 125 when the workload
# succeeded, the workload's own status when it failed (EXIT STATUS in the
# man page).  The simulated GPU gives the timeline rows to write.
. "$(dirname "$0")/lib.sh"
: "${SIMLIB:?}" "${TOP:?}" "${CSVTOOL:?}" "${JSONTOOL:?}"

SCN=$TOP/tests/sim/scenarios

# The workload: js-work sleeps (pid file ./w once it is ready), then the
# shell writes ./marker and exits with $1.
WL='"$0" -p w sleep "$1"; echo end >marker; exit "$2"'

# opts KIND PATH: joulestat's output options, every output to a good file
# under ./ok/ except KIND (report, csv, json, timeline), which goes to PATH.
opts() {
	mkdir -p ok
	o_report=ok/report o_csv=ok/s.csv o_json=ok/j.json o_timeline=ok/t.csv
	eval "o_$1=\$2"
	set -- -o "$o_report" --csv="$o_csv" --json="$o_json" --timeline="$o_timeline"
	printf '%s\n' "$@" >opts
}

# js_out KIND PATH DUR STATUS: run the workload under joulestat.
js_out() {
	opts "$1" "$2"
	mapfile -t o_args <opts
	try env NVSIM_SCENARIO="$SCN/demo.scn" "$JOULESTAT" --nvml-lib="$SIMLIB" -i 50 \
	    "${o_args[@]}" -- sh -c "$WL" "$JS_WORK" "$3" "$4"
}

# check_outcome KIND PATH STATUS: what every case must show afterwards.
check_outcome() {
	[ -f marker ] || fail "the workload did not run to its end (no marker)"
	if [ "$3" -eq 0 ]; then
		assert_rc 125
	else
		assert_rc "$3"
	fi
	# Exactly one line about the file, in err(3) form, naming it.
	n=$(grep -c -F -- "$2" err)
	assert_eq "$n" 1 "lines on stderr that name $2"
	assert_match err "^joulestat: $(printf '%s' "$2" | sed 's/[.[\*^$/]/\\&/g'): [^ ].*\$"
	n=$(grep -c '^joulestat: ' err)
	assert_eq "$n" 1 "error lines on stderr"
	# The other outputs are whole.
	if [ "$1" != report ]; then
		grep -q 'exit status' "$o_report" || fail "no report in $o_report"
		grep -q 'sampler' "$o_report" || fail "truncated report in $o_report"
	fi
	if [ "$1" != csv ]; then
		"$CSVTOOL" check "$o_csv" >check.out 2>&1 || fail "$o_csv: $(cat check.out)"
		csv_get "$o_csv" exit_status scope=run
		assert_eq "$csv_v" "$3" "exit_status in the CSV"
	fi
	if [ "$1" != json ]; then
		"$JSONTOOL" check "$o_json" >check.out 2>&1 || fail "$o_json: $(cat check.out)"
		j=$("$JSONTOOL" get "$o_json" '.runs[0].exit_status') || fail "no exit_status in JSON"
		assert_eq "$j" "$3" "exit_status in the JSON"
	fi
	if [ "$1" != timeline ]; then
		"$CSVTOOL" check "$o_timeline" >check.out 2>&1 ||
		    fail "$o_timeline: $(cat check.out)"
		assert_ge "$("$CSVTOOL" count "$o_timeline")" 3 "timeline rows"
	fi
}

# check_refused PATH: an output that could not be created, said before the run.
check_refused() {
	[ ! -f marker ] || fail "the workload ran although an output could not be created"
	assert_rc 125
	n=$(grep -c -F -- "$1" err)
	assert_eq "$n" 1 "lines on stderr that name $1"
	assert_match err "^joulestat: $(printf '%s' "$1" | sed 's/[.[\*^$/]/\\&/g'): [^ ].*\$"
	n=$(grep -c '^joulestat: ' err)
	assert_eq "$n" 1 "error lines on stderr"
}

# ---- /dev/full: every write fails with ENOSPC -----------------------------

dev_full() {
	js_out "$1" /dev/full 300ms "$2"
	check_outcome "$1" /dev/full "$2"
	assert_match err '^joulestat: /dev/full: No space left on device$'
}

test_full_report() { dev_full report 0; }
test_full_csv() { dev_full csv 0; }
test_full_json() { dev_full json 0; }
test_full_timeline() { dev_full timeline 0; }

# The workload's failure wins over the output's, for every output at once.
test_full_status_wins() {
	for k in report csv json timeline; do
		rm -f marker
		dev_full "$k" 3
	done
}

# ---- a directory that does not exist: the open fails before the run -------

no_dir() {
	js_out "$1" "$PWD/nodir/x.out" 200ms "$2"
	check_refused "$PWD/nodir/x.out"
	assert_match err 'No such file or directory$'
}

test_nodir_report() { no_dir report 0; }
test_nodir_csv() { no_dir csv 0; }
test_nodir_json() { no_dir json 0; }
test_nodir_timeline() { no_dir timeline 0; }

test_nodir_status_wins() {
	for k in report csv json timeline; do
		rm -f marker
		no_dir "$k" 4
	done
}

# A path through a regular file: ENOTDIR, also as root.
test_notdir() {
	: >afile
	for k in report csv json timeline; do
		rm -f marker
		js_out "$k" afile/x.out 100ms 0
		check_refused afile/x.out
		assert_match err 'Not a directory$'
	done
}

# ---- a directory that cannot be written ------------------------------------

# Root writes anywhere, so the run is made as nobody (setpriv), in a
# directory mode 555 (the other outputs in one mode 777).
test_unwritable_dir() {
	command -v setpriv >/dev/null || skip "setpriv(1) is not installed"
	if [ "$(id -u)" -eq 0 ]; then
		asnobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		asnobody=
	fi
	chmod 755 .
	mkdir ro ok && chmod 555 ro && chmod 777 ok .
	$asnobody test -x "$JOULESTAT" -a -x "$JS_WORK" -a -r "$SIMLIB" ||
	    skip "nobody cannot run $JOULESTAT"
	! $asnobody sh -c ': >ro/probe' 2>/dev/null || skip "ro/ is writable even so"
	for k in report csv json timeline; do
		rm -f marker ok/*
		opts "$k" "$PWD/ro/x.out"
		mapfile -t o_args <opts
		try env NVSIM_SCENARIO="$SCN/demo.scn" $asnobody "$JOULESTAT" --nvml-lib="$SIMLIB" \
		    -i 50 "${o_args[@]}" -- sh -c "$WL" "$JS_WORK" 100ms 0
		check_refused "$PWD/ro/x.out"
		assert_match err 'Permission denied$'
	done
}

# ---- the directory is removed while the workload runs ----------------------

# The file was opened (and created) before the workload started; when its
# directory is gone at the end, what joulestat wrote is in no file.  That
# must be an error naming the file, not a silent loss with status 0.
vanish() {
	mkdir gone
	opts "$1" "$PWD/gone/x.out"
	mapfile -t o_args <opts
	NVSIM_SCENARIO="$SCN/demo.scn" spawn "$JOULESTAT" --nvml-lib="$SIMLIB" -i 50 \
	    "${o_args[@]}" -- sh -c "$WL" "$JS_WORK" 600ms "$2"
	wait_file w
	rm -rf gone
	reap
	check_outcome "$1" "$PWD/gone/x.out" "$2"
}

test_vanish_report() { vanish report 0; }
test_vanish_csv() { vanish csv 0; }
test_vanish_json() { vanish json 0; }
test_vanish_timeline() { vanish timeline 0; }
test_vanish_status_wins() { vanish csv 6; }

t_run "report to /dev/full: one error, 125, others whole" test_full_report
t_run "--csv to /dev/full: one error, 125, others whole" test_full_csv
t_run "--json to /dev/full: one error, 125, others whole" test_full_json
t_run "--timeline to /dev/full: one error, 125, others whole" test_full_timeline
t_run "each output to /dev/full: a failing workload's status wins" test_full_status_wins
t_run "report into a missing directory: one error, 125" test_nodir_report
t_run "--csv into a missing directory: one error, 125" test_nodir_csv
t_run "--json into a missing directory: one error, 125" test_nodir_json
t_run "--timeline into a missing directory: one error, 125" test_nodir_timeline
t_run "each output into a missing directory: the workload never runs" test_nodir_status_wins
t_run "each output under a regular file (ENOTDIR): one error, 125" test_notdir
t_run "each output into an unwritable directory: one error, 125" test_unwritable_dir
t_run "report whose directory is removed mid-run: an error, 125" test_vanish_report
t_run "--csv whose directory is removed mid-run: an error, 125" test_vanish_csv
t_run "--json whose directory is removed mid-run: an error, 125" test_vanish_json
t_run "--timeline whose directory is removed mid-run: an error, 125" test_vanish_timeline
t_run "a directory removed mid-run: the workload's status wins" test_vanish_status_wins
t_done
