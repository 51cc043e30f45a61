#!/bin/bash
# --lock-clocks (HACKING.md, "The pipeline", tests/sim/README "Locked clocks"): joulestat
# locks the simulated GPUs' clocks before the workload starts and resets
# exactly what it locked however the run ends: a normal exit, a failing
# workload, a workload killed by the terminal's ^C, SIGTERM or SIGHUP sent
# to joulestat, joulestat's own failure after locking (an output lost
# mid-run, an exec failure).  The simulator appends every locked-clocks
# call to $NVSIM_CALLS; unbalanced checks that each set that succeeded
# was followed by one reset of the same domain on the same GPU, and that
# nothing else was reset.  Without root nothing is locked: a warning and
# the workload runs, or with --lock-clocks-required status 125 and no
# workload.  A SIGKILL to joulestat leaves the locks in place; nothing can
# be done about that, so it is not tested.
#
# Scenarios: lock-clocks.scn (root, one H100-like GPU, base 1590 MHz, max
# 1980/2619 MHz, phases below all three), lock-partial.scn (root, three
# GPUs locking both domains, graphics only, nothing), and copies of
# lock-clocks.scn without its "root yes" line made by the tests.
. "$(dirname "$0")/lib.sh"
: "${SIMLIB:?}" "${TOP:?}" "${CSVTOOL:?}"

SCN=$TOP/tests/sim/scenarios

# js_lock SCENARIO-PATH JOULESTAT-ARGS...: run joulestat on the simulated
# GPUs with the locked-clocks calls logged to ./calls.
js_lock() {
	js_scn=$1
	shift
	rm -f calls
	try env TMPDIR="$PWD" NVSIM_SCENARIO="$js_scn" NVSIM_CALLS="$PWD/calls" \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

# spawn_lock SCENARIO-PATH JOULESTAT-ARGS...: the same in the background
# (lib.sh spawn); collect it with reap.
spawn_lock() {
	js_scn=$1
	shift
	rm -f calls
	spawn env TMPDIR="$PWD" NVSIM_SCENARIO="$js_scn" NVSIM_CALLS="$PWD/calls" \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

# noroot: ./noroot.scn, lock-clocks.scn without "root yes".
noroot() {
	grep -v '^root ' "$SCN/lock-clocks.scn" >noroot.scn
}

# unbalanced: empty when ./calls shows every successful set followed by
# exactly one reset of the same domain and GPU, and no other reset; else
# the first complaint.  $nset is the number of successful sets.
unbalanced() {
	awk '
	    function field(k,   i) {
		for (i = 2; i <= NF; i++)
			if (index($i, k "=") == 1)
				return substr($i, length(k) + 2)
		return ""
	    }
	    /LockedClocks / {
		dom = $1 ~ /Memory/ ? "memory" : "gpu"
		key = dom " of GPU " field("index")
	    }
	    /^nvmlDeviceSet(Gpu|Memory)LockedClocks / && field("rc") == "0" {
		if (held[key] && bad == "")
			bad = "line " NR ": " key " set twice without a reset"
		held[key] = 1
		nset++
	    }
	    /^nvmlDeviceReset(Gpu|Memory)LockedClocks / {
		if (!held[key] && bad == "")
			bad = "line " NR ": " key " reset but not locked (or reset twice)"
		held[key] = 0
	    }
	    END {
		for (k in held)
			if (held[k] && bad == "")
				bad = k " locked and never reset"
		print (bad == "" ? "" : bad) "|" nset + 0
	    }' calls 2>/dev/null
}

# balanced [MIN-SETS]: ./calls is balanced (see unbalanced) and has at
# least MIN-SETS (default 1) successful sets.
balanced() {
	[ -f calls ] || fail "no locked-clocks call was made (no ./calls)"
	b_out=$(unbalanced)
	b_bad=${b_out%|*}
	nset=${b_out##*|}
	[ -z "$b_bad" ] || fail "locked clocks left behind: $b_bad; calls: $(cat calls)"
	assert_ge "$nset" "${1:-1}" "successful locked-clocks sets"
}

# ---- what is locked --------------------------------------------------------

# max: graphics and memory at their highest clocks (1980 and 2619 MHz),
# and every timeline reading of the run shows them although the scenario's
# phases run at 345/1755 and 1593 MHz.
test_max_in_timeline() {
	js_lock "$SCN/lock-clocks.scn" --lock-clocks=max -i 50 --timeline=t.csv \
	    -- "$JS_WORK" sleep 600ms
	assert_rc 0
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=1980 max=1980 rc=0$'
	assert_match calls '^nvmlDeviceSetMemoryLockedClocks index=0 min=2619 max=2619 rc=0$'
	balanced 2
	n=$("$CSVTOOL" count t.csv device=0)
	assert_ge "$n" 5 "timeline rows"
	assert_eq "$("$CSVTOOL" count t.csv device=0 gfx_mhz=1980)" "$n" "rows at gfx_mhz 1980"
	assert_eq "$("$CSVTOOL" count t.csv device=0 mem_mhz=2619)" "$n" "rows at mem_mhz 2619"
	assert_match err 'note: clocks locked for the run: graphics 1980 MHz, memory 2619 MHz'
}

# base: "nvidia-smi -lgc tdp,tdp", the simulator's base_clock; memory untouched.
test_base() {
	js_lock "$SCN/lock-clocks.scn" --lock-clocks=base -i 50 --timeline=t.csv \
	    -- "$JS_WORK" sleep 400ms
	assert_rc 0
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=tdp max=tdp rc=0$'
	assert_no_match calls 'Memory'
	balanced 1
	n=$("$CSVTOOL" count t.csv device=0)
	assert_eq "$("$CSVTOOL" count t.csv device=0 gfx_mhz=1590)" "$n" "rows at gfx_mhz 1590"
	assert_match err 'note: clocks locked for the run: graphics at the base clock \(TDP\)'
}

# MHZ,MEMMHZ: both as given.
test_mhz() {
	js_lock "$SCN/lock-clocks.scn" --lock-clocks=1500,1200 -- "$JS_WORK" sleep 200ms
	assert_rc 0
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=1500 max=1500 rc=0$'
	assert_match calls '^nvmlDeviceSetMemoryLockedClocks index=0 min=1200 max=1200 rc=0$'
	balanced 2
	assert_match err 'note: clocks locked for the run: graphics 1500 MHz, memory 1200 MHz'
}

# ---- every way a run ends resets the locks ---------------------------------

test_normal_exit() {
	js_lock "$SCN/lock-clocks.scn" --lock-clocks=max -- "$JS_WORK" sleep 200ms
	assert_rc 0
	balanced 2
	# --lock-clocks implies --exclusive: the device's lock file is there.
	ls joulestat-GPU-*.lock >/dev/null 2>&1 || fail "no --exclusive lock file: $(ls)"
}

test_workload_fails() {
	js_lock "$SCN/lock-clocks.scn" --lock-clocks=max -- "$JS_WORK" exit 7
	assert_rc 7
	balanced 2
}

# ^C: SIGINT to the whole process group, joulestat in a session of its own.
test_sigint_to_group() {
	rm -f calls
	spawn env TMPDIR="$PWD" NVSIM_SCENARIO="$SCN/lock-clocks.scn" NVSIM_CALLS="$PWD/calls" \
	    setsid "$JOULESTAT" --nvml-lib="$SIMLIB" --lock-clocks=max \
	    -- "$JS_WORK" -p w wait-signal 30s
	wait_file w
	pgid=$(ps -o pgid= -p "$t_file_pid" | tr -d ' ')
	kill -s INT -- "-$pgid"
	reap
	assert_rc 130
	balanced 2
}

# forwarded SIG STATUS: SIG to joulestat alone.
forwarded() {
	spawn_lock "$SCN/lock-clocks.scn" --lock-clocks=max -- "$JS_WORK" -p w wait-signal 30s
	wait_file w
	# spawn's $t_pid is env(1), which execs joulestat in place.
	kill -s "$1" "$t_pid"
	reap
	assert_rc "$2"
	balanced 2
}

# ^C during --idle-baseline: the command never runs, the locks are reset.
test_sigint_in_idle_baseline() {
	spawn_lock "$SCN/lock-clocks.scn" --lock-clocks=max --idle-baseline=60 -- \
	    sh -c 'touch ran'
	wait_for grep -q 'SetGpuLockedClocks.*rc=0' calls
	kill -INT "$t_pid"
	reap
	assert_rc 130
	assert_match err '^joulestat: signal 2 during --idle-baseline: the command was not run$'
	[ ! -e ran ] || fail "the command ran"
	balanced 2
}

test_sigterm() { forwarded TERM 143; }
test_sighup() { forwarded HUP 129; }
test_sigusr1() { forwarded USR1 138; }

# joulestat running out of memory with the clocks locked: the preload
# makes its own allocations fail once ./oom exists, which happens while
# the workload runs; the report's first allocation then fails.
test_out_of_memory() {
	if ldd "$JOULESTAT" 2>/dev/null | grep -q 'libasan'; then
		skip "AddressSanitizer must be the first library; the preload cannot be"
	fi
	[ -z "${WRAP:-}" ] || skip "under $WRAP, whose allocator replaces the preload's"
	spawn env TMPDIR="$PWD" NVSIM_SCENARIO="$SCN/lock-clocks.scn" NVSIM_CALLS="$PWD/calls" \
	    LD_PRELOAD="$FAILMALLOC" FAILMALLOC_FLAG="$PWD/oom" \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" --lock-clocks=max -- "$JS_WORK" -p w sleep 600ms
	wait_file w
	grep -q 'SetGpuLockedClocks.*rc=0' calls || fail "not locked: $(cat calls)"
	: >oom
	reap
	assert_rc 125
	assert_match err '^joulestat: out of memory$'
	balanced 2
}

# joulestat's own failure after the lock: the timeline's directory is
# removed while the workload runs (125, the workload having succeeded).
test_output_lost() {
	mkdir gone
	spawn_lock "$SCN/lock-clocks.scn" --lock-clocks=max -i 50 --timeline="$PWD/gone/t.csv" \
	    -- "$JS_WORK" -p w sleep 600ms
	wait_file w
	rm -rf gone
	reap
	assert_rc 125
	balanced 2
}

# The lock comes before the exec, so a command that cannot be run is
# locked for and must be reset too.
test_exec_fails() {
	js_lock "$SCN/lock-clocks.scn" --lock-clocks=max -- /nonexistent/joulestat-no-such-cmd
	assert_rc 127
	balanced 2
}

# ---- when the clocks cannot be locked --------------------------------------

# Without root: every set answers NO_PERMISSION, joulestat says so in one
# line and runs the workload with the clocks as they are; nothing to reset.
test_no_root() {
	noroot
	js_lock "$PWD/noroot.scn" --lock-clocks=max -- "$JS_WORK" pidfile ran.pid 100ms
	assert_rc 0
	[ -s ran.pid ] || fail "the workload did not run"
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=1980 max=1980 rc=4$'
	assert_no_match calls 'rc=0$'
	assert_no_match calls 'Reset'
	gpu0='^joulestat: --lock-clocks: GPU 0 \(GPU-[0-9a-f-]+\): '
	assert_match err "${gpu0}cannot lock clocks: no permission \(needs root\)"
	assert_match err 'note: clocks not locked: no permission \(needs root\)'
	balanced 0
}

# With --lock-clocks-required: 125 before the workload runs, nothing left locked.
test_no_root_required() {
	noroot
	js_lock "$PWD/noroot.scn" --lock-clocks=max --lock-clocks-required \
	    -- "$JS_WORK" pidfile ran.pid 100ms
	assert_rc 125
	[ ! -e ran.pid ] || fail "the workload ran although the lock was required"
	assert_match err '^joulestat: --lock-clocks-required: GPU 0 .*no permission \(needs root\)'
	balanced 0
}

# Three GPUs, root: GPU 0 locks both domains, GPU 1 (lock_clocks gpuonly)
# keeps its graphics lock when its memory lock is NOT_SUPPORTED, GPU 2
# (notsupported) locks nothing.  The run goes on; everything locked is
# reset; the first failure is reported.
test_partial() {
	js_lock "$SCN/lock-partial.scn" --lock-clocks=max -- "$JS_WORK" sleep 200ms
	assert_rc 0
	assert_match calls '^nvmlDeviceSetMemoryLockedClocks index=1 .* rc=3$'
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=2 .* rc=3$'
	assert_match calls '^nvmlDeviceResetGpuLockedClocks index=1 rc=0$'
	assert_no_match calls 'Reset.*index=2'
	balanced 3
	gpu1='^joulestat: --lock-clocks: GPU 1 \(GPU-[0-9a-f-]+\): '
	assert_match err "${gpu1}cannot lock the memory clock: not supported on this GPU"
	assert_match err 'note: memory clock not locked: not supported on this GPU'
	assert_match err 'note: clocks not locked: not supported on this GPU'
}

# The same with --lock-clocks-required: 125, and GPUs 0 and 1 are reset.
test_partial_required() {
	js_lock "$SCN/lock-partial.scn" --lock-clocks=max --lock-clocks-required \
	    -- "$JS_WORK" pidfile ran.pid 100ms
	assert_rc 125
	[ ! -e ran.pid ] || fail "the workload ran although the lock was required"
	balanced 3
}

t_run "max: locked at 1980/2619 MHz in every timeline row" test_max_in_timeline
t_run "base: the TDP words, the base clock in the timeline" test_base
t_run "MHZ,MEMMHZ: both domains as given" test_mhz
t_run "normal exit: every lock reset" test_normal_exit
t_run "workload exits 7: status kept, every lock reset" test_workload_fails
t_run "SIGINT to the process group: 130, every lock reset" test_sigint_to_group
t_run "SIGTERM to joulestat: 143, every lock reset" test_sigterm
t_run "SIGHUP to joulestat: 129, every lock reset" test_sighup
t_run "SIGINT during --idle-baseline: 130, no command, every lock reset" \
    test_sigint_in_idle_baseline
t_run "SIGUSR1 to joulestat: forwarded, 138, every lock reset" test_sigusr1
t_run "joulestat out of memory: 125, every lock reset" test_out_of_memory
t_run "timeline removed mid-run: 125, every lock reset" test_output_lost
t_run "exec failure: 127, every lock reset" test_exec_fails
t_run "no root: a warning, the workload runs, nothing locked" test_no_root
t_run "no root with --lock-clocks-required: 125, no workload, nothing locked" \
    test_no_root_required
t_run "partly lockable GPUs: warning, graphics kept, all reset" test_partial
t_run "partly lockable GPUs, required: 125, all reset" test_partial_required
t_done
