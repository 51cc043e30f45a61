#!/bin/bash
# Attach mode: -p PID[,PID...] measures processes that are already running,
# until they have all exited, or until joulestat gets SIGINT; either way it
# writes a report and exits 0.  It never kills what it attached to.
. "$(dirname "$0")/lib.sh"

assert_report() {
	for label in 'wall time' 'user time' 'sys time' 'peak RSS' 'processes' \
	    'sampler'; do
		grep -q -- "$label" "$1" || fail "no '$label' in the report in $1"
	done
}

# target FILE DUR: start js-work pidfile FILE DUR in the background (not a
# child of joulestat); its pid in $tpid once it is up.  Lifetimes scale
# with TIMEOUT_MULT: a slow joulestat must still find its targets alive.
target() {
	timeout -k 5 $((60 * TIMEOUT_MULT)) "$JS_WORK" pidfile "$1" "$2" \
	    </dev/null >/dev/null 2>&1 &
	t_kill_later TERM $!
	wait_file "$1"
	tpid=$t_file_pid
	t_kill_later KILL "$tpid"
}

test_attach_until_exit() {
	target f $((2 * TIMEOUT_MULT))s
	try "$JOULESTAT" -i 20 --csv=s.csv -p "$tpid"
	assert_rc 0
	! pid_alive "$tpid" || fail "joulestat returned before the process ended"
	assert_report err
	csv_get s.csv wall_s scope=run
	assert_ge "$csv_v" 0.5 wall_s
}

test_attach_long_option() {
	target f $((1 * TIMEOUT_MULT))s
	try "$JOULESTAT" -i 20 --pid="$tpid"
	assert_rc 0
	! pid_alive "$tpid" || fail "joulestat returned before the process ended"
	assert_report err
}

test_attach_two() {
	target f1 $((1 * TIMEOUT_MULT))s
	t1=$tpid
	target f2 $((2 * TIMEOUT_MULT))s
	t2=$tpid
	try "$JOULESTAT" -i 20 --csv=s.csv -p "$t1,$t2"
	assert_rc 0
	! pid_alive "$t1" || fail "joulestat returned before $t1 ended"
	! pid_alive "$t2" || fail "joulestat returned before $t2 ended"
	csv_get s.csv processes scope=run
	assert_ge "$csv_v" 2 processes
}

# ready_or_gone PID: PID is measuring, so that SIGINT ends the measurement
# (its timer, made when the run starts, is open), or no longer running.
# A SIGINT during set-up, after the signals are taken but before the run,
# rightly ends joulestat with 130 and no measurement.
ready_or_gone() {
	for t_fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$t_fd" 2>/dev/null)" = 'anon_inode:[timerfd]' ] && return 0
	done
	! pid_alive "$1"
}

# SIGINT ends the measurement early, with a report, exit 0, and the
# attached process keeps running.
test_attach_interrupted() {
	# Under valgrind, which takes the signals, when joulestat is ready cannot be
	# seen, and a SIGINT during start-up rightly ends it with 130.
	[ -z "${WRAP:-}" ] || skip "under a checker (${WRAP%% *}), start-up cannot be told apart"
	target f 60s
	spawn "$JOULESTAT" -i 20 --csv=s.csv -p "$tpid"
	wait_for ready_or_gone "$t_pid"
	if ! pid_alive "$t_pid"; then
		reap
		fail "joulestat ended before SIGINT, status $rc"
	fi
	kill -INT "$t_pid"
	reap
	assert_rc 0
	assert_report err
	"$CSVTOOL" check s.csv >/dev/null 2>&1 || fail "s.csv is not consistent CSV"
	pid_alive "$tpid" || fail "the attached process was killed"
}

test_attach_quiet() {
	target f $((1 * TIMEOUT_MULT))s
	try "$JOULESTAT" -q -p "$tpid"
	assert_rc 0
	[ ! -s err ] || fail "-q still wrote to stderr"
}

# A thread id has a /proc entry but is no process: say which process it is part of.
test_attach_thread_id() {
	timeout -k 5 $((60 * TIMEOUT_MULT)) "$JS_WORK" -p f thread $((30 * TIMEOUT_MULT))s \
	    </dev/null >/dev/null 2>&1 &
	t_kill_later TERM $!
	wait_file f
	tpid=$t_file_pid
	t_kill_later KILL "$tpid"
	tid=$(ls "/proc/$tpid/task" | grep -vx "$tpid" | head -n 1)
	[ -n "$tid" ] || fail "js-work thread has no second thread"
	try "$JOULESTAT" -q -p "$tid"
	assert_rc 125
	assert_match err "^joulestat: --pid $tid: a thread of process $tpid, not a process\$"
	[ "$(wc -l <err)" -eq 1 ] || fail "not one line"
	kill "$tpid"
}

# utime_at_least PID TICKS: PID has used at least TICKS clock ticks of user time.
utime_at_least() {
	t_utime=$(stat_field "$1" 12) && [ "$t_utime" -ge "$2" ]
}

# What the process used before joulestat attached is not in the report: a
# spinner with 1.5 s of user time behind it, attached for a moment.
test_attach_cpu_from_attach() {
	hz=$(getconf CLK_TCK)
	timeout -k 5 $((60 * TIMEOUT_MULT)) "$JS_WORK" -p f spin 60s </dev/null >/dev/null 2>&1 &
	t_kill_later TERM $!
	wait_file f
	tpid=$t_file_pid
	t_kill_later KILL "$tpid"
	wait_for utime_at_least "$tpid" $((hz * 3 / 2))
	spawn "$JOULESTAT" -i 20 --csv=s.csv -p "$tpid"
	wait_for ready_or_gone "$t_pid"
	kill -INT "$t_pid"
	reap
	assert_rc 0
	csv_get s.csv user_s scope=run
	assert_le "$csv_v" 1.0 "user_s of a moment's attach"
}

# A zombie has no tree to measure: its processes and peak tree RSS are
# unknown (empty in the CSV, null in the JSON), not 0.
test_attach_zombie_unknown() {
	# The shell's child ends at once; sleep, exec'd in the shell's place, never reaps it.
	timeout -k 5 $((60 * TIMEOUT_MULT)) sh -c '"$1" -p f exit 0 & exec sleep 60' sh "$JS_WORK" \
	    </dev/null >/dev/null 2>&1 &
	t_kill_later TERM $!
	wait_file f
	wait_for is_zombie "$t_file_pid"
	try "$JOULESTAT" -i 20 --csv=s.csv --json=r.json -p "$t_file_pid"
	assert_rc 0
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" "" "CSV processes"
	csv_get s.csv peak_tree_rss_kib scope=run
	assert_eq "$csv_v" "" "CSV peak_tree_rss_kib"
	assert_eq "$("$JSONTOOL" get r.json .runs[0].processes)" null "JSON processes"
	assert_eq "$("$JSONTOOL" get r.json .runs[0].peak_tree_rss_kib)" null "JSON peak_tree_rss_kib"
	assert_match err 'processes +unknown'
}

t_run "-p PID measures until the process exits" test_attach_until_exit
t_run "--pid=PID works" test_attach_long_option
t_run "-p A,B waits for both" test_attach_two
t_run "SIGINT ends attach mode early with a report" test_attach_interrupted
t_run "-q in attach mode prints nothing" test_attach_quiet
t_run "-p with a thread id names its process" test_attach_thread_id
t_run "attach mode counts CPU time from the attach on" test_attach_cpu_from_attach
t_run "an attached zombie: processes and tree RSS are unknown" test_attach_zombie_unknown
t_done
