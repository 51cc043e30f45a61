#!/bin/bash
# --exclusive: runs that share a device measure one at a time, through a
# flock(2) file per device in $TMPDIR; --exclusive-timeout; the lock goes
# with its holder however it ends.  Without --exclusive, a device shared
# with other processes is named next to its energy.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

# Lock files go to the test's own directory, away from other runs.
export TMPDIR=$PWD

# holder SECONDS: joulestat --exclusive around a workload of SECONDS in the
# background; its pid in $holder, its workload's in ./w.pid, its CSV in a.csv.
holder() {
	export NVSIM_SCENARIO=$SCN/gate.scn TMPDIR=$PWD
	spawn sh -c 'exec "$@" 2>a.err' sh "$JOULESTAT" --nvml-lib="$SIMLIB" -q --exclusive \
	    --csv=a.csv -- "$JS_WORK" -p w.pid sleep "$1"
	holder=$t_pid
	wait_file w.pid
}

second() {
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q "$@"
}

test_second_run_waits() {
	holder 1.5s
	second --exclusive --csv=b.csv -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	assert_match err "^joulestat: waiting for device GPU-9a7e0001-1c2d-4e3f-8a9b-0c1d2e3f4a5b, in use by joulestat pid $holder \(--exclusive\)\$"
	reap
	assert_rc 0
	csv_get a.csv start_unix_s scope=run
	a_start=$csv_v
	csv_get a.csv wall_s scope=run
	a_end=$(calc "$a_start + $csv_v")
	csv_get b.csv start_unix_s scope=run
	note "first run ended at $a_end, the second started at $csv_v"
	assert_ge "$csv_v" "$a_end" "the second run starts after the first ended"
	[ -f "joulestat-GPU-9a7e0001-1c2d-4e3f-8a9b-0c1d2e3f4a5b.lock" ] ||
	    fail "no lock file named by the device UUID in \$TMPDIR"
}

test_timeout() {
	holder 3s
	echo "yesterday's summary" >old.csv
	start=$(date +%s%N)
	second --exclusive-timeout=0.3 --csv=old.csv -- sh -c 'touch ran'
	ms=$((($(date +%s%N) - start) / 1000000))
	assert_rc 125
	assert_eq "$(cat old.csv)" "yesterday's summary" "an output given up on is left as it was"
	assert_match err "^joulestat: --exclusive: device GPU-9a7e0001-1c2d-4e3f-8a9b-0c1d2e3f4a5b is still in use by joulestat pid $holder after 0\.3 s \(--exclusive-timeout\)\$"
	[ ! -e ran ] || fail "the workload ran without the lock"
	assert_le "$ms" 2500 "gave up before the holder finished"
	kill "$holder"
	reap
}

# The kernel drops a flock with its holder, even one killed by SIGKILL.
test_lock_dies_with_holder() {
	holder 30s
	sh -c 'exec "$0" --nvml-lib="$1" -q --exclusive --csv=b.csv -- "$2" sleep 0.1s 2>b.err' \
	    "$JOULESTAT" "$SIMLIB" "$JS_WORK" &
	b=$!
	t_kill_later TERM "$b"
	wait_for grep -q waiting b.err
	kill -KILL "$holder"
	reap
	wait "$b"
	assert_eq "$?" 0 "the waiting run went on"
	csv_get b.csv exit_status scope=run
	assert_eq "$csv_v" 0 "the waiting run measured its workload"
	kill "$(cat w.pid)" 2>/dev/null
}

# A signal while waiting ends joulestat before the workload starts.
test_signal_while_waiting() {
	holder 30s
	NVSIM_SCENARIO=$SCN/gate.scn "$JOULESTAT" --nvml-lib="$SIMLIB" -q --exclusive -- \
	    sh -c 'touch ran' 2>b.err &
	b=$!
	t_kill_later TERM "$b"
	wait_for grep -q waiting b.err
	kill -TERM "$b"
	wait "$b"
	assert_eq "$?" 143 "exit status after SIGTERM while waiting"
	[ ! -e ran ] || fail "the workload ran"
	# Said, as for a signal during --idle-baseline (before: nothing).
	assert_match b.err 'signal 15 while waiting for --exclusive: the command was not run'
	kill "$holder"
	reap
}

# Different devices do not wait for each other; without --exclusive nobody waits.
test_no_wait_without_overlap() {
	holder 3s
	NVSIM_SCENARIO=$SCN/two-gpus.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q --exclusive \
	    -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	assert_no_match err waiting
	second -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	assert_no_match err waiting
	kill "$holder"
	reap
}

test_shared_device_is_named() {
	NVSIM_SCENARIO=$SCN/foreign.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -- \
	    "$JS_WORK" sleep 0.5s
	assert_rc 0
	grep -A1 '^   energy ' err >e
	assert_match e 'shared: other processes used this device during the run'
	assert_match e 'not all of it is the workload.s \(--exclusive serializes joulestat runs\)'
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -- \
	    "$JS_WORK" sleep 0.3s
	assert_no_match err 'shared: other processes'
}

test_bad_values() {
	for a in --exclusive-timeout=x --exclusive-timeout=-1 --exclusive-timeout=; do
		try "$JOULESTAT" -q "$a" -- true
		assert_rc 125
		assert_match err '^joulestat: invalid --exclusive-timeout'
	done
}

test_missing_lock_directory() {
	# valgrind keeps its own files in $TMPDIR and cannot start without it.
	[ -z "${WRAP:-}" ] || skip "under $WRAP, which needs \$TMPDIR itself"
	TMPDIR=$PWD/missing NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    -q --exclusive -- sh -c 'touch ran'
	assert_rc 125
	assert_match err "^joulestat: --exclusive: $PWD/missing/joulestat-GPU-.*\\.lock: No such file or directory"
	[ ! -e ran ] || fail "the workload ran"
}

# The lock file's name is joulestat's, in a directory anybody may write: a
# symbolic link or a FIFO planted there by someone else is refused, never
# followed or written (a root run would write wherever it points).
test_planted_lock_refused() {
	export TMPDIR=$PWD
	second --exclusive -- true
	assert_rc 0
	set -- joulestat-*.lock
	[ -f "$1" ] || fail "no lock file in $PWD"
	lock=$1
	rm "$lock"
	echo precious >target
	ln -s target "$lock"
	second --exclusive -- sh -c 'touch ran'
	assert_rc 125
	assert_match err "^joulestat: --exclusive: .*$lock: a symbolic link, not followed"
	assert_eq "$(cat target)" precious "the symbolic link's target"
	[ ! -e ran ] || fail "the workload ran"
	rm "$lock"
	mkfifo "$lock"
	second --exclusive -- sh -c 'touch ran'
	assert_rc 125
	assert_match err "^joulestat: --exclusive: .*$lock: not a regular file"
	[ ! -e ran ] || fail "the workload ran"
}

t_run "a second --exclusive run waits for the first" test_second_run_waits
t_run "--exclusive-timeout gives up with 125" test_timeout
t_run "the lock goes with a holder killed by SIGKILL" test_lock_dies_with_holder
t_run "SIGTERM while waiting: 143, the workload never starts" test_signal_while_waiting
t_run "no waiting for other devices or without --exclusive" test_no_wait_without_overlap
t_run "a shared device is named next to its energy" test_shared_device_is_named
t_run "bad --exclusive values" test_bad_values
t_run "a lock directory that does not exist: 125, no workload" test_missing_lock_directory
t_run "a symbolic link or FIFO planted as a lock file is refused" test_planted_lock_refused
t_done
