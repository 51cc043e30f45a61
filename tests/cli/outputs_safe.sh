#!/bin/bash
# Outputs never destroy each other or earlier results (joulestat(1), FILES):
# two outputs on one file, or an output on joulestat's own stdout/stderr,
# are refused (125) before the command runs; regular files are written to a
# temporary file and renamed at the end, with the mode a plain open gives;
# names that look like options, an explicit - on a closed stdout and a FIFO
# without a reader are errors, not losses or hangs.
. "$(dirname "$0")/lib.sh"

# refused CMD...: joulestat refused at once, 125, the workload never ran.
refused() {
	try "$JOULESTAT" "$@" -- sh -c 'touch ran'
	assert_rc 125
	[ ! -e ran ] || fail "the workload ran: $*"
}

test_same_file_refused() {
	refused -o r.txt --csv=r.txt
	assert_match err 'name the same file'
	refused --csv=t.csv --timeline=./t.csv
	refused --json=j.png --plot=j.png
	echo earlier >e.csv
	ln -s e.csv link.csv
	refused --csv=e.csv --json=link.csv
	assert_eq "$(cat e.csv)" earlier "e.csv"
}

# --csv=/dev/stdout with stdout on a file: 753 of 1000 lines of the
# workload survived; under >> app.log the log was truncated.
test_own_stdout_refused() {
	seq 1 5 >app.log
	try_in /dev/null sh -c '"$0" --csv=/dev/stdout -- seq 1 1000 >>app.log' "$JOULESTAT"
	assert_rc 125
	assert_eq "$(wc -l <app.log | tr -d ' ')" 5 "lines of app.log kept"
	assert_match err "joulestat's own standard output"
	refused --csv=- -o -
}

# A failure before the run, and a run killed by SIGKILL, keep the earlier results.
test_earlier_results_survive() {
	echo earlier >s.csv
	echo earlier >j.json
	echo earlier >t.csv
	refused --csv=s.csv --json=j.json -p 999999999
	assert_eq "$(cat s.csv)" earlier "s.csv after a dead -p"
	# The timeline is written in place: opened only once set-up has succeeded.
	try "$JOULESTAT" --csv=s.csv --timeline=t.csv -p 999999999
	assert_rc 125
	assert_eq "$(cat t.csv)" earlier "t.csv after a dead -p"
	assert_eq "$(cat s.csv)" earlier "s.csv after a dead -p (attached)"
	spawn "$JOULESTAT" --csv=s.csv --json=j.json -- "$JS_WORK" -p w sleep 30s
	wait_file w
	kill -s KILL "$t_pid"
	reap
	assert_eq "$(cat s.csv)" earlier "s.csv after SIGKILL"
	assert_eq "$(cat j.json)" earlier "j.json after SIGKILL"
	try "$JOULESTAT" -q --csv=s.csv -- true
	assert_rc 0
	assert_match s.csv '^schema_version,'
}

test_mode_of_a_plain_open() {
	(umask 027 && try "$JOULESTAT" -q --csv=new.csv -- true)
	assert_eq "$(stat -c %a new.csv)" 640 "mode of a new file under umask 027"
	: >old.csv
	chmod 604 old.csv
	try "$JOULESTAT" -q --csv=old.csv -- true
	assert_eq "$(stat -c %a old.csv)" 604 "mode of a replaced file"
	assert_eq "$(ls -A | grep -c '^\.old\.csv\.')" 0 "temporary files left"
}

# --json -- cmd made a file named --.
test_option_like_names() {
	refused --json --
	assert_match err "'--' is not a file name \(write \./-- for a file of that name\)"
	try "$JOULESTAT" -q --json=./-- -- true
	assert_rc 0
	[ -s ./-- ] || fail "./-- was not written"
}

test_closed_stdout_and_fifo() {
	# A checker's own log file would take the closed descriptor.
	if [ -z "${WRAP:-}" ]; then
		try sh -c 'exec "$0" -q --csv=- -- true >&-' "$JOULESTAT"
		assert_rc 125
		assert_match err 'standard output is closed'
	fi
	mkfifo f
	refused --csv=f
	assert_match err '^joulestat: f: no reader on this FIFO'
	# The streamed timeline too: no open that waits where no signal reaches it.
	try -t 10 "$JOULESTAT" -q --timeline=f -- sh -c 'touch ran'
	assert_rc 125
	assert_match err '^joulestat: f: no reader on this FIFO'
	[ ! -e ran ] || fail "the workload ran"
}

# Through a symbolic link (/dev/stdout is one) the file it leads to is the
# output, and the link stays: --list-devices and merge replaced the link
# itself with a regular file (as root, /dev/stdout of the whole machine).
# joulestat's own standard input is refused as its standard output is; a
# device such as /dev/null is no file to lose.
test_links_and_std_streams() {
	ln -s /proc/self/fd/1 out-link
	try sh -c '"$0" --list-devices --json=out-link >listed' "$JOULESTAT"
	assert_rc 125
	assert_match err "joulestat's own standard output"
	[ -L out-link ] || fail "the link was replaced"
	try "$JOULESTAT" -q --csv=s.csv -- true
	try sh -c '"$0" merge -q s.csv --json=out-link >merged' "$JOULESTAT"
	assert_rc 125
	[ -L out-link ] || fail "the link was replaced by merge"
	echo earlier >e.csv
	ln -s e.csv to-e.csv
	try "$JOULESTAT" -q --csv=to-e.csv -- true
	assert_rc 0
	[ -L to-e.csv ] || fail "to-e.csv is no longer a link"
	assert_match e.csv '^schema_version,'
	echo input >in.txt
	try_in in.txt "$JOULESTAT" -q --csv=in.txt -- cat
	assert_rc 125
	assert_match err "in.txt: that is joulestat's own standard input"
	assert_eq "$(cat in.txt)" input "in.txt"
	try sh -c '"$0" -q --csv=/dev/null -- true >/dev/null' "$JOULESTAT"
	assert_rc 0
}

# merge and report do not write over the files they read; merge still takes
# a rank once; --markdown=github's file is checked as the others are.
test_inputs_kept() {
	try "$JOULESTAT" -q --csv=a.csv --json=r.json -- true
	cp a.csv a0.csv
	cp r.json r0.json
	try "$JOULESTAT" merge -q a.csv --csv=a.csv
	assert_rc 125
	assert_match err 'merge: --csv a.csv: that is the input a.csv'
	cmp -s a.csv a0.csv || fail "merge replaced its input"
	try "$JOULESTAT" merge -q a.csv ./a.csv --csv=m.csv
	assert_rc 125
	assert_match err 'merge: a\.csv: host .* is also in \./a\.csv'
	try "$JOULESTAT" report --markdown=r.json r.json
	assert_rc 125
	cmp -s r.json r0.json || fail "report replaced its input"
	echo summary >sum.md
	try env GITHUB_STEP_SUMMARY="$PWD/sum.md" "$JOULESTAT" -q --markdown=github \
	    --csv=sum.md -- sh -c 'touch ran'
	assert_rc 125
	assert_match err 'name the same file'
	assert_eq "$(cat sum.md)" summary "the step summary"
	[ ! -e ran ] || fail "the workload ran"
}

# A file that may be written in a directory that may not: written through
# the temporary directory and copied in at the end (before: "Permission
# denied", nothing written); a run that fails still leaves it whole.
test_file_in_readonly_dir() {
	. "$TOP/tests/fixtures/writer.sh"
	fx_nodac || skip "root cannot drop CAP_DAC_OVERRIDE here (no setpriv or no CAP_SETPCAP)"
	mkdir rodir tmp
	echo earlier >rodir/r.csv
	chmod 666 rodir/r.csv
	chmod 555 rodir
	try env TMPDIR="$PWD/tmp" "${FX_NODAC[@]}" "$JOULESTAT" -q --csv=rodir/r.csv \
	    -p 999999999
	assert_rc 125
	assert_eq "$(cat rodir/r.csv)" earlier "r.csv after a failed run"
	try env TMPDIR="$PWD/tmp" "${FX_NODAC[@]}" "$JOULESTAT" -q --csv=rodir/r.csv -- true
	chmod 755 rodir
	assert_rc 0
	assert_match rodir/r.csv '^schema_version,'
	[ -z "$(ls -A tmp)" ] || fail "temporary files left: $(ls -A tmp)"
}

# A name of 250 bytes (the temporary file's would pass NAME_MAX).
test_long_name() {
	n=$(printf 'a%.0s' $(seq 1 250)).csv
	try "$JOULESTAT" -q --csv="$n" -- true
	assert_rc 0
	[ -s "$n" ] || fail "the long name was not written"
}

test_merge_one_document_on_stdout() {
	try "$JOULESTAT" -q --csv=s.csv -- true
	try "$JOULESTAT" merge -o - --json=- s.csv
	assert_rc 125
	assert_match err 'only one of -o, --csv and --json can be -'
}

t_run "two outputs on one file are refused before the run" test_same_file_refused
t_run "an output on joulestat's own stdout is refused" test_own_stdout_refused
t_run "a failure before the run or SIGKILL keeps the earlier results" test_earlier_results_survive
t_run "outputs get the mode a plain open gives" test_mode_of_a_plain_open
t_run "output names that look like options are refused" test_option_like_names
t_run "- on a closed stdout and a FIFO without reader are errors" test_closed_stdout_and_fifo
t_run "merge: one document on stdout" test_merge_one_document_on_stdout
t_run "links lead to their file; stdin is refused; /dev/null is no file" \
    test_links_and_std_streams
t_run "merge and report keep their inputs; --markdown=github is checked" test_inputs_kept
t_run "a 250-byte name is written" test_long_name
t_run "a writable file in a directory that is not: written, kept on failure" \
    test_file_in_readonly_dir
t_done
