#!/bin/bash
# The subreaper (HACKING.md, "Measurement rules"): a double-forked daemon stays in the measured
# tree, is counted and reaped, and its CPU time counts.  When the main
# workload exits with descendants still running, the report names them;
# --descendants=leave (default) lets them run, wait waits, kill kills.
. "$(dirname "$0")/lib.sh"

# daemon_pid FILE: the daemon's pid from its pid file, in $dpid; it is
# killed when the test ends, whatever happens.
daemon_pid() {
	wait_file "$1"
	dpid=$t_file_pid
	t_kill_later KILL "$dpid"
}

test_daemon_counted() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" daemonize -f d 300ms
	assert_rc 0
	csv_get s.csv processes scope=run
	assert_ge "$csv_v" 3 "processes (main, middle, daemon)"
}

# The daemon spins 100 ms of CPU; the main process and the middle one
# almost nothing.
test_daemon_cpu_counted() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" daemonize -f d 300ms
	assert_rc 0
	csv_get s.csv user_s scope=run
	assert_ge "$csv_v" 0.08 "user_s including the daemon"
}

# After the daemon ends, joulestat (its subreaper) must reap it while the
# rest of the workload still runs: no zombie is left.
test_daemon_reaped() {
	spawn "$JOULESTAT" -i 20 -q -- sh -c \
	    '"$0" daemonize -f d 200ms && exec "$0" -p r sleep "$1"' \
	    "$JS_WORK" "$((3 * TIMEOUT_MULT))s"
	wait_file r
	daemon_pid d
	poll -t 2 test ! -e "/proc/$dpid" ||
	    fail "the daemon is left as a zombie: $(cat "/proc/$dpid/stat" 2>&1)"
	reap
	assert_rc 0
}

# leave_check ARGS...: joulestat ARGS... on a daemon that outlives the main
# process: it exits without waiting, names the daemon, leaves it running.
leave_check() {
	try "$JOULESTAT" -i 20 "$@" -- "$JS_WORK" daemonize -d -f d 60s
	assert_rc 0
	daemon_pid d
	pid_alive "$dpid" || fail "the daemon did not survive joulestat"
	line=$(grep -m 1 'still running' err) ||
	    fail "the report does not say what is still running"
	printf '%s\n' "$line" | grep -qw "$dpid" ||
	    fail "the 'still running' line does not name pid $dpid: $line"
	printf '%s\n' "$line" | grep -qw 1 ||
	    fail "the 'still running' line does not count 1: $line"
	kill -KILL "$dpid"
}

test_leave_is_default() {
	leave_check
}

test_leave_explicit() {
	leave_check --descendants=leave
}

test_wait_for_daemon() {
	try "$JOULESTAT" -i 20 --descendants=wait --csv=s.csv -- \
	    "$JS_WORK" daemonize -d -f d 2s
	assert_rc 0
	daemon_pid d
	! pid_alive "$dpid" || fail "joulestat ended before the daemon"
	csv_get s.csv wall_s scope=run
	assert_ge "$csv_v" 2.0 "wall_s (the daemon lives 2 s)"
}

test_kill_daemon() {
	try "$JOULESTAT" -i 20 --descendants=kill -- "$JS_WORK" daemonize -d -f d 60s
	assert_rc 0
	daemon_pid d
	poll -t 1 t_not pid_alive "$dpid" ||
	    fail "the daemon survived --descendants=kill"
}

# A leftover that ignores SIGTERM still goes: SIGKILL after a grace period.
test_kill_stubborn_descendant() {
	try "$JOULESTAT" -i 20 --descendants=kill -- sh -c \
	    '"$0" -p i ignore TERM 60s &
	    while [ ! -s i ]; do sleep 0.05; done
	    exec "$0" sleep 200ms' "$JS_WORK"
	assert_rc 0
	daemon_pid i
	poll -t 1 t_not pid_alive "$dpid" ||
	    fail "a descendant that ignores SIGTERM survived --descendants=kill"
}

test_descendants_bogus() {
	try "$JOULESTAT" --descendants=bogus -- "$JS_WORK" exit 0
	assert_rc 125
	head -n 1 err | grep -q '^joulestat: ' ||
	    fail "first line of stderr does not start with 'joulestat: '"
	sed -n 2p err | grep -q '^usage: joulestat' || fail "no usage line"
}

t_run "a double-forked daemon is counted" test_daemon_counted
t_run "a daemon's CPU time counts in user_s" test_daemon_cpu_counted
t_run "a daemon that ends is reaped, not left a zombie" test_daemon_reaped
t_run "default: a daemon outliving main is reported and left running" test_leave_is_default
t_run "--descendants=leave reports and leaves the daemon" test_leave_explicit
t_run "--descendants=wait waits for the daemon" test_wait_for_daemon
t_run "--descendants=kill kills the daemon" test_kill_daemon
t_run "--descendants=kill kills a descendant that ignores SIGTERM" test_kill_stubborn_descendant
t_run "--descendants=bogus is a usage error" test_descendants_bogus
t_done
