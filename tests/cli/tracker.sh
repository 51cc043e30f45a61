#!/bin/bash
# The two ways of following the workload's tree (--tracker, man page): its
# own cgroup v2 where joulestat may create one, the walk of /proc
# otherwise.  Both must agree with what the workload's own rusage says on
# the trees of tree.sh, daemon.sh and fault_scale.sh; the cgroup must be
# gone after every way out; --descendants=kill must leave nothing of a
# tree that keeps forking; and where cgroup v2 cannot be used the fallback
# is taken and said.
. "$(dirname "$0")/lib.sh"
# Each test names its tracker; the default is auto's (a suite run with
# JOULESTAT_TRACKER=proc must not change what these tests check).
unset JOULESTAT_TRACKER

# Where cgroup v2 is mounted (proc_pid_mountinfo(5): the type follows " - ").
cg_mount() {
	awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") {
	    print $5; exit } break } }' /proc/self/mountinfo
}

# need_cgroup: skip the test where joulestat may not create a cgroup here.
need_cgroup() {
	"$JOULESTAT" -q --tracker=cgroup -- true 2>cg.err ||
	    skip "cgroup v2 is not writable here: $(head -n 1 cg.err)"
}

# tracked TRACKER ARGS...: joulestat --tracker=TRACKER --json ARGS, and
# the tracker its JSON names checked.
tracked() {
	t_tr=$1
	shift
	try "$JOULESTAT" --tracker="$t_tr" --csv=s.csv --json=s.json "$@"
	grep -q "\"tracker\": *\"$t_tr\"" s.json || fail "the JSON does not say tracker $t_tr"
}

# forkmany 2000 under js-work rusage: user_s + sys_s is the whole tree's.
forkmany_check() {
	tracked "$1" -i 10 -- "$JS_WORK" rusage rt "$JS_WORK" forkmany 2000
	assert_rc 0
	read -r ru rs _ <rt || fail "no rusage from the workload"
	csv_get s.csv user_s scope=run
	ju=$csv_v
	csv_get s.csv sys_s scope=run
	tot=$(calc "$ju + $csv_v")
	own=$(calc "$ru + $rs")
	note "$1: joulestat user+sys $tot s, the workload's rusage $own s"
	assert_ge "$tot" "$(calc "$own - 0.02")" "$1: user_s + sys_s vs the workload's rusage"
	assert_le "$tot" "$(calc "$own * 1.5 + 0.1")" "$1: user_s + sys_s vs the workload's rusage"
	csv_get s.csv max_concurrent scope=run
	assert_le "$csv_v" 66 "$1: max_concurrent"
}

test_forkmany_cgroup() {
	need_cgroup
	forkmany_check cgroup
}

test_forkmany_proc() {
	forkmany_check proc
}

tree1000_check() {
	tracked "$1" -i 100 -- "$JS_WORK" tree 1 999 2s
	assert_rc 0
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" 1000 "$1: processes (js-work and 999 children)"
	csv_get s.csv max_concurrent scope=run
	assert_ge "$csv_v" 990 "$1: max_concurrent"
}

test_tree1000_cgroup() {
	need_cgroup
	tree1000_check cgroup
}

test_tree1000_proc() {
	tree1000_check proc
}

# A double-forked daemon in its own session (setsid) spins 100 ms of CPU.
daemon_check() {
	tracked "$1" -i 20 --descendants=wait -- "$JS_WORK" daemonize -f d 300ms
	assert_rc 0
	csv_get s.csv user_s scope=run
	assert_ge "$csv_v" 0.08 "$1: user_s including the daemon"
	csv_get s.csv processes scope=run
	assert_ge "$csv_v" 3 "$1: processes (main, middle, daemon)"
}

test_daemon_cgroup() {
	need_cgroup
	daemon_check cgroup
}

test_daemon_proc() {
	daemon_check proc
}

# A forker that ignores SIGTERM starts a sleeper every 20 ms; each writes
# its pid file.  After --descendants=kill nothing of it may be left.
kill_check() {
	tracked "$1" -i 20 --descendants=kill -- sh -c '
	    "$0" -p f pidfile f2 60s &
	    (trap "" TERM; i=0; while :; do i=$((i + 1)); "$0" -p k.$i sleep 60s & sleep 0.02; done) &
	    while [ ! -s k.5 ]; do sleep 0.02; done
	    exec "$0" sleep 100ms' "$JS_WORK"
	assert_rc 0
	n=0
	for f in k.*; do
		read -r p <"$f" || continue
		t_kill_later KILL "$p"
		poll -t 1 t_not pid_alive "$p" || fail "$1: sleeper $p ($f) survived"
		n=$((n + 1))
	done
	note "$1: $n sleepers started, none left"
	assert_ge "$n" 5 "sleepers started"
}

test_kill_forking_cgroup() {
	need_cgroup
	kill_check cgroup
}

test_kill_forking_proc() {
	kill_check proc
}

# The workload's cgroup (the "0::" line of /proc/self/cgroup) as a directory.
cg_dir_of() {
	read -r line <"$1" || fail "no cgroup file from the workload"
	echo "$(cg_mount)${line#0::}"
}

test_cgroup_gone_normal() {
	need_cgroup
	try "$JOULESTAT" -q -- sh -c 'grep "^0::" /proc/self/cgroup >cg'
	assert_rc 0
	d=$(cg_dir_of cg)
	case $d in */joulestat-*) ;; *) fail "the workload was not in a cgroup of its own: $d" ;; esac
	[ ! -e "$d" ] || fail "$d is left after a normal end"
}

# SIGTERM to joulestat goes on to the workload; the cgroup goes with it.
test_cgroup_gone_signal() {
	need_cgroup
	spawn "$JOULESTAT" -q -- sh -c 'grep "^0::" /proc/self/cgroup >cg; exec "$0" -p w sleep 30s' \
	    "$JS_WORK"
	wait_file w
	d=$(cg_dir_of cg)
	[ -d "$d" ] || fail "no cgroup $d while the workload runs"
	wait_for sig_handled "$t_pid" 15
	kill -TERM "$t_pid"
	reap
	assert_rc 143
	[ ! -e "$d" ] || fail "$d is left after SIGTERM"
}

test_cgroup_gone_exec_failure() {
	need_cgroup
	# The shell's pid is joulestat's once it execs.
	try sh -c 'echo $$ >jp; exec "$0" -q -- ./no-such-program' "$JOULESTAT"
	assert_rc 127
	read -r jp <jp
	m=$(cg_mount)
	ls -d "$m"/joulestat-"$jp"-* "$m"/*/joulestat-"$jp"-* 2>/dev/null | grep . &&
	    fail "a cgroup of joulestat $jp is left after exec failed"
	return 0
}

# joulestat runs out of memory while the workload runs (the preload makes
# its allocations fail once ./oom exists): 125, and its cgroup is removed.
test_cgroup_gone_out_of_memory() {
	need_cgroup
	if ldd "$JOULESTAT" 2>/dev/null | grep -q 'libasan'; then
		skip "AddressSanitizer must be the first library; the preload cannot be"
	fi
	[ -z "${WRAP:-}" ] || skip "under $WRAP, whose allocator replaces the preload's"
	spawn env LD_PRELOAD="$FAILMALLOC" FAILMALLOC_FLAG="$PWD/oom" "$JOULESTAT" -- sh -c \
	    'grep "^0::" /proc/self/cgroup >cg; exec "$0" -p w sleep 600ms' "$JS_WORK"
	wait_file w
	d=$(cg_dir_of cg)
	[ -d "$d" ] || fail "no cgroup $d while the workload runs"
	: >oom
	reap
	assert_rc 125
	assert_match err '^joulestat: out of memory$'
	[ ! -e "$d" ] || fail "$d is left after joulestat ran out of memory"
}

# --descendants=leave: the daemon outlives the run, back in joulestat's cgroup.
test_cgroup_gone_leave() {
	need_cgroup
	try "$JOULESTAT" -q -- sh -c 'grep "^0::" /proc/self/cgroup >cg
	    exec "$0" daemonize -d -f d 60s' "$JS_WORK"
	assert_rc 0
	wait_file d
	t_kill_later KILL "$t_file_pid"
	pid_alive "$t_file_pid" || fail "the daemon did not survive"
	d=$(cg_dir_of cg)
	[ ! -e "$d" ] || fail "$d is left with the daemon running"
	grep -q "^0::$(dirname "${d#$(cg_mount)}")\$" "/proc/$t_file_pid/cgroup" ||
	    fail "the daemon is not back in joulestat's cgroup: $(cat "/proc/$t_file_pid/cgroup")"
}

# cg_empty DIR: cgroup.events of DIR says that nothing runs in it.
cg_empty() {
	grep -q '^populated 0$' "$1/cgroup.events"
}

# A joulestat killed by SIGKILL cannot remove its cgroup.  While its
# workload runs on in it the cgroup stays; once that has ended, the next
# run removes it.
test_cgroup_stale_removed() {
	need_cgroup
	spawn "$JOULESTAT" -q -- sh -c 'grep "^0::" /proc/self/cgroup >cg; exec "$0" -p w sleep 30s' \
	    "$JS_WORK"
	wait_file w
	t_kill_later KILL "$t_file_pid"
	d=$(cg_dir_of cg)
	[ -d "$d" ] || fail "no cgroup $d while the workload runs"
	kill -KILL "$t_pid"
	reap
	assert_rc 137
	[ -d "$d" ] || fail "$d is gone although joulestat was killed by SIGKILL"
	try "$JOULESTAT" -q -- true
	assert_rc 0
	[ -d "$d" ] || fail "$d was removed with the workload still running in it"
	kill -KILL "$t_file_pid"
	wait_for cg_empty "$d"
	try "$JOULESTAT" -q -- true
	assert_rc 0
	[ ! -e "$d" ] || fail "$d of a joulestat killed by SIGKILL is left after the next run"
}

# Only the cgroups of joulestats that are gone: a name whose pid lives is
# left alone, whatever that process is.
test_cgroup_stale_only_dead() {
	need_cgroup
	try "$JOULESTAT" -q -- sh -c 'grep "^0::" /proc/self/cgroup >cg'
	p=$(dirname "$(cg_dir_of cg)")
	"$JS_WORK" -p w sleep 30s &
	t_kill_later KILL $!
	wait_file w
	live=$p/joulestat-$t_file_pid-77
	"$JS_WORK" exit 0 &
	dead=$!
	wait $dead
	dead=$p/joulestat-$dead-77
	mkdir "$live" "$dead" || fail "cannot make cgroups in $p"
	try "$JOULESTAT" -q -- true
	is_live=$([ -d "$live" ] && echo y)
	is_dead=$([ -d "$dead" ] && echo y)
	rmdir "$live" "$dead" 2>/dev/null
	assert_rc 0
	[ "$is_live" = y ] || fail "$live was removed though its process lives"
	[ -z "$is_dead" ] || fail "$dead is left though its process is gone"
}

# No cgroup v2 where JOULESTAT_CGROUP_ROOT points: auto walks /proc and says
# why; --tracker=cgroup is a set-up failure.
test_fallback_said() {
	mkdir notcg
	JOULESTAT_CGROUP_ROOT=$PWD/notcg try "$JOULESTAT" --json=s.json -- "$JS_WORK" tree 1 3 200ms
	assert_rc 0
	grep -q '"tracker": *"proc"' s.json || fail "the JSON does not say tracker proc"
	assert_match err 'process tree walked in /proc: .*notcg.*not a cgroup v2'
	assert_match err 'processes +4 seen'
	JOULESTAT_CGROUP_ROOT=$PWD/notcg try "$JOULESTAT" --tracker=cgroup -- "$JS_WORK" exit 0
	assert_rc 125
	assert_match err '^joulestat: --tracker=cgroup: '
}

# Without clone3 (a seccomp filter that refuses it, valgrind; failsys.so
# here) the workload is forked corked and moved into the cgroup before it
# runs: its status, its cgroup, and the tree's CPU time are as with the
# clone3 start.
test_without_clone3() {
	need_cgroup
	[ -z "${WRAP:-}" ] || skip "under a checker (${WRAP%% *}), which preloads its own"
	if ldd "$JOULESTAT" 2>/dev/null | grep -q 'libasan'; then
		skip "AddressSanitizer must be the first library; the preload cannot be"
	fi
	try env LD_PRELOAD="$FAILSYS_LIB" FAILSYS=clone3 "$JOULESTAT" -q -- \
	    sh -c 'grep "^0::" /proc/self/cgroup >cg; exit 3'
	assert_rc 3
	d=$(cg_dir_of cg)
	case $d in */joulestat-*) ;; *) fail "the workload was not in a cgroup of its own: $d" ;; esac
	[ ! -e "$d" ] || fail "$d is left after a normal end"
	try env LD_PRELOAD="$FAILSYS_LIB" FAILSYS=clone3 "$JOULESTAT" -q -- ./no-such-program
	assert_rc 127
	try env LD_PRELOAD="$FAILSYS_LIB" FAILSYS=clone3 "$JOULESTAT" --tracker=cgroup --csv=s.csv \
	    -i 10 -- "$JS_WORK" rusage rt "$JS_WORK" forkmany 500
	assert_rc 0
	read -r ru rs _ <rt || fail "no rusage from the workload"
	csv_get s.csv user_s scope=run
	ju=$csv_v
	csv_get s.csv sys_s scope=run
	assert_ge "$(calc "$ju + $csv_v")" "$(calc "$ru + $rs - 0.02")" \
	    "user_s + sys_s vs the workload's rusage"
}

# A small program's peak RSS is its own, as a plain fork and exec sees it
# (js-work rusage): the launch lends it none of joulestat's memory.  A
# child that shares joulestat's memory until exec (posix_spawn's way, a
# vfork) takes joulestat's high-water mark with it at exec: ~2000 KiB for
# a program of ~1400 (HACKING.md, "Start-up cost").  The figure moves
# from run to run under either launch (a plain fork gave 1372 to 1540 KiB
# in ten runs here, and a joulestat run 1668 in a fresh chroot): the
# lowest of three runs against the highest of three plain forks.
test_peak_rss_own() {
	truth=0
	low=
	for i in 1 2 3; do
		"$JS_WORK" rusage rt "$JS_WORK" exit 0 || fail "js-work rusage failed"
		read -r _ _ t <rt || fail "no rusage from the workload"
		[ "$t" -gt "$truth" ] && truth=$t
		try "$JOULESTAT" -q --csv=s.csv -- "$JS_WORK" exit 0
		assert_rc 0
		csv_get s.csv max_rss_kib scope=run
		if [ -z "$low" ] || [ "$csv_v" -lt "$low" ]; then
			low=$csv_v
		fi
	done
	note "peak RSS at least $low KiB in three runs, at most $truth KiB under a plain fork"
	assert_le "$low" "$(calc "$truth * 1.2 + 64")" "max_rss_kib of js-work exit 0"
}

# A phase's CPU time with the cgroup tracker is the cgroup's own count at
# its marks: a process that spun 300 ms and ended inside it is all there.
test_phase_cpu_cgroup() {
	need_cgroup
	tracked cgroup -q -- sh -c '"$0" mark --begin spin; "$1" spin 300ms; "$0" mark --end spin' \
	    "$JOULESTAT" "$JS_WORK"
	assert_rc 0
	csv_get s.csv user_s scope=phase phase=spin
	note "phase spin: user_s $csv_v for 0.3 s of spinning"
	assert_ge "$csv_v" 0.25 "the phase's user_s"
	p=$csv_v
	csv_get s.csv user_s scope=run
	assert_ge "$csv_v" "$p" "the run's user_s vs its phase's"
}

test_list_devices_says_tracker() {
	try "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out '^process tree: (cgroup \(the workload.s own cgroup v2, under /|proc \(walked in /proc\): )'
	try "$JOULESTAT" --list-devices --tracker=proc
	assert_match out '^process tree: proc \(walked in /proc, as --tracker asks\)$'
	mkdir notcg
	JOULESTAT_CGROUP_ROOT=$PWD/notcg try "$JOULESTAT" --list-devices
	assert_match out '^process tree: proc \(walked in /proc\): .*notcg: not a cgroup v2 directory$'
}

# Processes already running are not moved anywhere: an attached tree is walked.
test_attach_is_proc() {
	"$JS_WORK" -p w sleep 1s &
	t_kill_later KILL $!
	wait_file w
	try "$JOULESTAT" -p "$t_file_pid" --json=s.json
	assert_rc 0
	grep -q '"tracker": *"proc"' s.json || fail "the JSON does not say tracker proc"
}

# A user who may not write to cgroup v2 (uid 65534 here): the fallback is
# taken and the report says why, in the kernel's words.
test_fallback_unprivileged() {
	need_cgroup
	[ -z "${WRAP:-}" ] || skip "under a checker (${WRAP%% *}), whose wrapper another user cannot run"
	command -v setpriv >/dev/null || skip "setpriv(1) is not installed"
	try setpriv --reuid=65534 --regid=65534 --clear-groups "$JOULESTAT" --json=- -- \
	    "$JS_WORK" tree 1 2 200ms
	assert_rc 0
	grep -q '"tracker": *"proc"' out || fail "the JSON does not say tracker proc"
	assert_match err 'process tree walked in /proc: cannot create a cgroup in .*: (Permission denied|Read-only file system|Operation not permitted)'
	assert_match err 'processes +3 seen'
}

# In a pid namespace of its own nothing else gives out pids, so the /proc
# walk mostly re-reads its members' stat alone: the tree is still whole,
# a process that ends is seen to, and a pid given again (ns_last_pid) is a
# new process.
in_own_pidns() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a pid namespace"
	command -v unshare >/dev/null || skip "unshare(1) is not installed"
	unshare --pid --fork --mount-proc true 2>/dev/null || skip "no pid namespace here"
	try unshare --pid --fork --mount-proc "$@"
}

test_proc_quiet_pidns() {
	in_own_pidns "$JOULESTAT" --tracker=proc -i 20 --csv=s.csv -- "$JS_WORK" tree 2 3 1s
	assert_rc 0
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" 13 "processes (1 + 3 + 9)"
	in_own_pidns "$JOULESTAT" --tracker=proc -i 10 --csv=s.csv -- "$JS_WORK" reuse-pid
	reuse_pid_counted
}

# Other programs start processes now and then, so the newest pid changes
# between ticks: a process the tree starts later, while none of its
# members ends, is still seen at once (newpids.c looks at each new pid's
# parent instead of walking the tree).  Seen late (at the next end of a
# member), the spin's CPU time would be missing from the phase it runs in.
test_proc_busy_machine() {
	(while :; do sleep 0.05; done) &
	churn=$!
	# The shell counts (no process) between the sleep's end and the spin.
	tracked proc -i 20 -- sh -c '"$0" tree 1 40 1.5s & sleep 0.3; i=0
	    while [ $i -lt 30000 ]; do i=$((i + 1)); done; "$0" spin 1s &
	    "$0" marks log 0.2s begin:spin 0.5s end:spin; wait' "$JS_WORK"
	kill "$churn"
	wait "$churn" 2>/dev/null
	assert_rc 0
	csv_get s.csv user_s scope=phase phase=spin
	note "phase spin: user_s $csv_v for 0.5 s of a spin started by the tree"
	assert_ge "$csv_v" 0.25 "the phase's user_s"
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" 45 "processes (sh, js-work tree's 1 + 40, sleep, spin, marks)"
}

test_tracker_bogus() {
	try "$JOULESTAT" --tracker=bogus -- "$JS_WORK" exit 0
	assert_rc 125
	assert_match err "invalid --tracker 'bogus'"
	JOULESTAT_TRACKER=nope try "$JOULESTAT" -- "$JS_WORK" exit 0
	assert_rc 125
	assert_match err "invalid JOULESTAT_TRACKER 'nope'"
}

t_run "forkmany 2000, cgroup: CPU totals match the workload's rusage" test_forkmany_cgroup
t_run "proc: the tree's forks seen while other programs fork" test_proc_busy_machine
t_run "forkmany 2000, proc: CPU totals match the workload's rusage" test_forkmany_proc
t_run "1,000 concurrent processes, cgroup: 1000 counted" test_tree1000_cgroup
t_run "1,000 concurrent processes, proc: 1000 counted" test_tree1000_proc
t_run "a double-forked setsid daemon, cgroup: counted, its CPU too" test_daemon_cgroup
t_run "a double-forked setsid daemon, proc: counted, its CPU too" test_daemon_proc
t_run "--descendants=kill, cgroup: a forking tree is killed completely" test_kill_forking_cgroup
t_run "--descendants=kill, proc: a forking tree is killed completely" test_kill_forking_proc
t_run "the cgroup is gone after a normal end" test_cgroup_gone_normal
t_run "the cgroup is gone after SIGTERM" test_cgroup_gone_signal
t_run "the cgroup is gone after exec failed" test_cgroup_gone_exec_failure
t_run "the cgroup is gone with a daemon left running" test_cgroup_gone_leave
t_run "the cgroup is gone after joulestat ran out of memory" test_cgroup_gone_out_of_memory
t_run "a cgroup left by a joulestat killed by SIGKILL: removed by the next run once empty" \
    test_cgroup_stale_removed
t_run "only the cgroups of joulestats that are gone are removed" test_cgroup_stale_only_dead
t_run "no cgroup v2: /proc is walked and that is said" test_fallback_said
t_run "without clone3: forked corked, moved into the cgroup, the same figures" test_without_clone3
t_run "a small program's peak RSS is its own, not joulestat's" test_peak_rss_own
t_run "a phase's CPU time, cgroup: the spin inside it, whole" test_phase_cpu_cgroup
t_run "--list-devices says which tracker a run would use" test_list_devices_says_tracker
t_run "an attached tree is walked in /proc, and said so" test_attach_is_proc
t_run "not allowed to write cgroup v2: /proc is walked and that is said" test_fallback_unprivileged
t_run "proc, alone in a pid namespace: a whole tree, a reused pid twice" test_proc_quiet_pidns
t_run "--tracker and JOULESTAT_TRACKER take only auto, cgroup, proc" test_tracker_bogus
t_done
