#!/bin/bash
# The workload's stdin, stdout and stderr are its own: joulestat puts no
# pipe in between, writes its report only to stderr (or -o FILE), and
# leaks none of its descriptors into the workload.
. "$(dirname "$0")/lib.sh"

ECHO_OUT='js-work echo: this line goes to stdout'
ECHO_ERR='js-work echo: this line goes to stderr'

# assert_file_is FILE LINE...: FILE holds exactly these lines.
assert_file_is() {
	f=$1
	shift
	printf '%s\n' "$@" >expected
	cmp -s expected "$f" || fail "$f differs: got '$(head -c 2000 "$f")'"
}

# assert_report FILE: the human report's labels are all in FILE.
assert_report() {
	for label in 'exit status' 'wall time' 'user time' 'sys time' 'peak RSS' \
	    'processes' 'sampler'; do
		grep -q -- "$label" "$1" || fail "no '$label' in the report in $1"
	done
}

test_stdout_untouched() {
	try "$JOULESTAT" -- "$JS_WORK" echo
	assert_rc 0
	assert_file_is out "$ECHO_OUT"
}

test_stderr_workload_then_report() {
	try "$JOULESTAT" -- "$JS_WORK" echo
	assert_rc 0
	head -n 1 err | grep -qFx "$ECHO_ERR" ||
	    fail "the workload's stderr is not first on stderr"
	assert_report err
}

test_output_file_leaves_stderr_alone() {
	try "$JOULESTAT" -o report -- "$JS_WORK" echo
	assert_rc 0
	assert_file_is out "$ECHO_OUT"
	assert_file_is err "$ECHO_ERR"
	assert_report report
}

test_quiet_leaves_stderr_alone() {
	try "$JOULESTAT" -q -- "$JS_WORK" echo
	assert_rc 0
	assert_file_is out "$ECHO_OUT"
	assert_file_is err "$ECHO_ERR"
}

test_output_dash_is_stdout() {
	try "$JOULESTAT" -o - -- "$JS_WORK" echo
	assert_rc 0
	head -n 1 out | grep -qFx "$ECHO_OUT" ||
	    fail "the workload's stdout is not first on stdout"
	assert_report out
	assert_file_is err "$ECHO_ERR"
}

test_stdin_reaches_workload() {
	printf 'first line\n\0binary\377\376 no newline at the end' >in
	try_in in "$JOULESTAT" -- "$JS_WORK" echo
	assert_rc 0
	{ printf '%s\n' "$ECHO_OUT"; cat in; } >expected
	cmp -s expected out || fail "stdin did not reach the workload unchanged"
}

test_large_stdin_passes_through() {
	head -c 1048576 /dev/urandom >in
	try_in in "$JOULESTAT" -q -- "$JS_WORK" echo
	assert_rc 0
	{ printf '%s\n' "$ECHO_OUT"; cat in; } >expected
	cmp -s expected out || fail "1 MiB through stdin and stdout came out changed"
}

test_stdin_from_pipe() {
	printf 'piped\n' | timeout $((t_timeout * TIMEOUT_MULT)) \
	    "$JOULESTAT" -q -- "$JS_WORK" echo >out 2>err
	rc=$?
	assert_rc 0
	assert_file_is out "$ECHO_OUT" piped
}

# fds PID: the targets of the open descriptors of PID, one "N TARGET" a line.
fds() {
	for fd in /proc/"$1"/fd/*; do
		echo "${fd##*/} $(readlink "$fd")"
	done
}

test_stdio_are_joulestats_own() {
	spawn "$JOULESTAT" -q -- "$JS_WORK" -p w sleep 30s
	wait_file w
	for fd in 0 1 2; do
		mine=$(readlink "/proc/$t_pid/fd/$fd")
		theirs=$(readlink "/proc/$t_file_pid/fd/$fd")
		[ "$mine" = "$theirs" ] ||
		    fail "workload fd $fd is '$theirs', joulestat's is '$mine'"
	done
	kill "$t_file_pid"
	reap
}

# Started with stdin, stdout or stderr closed, joulestat holds them with
# /dev/null for its own files, and the workload gets them closed, as it
# would without joulestat: echo into a closed stdout fails (before: 0).
test_closed_stdio_stays_closed() {
	[ -z "${WRAP:-}" ] || skip "a checker's own log file would take the closed descriptor"
	try sh -c '"$0" -q -- /bin/echo hi >&- 2>/dev/null; echo "rc=$?" >rc2' "$JOULESTAT"
	assert_eq "$(cat rc2)" "rc=1" "echo into a closed stdout"
	try sh -c '"$0" -q -- sh -c "ls -l /proc/self/fd/0 >/dev/null 2>&1 && echo open ||
	    echo closed" <&-' "$JOULESTAT"
	assert_eq "$(cat out)" closed "the workload's stdin"
}

# Judged on the plain binary only: under a checker (make check-valgrind)
# the checker's own log descriptors reach the workload.
# no_leaks [JOULESTAT-OPTION...]: the workload has the descriptors it has without joulestat.
no_leaks() {
	[ -z "${WRAP:-}" ] || skip "the checker's descriptors would count"
	timeout $((t_timeout * TIMEOUT_MULT)) "$JS_WORK" -p d sleep 30s </dev/null >/dev/null 2>&1 &
	t_kill_later TERM $!
	wait_file d
	fds "$t_file_pid" >direct
	kill "$t_file_pid"
	spawn "$JOULESTAT" -q "$@" -- "$JS_WORK" -p w sleep 30s
	wait_file w
	fds "$t_file_pid" >under
	kill "$t_file_pid"
	reap
	extra=$(awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' direct under)
	[ -z "$extra" ] || fail "descriptors leaked into the workload: $(echo "$extra" | tr "\n" ";")"
}

test_no_descriptor_leaks() {
	no_leaks
}

# The simulated NVML, like the driver's library, holds a descriptor without
# O_CLOEXEC from nvmlInit on; the workload must not get it.
test_no_library_descriptor_leaks() {
	NVSIM_SCENARIO=$TOP/tests/sim/scenarios/demo.scn no_leaks --nvml-lib="$SIMLIB"
}

# only_fds FD:FILE... -- CMD...: CMD with stdin from /dev/null, stdout to
# out, stderr to err and, beside them, the given descriptors only (read
# from FILE), whatever this shell holds open: the dense 0..n-1 case
# (3 alone) and gaps (5 and 9) are both joulestat's to tell apart.
only_fds() {
	timeout -k 5 $((t_timeout * TIMEOUT_MULT)) python3 -c '
import os, sys
a = sys.argv[1:]
k = a.index("--")
os.closerange(3, 65536)
for spec in a[:k]:
	n, path = spec.split(":", 1)
	fd = os.open(path, os.O_RDONLY)
	if fd != int(n):
		os.dup2(fd, int(n))
		os.close(fd)
	else:
		os.set_inheritable(fd, True)
os.execvp(a[k + 1], a[k + 1:])' "$@" </dev/null >out 2>err
	rc=$?
}

# given [JOULESTAT-OPTION...]: the descriptors the workload was given
# beside stdio reach it open, and nothing else does.
given() {
	[ -z "${WRAP:-}" ] || skip "the checker's descriptors would count"
	echo three >f3
	echo five >f5
	echo nine >f9
	only_fds 3:f3 -- "$JOULESTAT" -q "$@" -- sh -c 'cat <&3; ls /proc/$$/fd; exit 0'
	assert_rc 0
	assert_file_is out three 0 1 2 3
	only_fds 5:f5 9:f9 -- "$JOULESTAT" -q "$@" -- sh -c 'cat <&5; cat <&9; ls /proc/$$/fd; exit 0'
	assert_rc 0
	assert_file_is out five nine 0 1 2 5 9
}

test_given_descriptors_reach_workload() {
	given
}

# With a library loaded, its descriptors are sealed but the given ones stay.
test_given_descriptors_with_library() {
	NVSIM_SCENARIO=$TOP/tests/sim/scenarios/demo.scn given --nvml-lib="$SIMLIB"
}

test_report_file_when_workload_fails() {
	try "$JOULESTAT" -o report -- "$JS_WORK" exit 7
	assert_rc 7
	assert_report report
}

test_output_unwritable() {
	try "$JOULESTAT" -o /nonexistent/dir/report -- "$JS_WORK" exit 0
	assert_rc 125
	head -n 1 err | grep -q '^joulestat: ' ||
	    fail "no 'joulestat: ' message on stderr"
}

# The reader of the timeline on stdout takes its header and goes; the
# workload ends only then, so the rows after it meet a broken pipe.
test_broken_pipe_names_stdout() {
	NVSIM_SCENARIO=$TOP/tests/sim/scenarios/demo.scn timeout -k 5 $((30 * TIMEOUT_MULT)) \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" -q --timeline=- -- \
	    sh -c 'until [ -e gone ]; do sleep 0.01; done' 2>err </dev/null |
	    sh -c 'head -n 1 >/dev/null; exec touch gone <&-'
	rc=${PIPESTATUS[0]}
	assert_rc 125
	assert_match err '^joulestat: standard output: Broken pipe$'
	assert_no_match err '^joulestat: -:'
}

t_run "the workload's stdout is untouched" test_stdout_untouched
t_run "stderr has the workload's text, then the report" test_stderr_workload_then_report
t_run "-o FILE leaves stderr to the workload" test_output_file_leaves_stderr_alone
t_run "-q leaves stderr to the workload" test_quiet_leaves_stderr_alone
t_run "-o - writes the report to stdout" test_output_dash_is_stdout
t_run "stdin reaches the workload byte for byte" test_stdin_reaches_workload
t_run "1 MiB passes through stdin and stdout" test_large_stdin_passes_through
t_run "stdin from a pipe reaches the workload" test_stdin_from_pipe
t_run "the workload's stdio are joulestat's own files" test_stdio_are_joulestats_own
t_run "stdio closed for joulestat stay closed for the workload" test_closed_stdio_stays_closed
t_run "no joulestat descriptor leaks into the workload" test_no_descriptor_leaks
t_run "no NVML library descriptor leaks into the workload" test_no_library_descriptor_leaks
t_run "descriptors given to joulestat reach the workload" test_given_descriptors_reach_workload
t_run "given descriptors stay open when a library is loaded" test_given_descriptors_with_library
t_run "-o FILE gets the report when the workload fails" test_report_file_when_workload_fails
t_run "-o to an unwritable path is 125" test_output_unwritable
t_run "a broken pipe on stdout is named standard output" test_broken_pipe_names_stdout
t_done
