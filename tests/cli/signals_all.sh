#!/bin/bash
# Every catchable terminating signal is handled like SIGTERM (joulestat(1),
# SIGNALS): forwarded, the report written.  A stop signal before the
# workload starts, or between the runs of a series, ends joulestat with
# 128+N; a stopped workload still ends on SIGTERM.  Readiness is polled.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

# The workload dies of the forwarded signal (128+N) and the summary is written.
test_every_terminating_signal() {
	ulimit -c 0
	for sig in PROF VTALRM IO PWR SYS XCPU XFSZ STKFLT RTMIN RTMAX USR1; do
		# valgrind keeps SIGSYS and SIGRTMAX for itself: the program under it
		# never sees them.
		case $sig in SYS | RTMAX) [ -n "${WRAP:-}" ] && continue ;; esac
		rm -f s.csv w
		spawn "$JOULESTAT" --csv=s.csv -- "$JS_WORK" -p w sleep 30s
		wait_file w
		wpid=$t_file_pid
		n=$(kill -l "$sig")
		wait_for sig_handled "$t_pid" "$n"
		kill -s "$sig" "$t_pid"
		reap
		assert_rc $((128 + n))
		[ -s s.csv ] || fail "SIG$sig: no summary"
		csv_get s.csv exit_status scope=run run=1
		assert_eq "$csv_v" $((128 + n)) "SIG$sig: the workload's status in the summary"
		! pid_alive "$wpid" || fail "SIG$sig: the workload was orphaned"
	done
}

# NVML takes 3 s to count its GPUs: SIGINT then ends joulestat with 130
# and the command never runs (before: it ran, exit 0).
test_signal_during_slow_startup() {
	sed 's/^device 0$/slow nvmlDeviceGetCount_v2 3000 0 100000\ndevice 0/' \
	    "$SCN/gate.scn" >slowinit.scn
	NVSIM_SCENARIO=$PWD/slowinit.scn spawn "$JOULESTAT" --nvml-lib="$SIMLIB" --csv=s.csv \
	    -- sh -c 'touch ran'
	wait_for sig_handled "$t_pid" 2
	kill -s INT "$t_pid"
	reap
	assert_rc 130
	[ ! -e ran ] || fail "the command ran"
	assert_match err 'signal 2 before the command started: it was not run'
}

# SIGTERM during --cooldown: 143, and the series is said to be interrupted
# (before: exit 0, one run reported as the whole series).
test_signal_during_cooldown() {
	spawn "$JOULESTAT" -r 3 --cooldown=60 --csv=s.csv -- sh -c 'echo x >>runs'
	wait_for test -s runs
	# Run 1's workload is reaped: joulestat waits in the cooldown.
	wait_for test -z "$(cat /proc/"$t_pid"/task/"$t_pid"/children 2>/dev/null)"
	kill -s TERM "$t_pid"
	reap
	assert_rc 143
	assert_eq "$(wc -l <runs | tr -d ' ')" 1 "runs started"
	assert_match err 'signal 15: the series was interrupted after 1 of 3 runs'
}

# SIGINT during run 1 of a workload that ignores it and succeeds: the
# series stops after that run, and says so (before: "signal 2 before the
# command started: it was not run", though run 1 was reported).
test_signal_during_first_run() {
	spawn "$JOULESTAT" -r 3 --csv=s.csv -- sh -c 'trap "" INT; echo x >>runs; sleep 1'
	wait_for test -s runs
	wait_for sig_handled "$t_pid" 2
	kill -s INT "$t_pid"
	reap
	assert_rc 130
	assert_eq "$(wc -l <runs | tr -d ' ')" 1 "runs started"
	assert_match err 'signal 2: the series was interrupted after 1 of 3 runs'
	assert_no_match err 'it was not run'
}

# A stopped workload: SIGTERM is forwarded, then SIGCONT (as timeout(1)).
test_term_reaches_stopped_workload() {
	spawn -t 20 "$JOULESTAT" -- "$JS_WORK" -p w sleep 30s
	wait_file w
	wpid=$t_file_pid
	kill -s STOP "$wpid"
	wait_for sh -c "grep -q '^State:.*T' /proc/$wpid/status"
	wait_for sig_handled "$t_pid" 15
	kill -s TERM "$t_pid"
	reap
	assert_rc 143
}

t_run "every catchable terminating signal is forwarded and the report written" \
    test_every_terminating_signal
t_run "a signal during a slow start-up: 128+N, the command never runs" test_signal_during_slow_startup
t_run "a signal during --cooldown ends the series with 128+N" test_signal_during_cooldown
t_run "a signal during run 1 of 3 ends the series after it, said so" \
    test_signal_during_first_run
t_run "SIGTERM reaches a stopped workload" test_term_reaches_stopped_workload
t_done
