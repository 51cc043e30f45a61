#!/bin/bash
# Signals: SIGTERM and SIGHUP sent to joulestat alone are
# forwarded to the workload; SIGINT and SIGQUIT sent to the whole process
# group (the terminal's ^C and ^\) reach the workload while joulestat
# survives; either way the report is written and the exit status mirrors
# the workload's death.  The workload gets a clean signal state.
# Readiness is always polled through js-work's pid file, never slept on.
. "$(dirname "$0")/lib.sh"

assert_report() {
	for label in 'exit status' 'wall time' 'user time' 'sys time' 'peak RSS' \
	    'processes' 'sampler'; do
		grep -q -- "$label" "$1" || fail "no '$label' in the report in $1"
	done
}

# forwarded SIG STATUS: SIG to joulestat alone ends a wait-signal workload.
forwarded() {
	spawn "$JOULESTAT" -- "$JS_WORK" -p w wait-signal 30s
	wait_file w
	wpid=$t_file_pid
	kill -s "$1" "$t_pid"
	reap
	assert_rc "$2"
	assert_report err
	! pid_alive "$wpid" || fail "the workload is still running"
}

test_term_forwarded() {
	forwarded TERM 143
}

test_hup_forwarded() {
	forwarded HUP 129
}

# to_group SIG STATUS: SIG to joulestat's whole process group, as a
# terminal does; joulestat runs in a session of its own (setsid).
to_group() {
	spawn setsid "$JOULESTAT" -- "$JS_WORK" -p w wait-signal 30s
	wait_file w
	wpid=$t_file_pid
	pgid=$(ps -o pgid= -p "$wpid" | tr -d ' ')
	assert_eq "$pgid" "$t_pid" "the workload's process group"
	kill -s "$1" -- "-$t_pid"
	reap
	assert_rc "$2"
	assert_report err
}

test_int_to_group() {
	to_group INT 130
}

test_quit_to_group() {
	to_group QUIT 131
}

# The workload ignores SIGTERM and sleeps 2 s: two SIGTERMs to joulestat
# must neither kill joulestat nor lose the report.
test_second_term_keeps_report() {
	spawn "$JOULESTAT" -- "$JS_WORK" -p w ignore TERM 2s
	wait_file w
	kill -TERM "$t_pid"
	sleep 0.2
	kill -TERM "$t_pid"
	reap
	assert_rc 0
	assert_report err
}

test_term_report_to_file() {
	spawn "$JOULESTAT" -o report --csv=s.csv -- "$JS_WORK" -p w wait-signal 30s
	wait_file w
	kill -TERM "$t_pid"
	reap
	assert_rc 143
	assert_report report
	"$CSVTOOL" check s.csv >/dev/null 2>&1 || fail "s.csv is not consistent CSV"
}

# sigline PID KEY: the signal mask KEY (SigBlk, SigIgn) of PID.
sigline() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"
}

# The workload's blocked and ignored signals are what they would be if the
# shell had started it: joulestat's own mask (signalfd) does not leak.
test_clean_signal_state() {
	timeout $((t_timeout * TIMEOUT_MULT)) "$JS_WORK" -p d sleep 30s </dev/null >/dev/null 2>&1 &
	t_kill_later TERM $!
	wait_file d
	blk=$(sigline "$t_file_pid" SigBlk)
	ign=$(sigline "$t_file_pid" SigIgn)
	kill "$t_file_pid"
	spawn "$JOULESTAT" -q -- "$JS_WORK" -p w sleep 30s
	wait_file w
	wblk=$(sigline "$t_file_pid" SigBlk)
	wign=$(sigline "$t_file_pid" SigIgn)
	kill "$t_file_pid"
	reap
	assert_eq "$wblk" "$blk" "blocked signals of the workload"
	assert_eq "$wign" "$ign" "ignored signals of the workload"
}

# The workload is joulestat's own child, so signals forwarded to "the
# child" reach the command the user named.
test_workload_is_direct_child() {
	spawn "$JOULESTAT" -q -- "$JS_WORK" -p w sleep 30s
	wait_file w
	ppid=$(ppid_of "$t_file_pid")
	kill "$t_file_pid"
	reap
	assert_eq "$ppid" "$t_pid" "the workload's parent"
}

t_run "SIGTERM to joulestat is forwarded: 143 and a report" test_term_forwarded
t_run "SIGHUP to joulestat is forwarded: 129 and a report" test_hup_forwarded
t_run "SIGINT to the process group: 130 and a report" test_int_to_group
t_run "SIGQUIT to the process group: 131 and a report" test_quit_to_group
t_run "a second SIGTERM does not lose the report" test_second_term_keeps_report
t_run "after SIGTERM, -o and --csv files are complete" test_term_report_to_file
t_run "the workload starts with a clean signal state" test_clean_signal_state
t_run "the workload is joulestat's direct child" test_workload_is_direct_child
t_done
