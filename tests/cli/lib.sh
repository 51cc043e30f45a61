# Harness for the command-line tests (entr and tmux style), sourced by every
# tests/cli/*.sh.  Each test is a shell function run by t_run in its own
# subshell and its own temporary directory, and prints one TAP line.
#
#   t_run "name" func      run func; it passes unless it calls fail
#   try CMD...             run CMD with a timeout: $rc, files out and err
#   try_in FILE CMD...     the same with stdin from FILE
#   spawn CMD... / reap    the same in the background: $t_pid, then $rc
#   poll / wait_for / wait_file   poll (never a bare sleep) with a timeout
#   fail MSG / skip MSG    end the current test
#   assert_eq / assert_rc / assert_match / assert_no_match  helpers
#   assert_ge / assert_le / assert_num / csv_get / pid_alive  more helpers
#
# Environment (set by tests/run.sh): JOULESTAT, JS_WORK, CSVTOOL, SIMLIB, TOP,
# TIMEOUT_MULT (scales every timeout for slow or instrumented builds).
set -u
: "${JOULESTAT:?run through make check}" "${JS_WORK:?}" "${TIMEOUT_MULT:=1}"
t_n=0
t_timeout=30

t_run() {
	t_n=$((t_n + 1))
	t_name=$1
	shift
	T=$(mktemp -d "${TMPDIR:-/tmp}/joulestat-t.XXXXXX")
	(cd "$T" && "$@") >"$T/.log" 2>&1
	r=$?
	t_cleanup
	case $r in
	0) echo "ok $t_n - $t_name" ;;
	77) echo "ok $t_n - $t_name # SKIP $(tail -n 1 "$T/.log")" ;;
	*)
		echo "not ok $t_n - $t_name"
		sed 's/^/# /' "$T/.log"
		;;
	esac
	rm -rf "$T"
}

t_done() {
	echo "1..$t_n"
}

fail() {
	echo "FAIL: $*" >&2
	if [ -f err ]; then
		echo "--- stderr of the last command:" >&2
		head -c 4000 err >&2
	fi
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

# try [-t SECONDS] CMD...: run with a timeout; stdout to ./out, stderr to ./err.
try() {
	try_in /dev/null "$@"
}

# try_in FILE [-t SECONDS] CMD...: like try, with stdin from FILE.
try_in() {
	t_in=$1
	shift
	secs=$t_timeout
	if [ "$1" = -t ]; then
		secs=$2
		shift 2
	fi
	timeout -k 5 $((secs * TIMEOUT_MULT)) "$@" >out 2>err <"$t_in"
	rc=$?
	if [ $rc -eq 124 ]; then
		fail "timed out after $((secs * TIMEOUT_MULT)) s: $*"
	fi
	return 0
}

assert_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"
}

assert_rc() {
	[ "$rc" -eq "$1" ] || fail "exit status: expected $1, got $rc"
}

# assert_match FILE REGEX: an extended regex must match some line of FILE.
assert_match() {
	grep -Eq -- "$2" "$1" || fail "$1 does not match /$2/"
}

assert_no_match() {
	! grep -Eq -- "$2" "$1" || fail "$1 matches /$2/ but must not"
}

# Floating-point comparison: assert_near ACTUAL EXPECTED TOLERANCE MSG.
assert_near() {
	awk -v a="$1" -v e="$2" -v t="$3" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(d <= t) }' ||
	    fail "${4:-value}: $1 is not within $3 of $2"
}

# assert_ge A B MSG / assert_le A B MSG: numeric comparisons (floats too).
assert_ge() {
	assert_num "$1" "${3:-value}"
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }' ||
	    fail "${3:-value}: expected >= $2, got $1"
}

assert_le() {
	assert_num "$1" "${3:-value}"
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }' ||
	    fail "${3:-value}: expected <= $2, got $1"
}

# assert_num VALUE MSG: a plain C-locale number (no sign, exponent, separators).
assert_num() {
	printf '%s\n' "$1" | grep -Eqx '[0-9]+(\.[0-9]+)?' ||
	    fail "${2:-value}: '$1' is not a C-locale number"
}

# csv_get FILE COLUMN [KEY=VALUE...]: the value, through $CSVTOOL, in $csv_v.
# Fails the test when the file does not parse or has no such column or row.
csv_get() {
	csv_v=$("$CSVTOOL" ${csv_sep:+-s "$csv_sep"} get "$@" 2>csvtool.err) ||
	    fail "csvtool get $*: $(cat csvtool.err)"
}

# shares [DEVICE]: device DEVICE's (default 0) energy and its shares in
# s.csv: e (energy_j), w (workload_energy_j), o (other_energy_j) and u
# (unattributed_energy_j).
shares() {
	csv_get s.csv energy_j scope=device device="${1:-0}"
	e=$csv_v
	csv_get s.csv workload_energy_j scope=device device="${1:-0}"
	w=$csv_v
	csv_get s.csv other_energy_j scope=device device="${1:-0}"
	o=$csv_v
	csv_get s.csv unattributed_energy_j scope=device device="${1:-0}"
	u=$csv_v
}

# stat_field PID N: field N of /proc/PID/stat counted after the command
# name (proc(5)): 1 the state, 2 the parent, 12 user time in clock ticks.
stat_field() {
	t_stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	set -- "$2" ${t_stat##*) }
	shift "$1"
	echo "$1"
}

# pid_alive PID: the process exists and is not a zombie.
pid_alive() {
	case $(stat_field "$1" 1) in
	Z* | X* | "") return 1 ;;
	esac
	return 0
}

# is_zombie PID: PID has ended and waits for its parent.
is_zombie() {
	[ "$(stat_field "$1" 1)" = Z ]
}

# ppid_of PID: print the parent's pid.
ppid_of() {
	stat_field "$1" 2
}

# poll [-t SECONDS] CMD...: run CMD every 20 ms until it succeeds (0) or
# the time is up (1).
poll() {
	secs=$t_timeout
	if [ "$1" = -t ]; then
		secs=$2
		shift 2
	fi
	t_end=$(($(date +%s%N) + secs * TIMEOUT_MULT * 1000000000))
	until "$@"; do
		[ "$(date +%s%N)" -le "$t_end" ] || return 1
		sleep 0.02
	done
}

# wait_for [-t SECONDS] CMD...: poll, and fail the test if the time is up.
wait_for() {
	poll "$@" || fail "waited in vain for: $*"
}

# wait_file FILE: until FILE exists and is not empty (js-work -p writes
# its pid file atomically); then $t_file_pid holds its first line.
wait_file() {
	wait_for test -s "$1"
	read -r t_file_pid <"$1"
}

# t_not CMD...: true when CMD fails (for poll and wait_for).
t_not() {
	! "$@"
}

# t_kill_later SIG PID: send SIG to PID when the test ends, passed or not
# (daemons that a failing test leaves behind, background jobs).
t_kill_later() {
	echo "$1 $2" >>"$T/.kill"
}

t_cleanup() {
	[ -f "$T/.kill" ] || return 0
	while read -r t_sig t_p; do
		kill -s "$t_sig" "$t_p" 2>/dev/null
	done <"$T/.kill"
}

# spawn [-t SECONDS] CMD...: start CMD in the background under a timeout,
# stdout to ./out, stderr to ./err, stdin from /dev/null.  timeout(1) gives
# it default actions for SIGINT and SIGQUIT, which a background job of a
# script would otherwise ignore.  $t_pid is CMD's own pid (the child of
# timeout; setsid(1) as CMD execs in place).  Collect it with reap.
spawn() {
	secs=$t_timeout
	if [ "$1" = -t ]; then
		secs=$2
		shift 2
	fi
	t_spawn_secs=$((secs * TIMEOUT_MULT))
	timeout -k 5 "$t_spawn_secs" "$@" >out 2>err </dev/null &
	t_bg=$!
	t_kill_later TERM "$t_bg"
	t_pid=
	wait_for t_spawned
	if [ -z "$t_pid" ]; then
		reap
		fail "ended at once with status $rc: $*"
	fi
}

# True once CMD has started ($t_pid set), or when it is already over.
t_spawned() {
	t_pid=$(cat "/proc/$t_bg/task/$t_bg/children" 2>/dev/null)
	t_pid=${t_pid%% *}
	[ -n "$t_pid" ] || ! kill -0 "$t_bg" 2>/dev/null
}

# reap: wait for the spawned command; its exit status in $rc.
reap() {
	wait "$t_bg"
	rc=$?
	# Reaped: its pid may be recycled, so the cleanup must not signal it.
	grep -v "^TERM $t_bg\$" "$T/.kill" >"$T/.kill.new"
	mv "$T/.kill.new" "$T/.kill"
	if [ $rc -eq 124 ]; then
		fail "timed out after $t_spawn_secs s"
	fi
	return 0
}

# sig_handled PID SIG: PID is ready for SIG (a number): it has a signalfd
# open (HACKING.md, "The pipeline"), or else it blocks or catches SIG.  Under valgrind,
# which catches every signal itself, only the signalfd tells.
sig_handled() {
	for t_fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$t_fd" 2>/dev/null)" = 'anon_inode:[signalfd]' ] && return 0
	done
	case $(readlink "/proc/$1/exe" 2>/dev/null) in
	*valgrind* | *memcheck*) return 1 ;;
	esac
	[ -r "/proc/$1/status" ] || return 1
	t_bit=$((1 << ($2 - 1)))
	while read -r t_k t_mask; do
		case $t_k in
		SigBlk: | SigCgt:)
			[ $((0x$t_mask & t_bit)) -ne 0 ] && return 0
			;;
		esac
	done <"/proc/$1/status"
	return 1
}

# Figures.  Tests that measure an error against known truth print it as a
# TAP comment ("make check VERBOSE=1" shows them); fd 3 is the TAP stream.
exec 3>&1

# note TEXT: a measured figure, shown as a TAP comment and kept in the log.
note() {
	echo "# $t_name: $*" >&3
	echo "measured: $*"
}

# calc EXPR: awk arithmetic, printed with up to 9 decimals and no trailing zeros.
calc() {
	awk "BEGIN { v = sprintf(\"%.9f\", $1); sub(/0+\$/, \"\", v); sub(/\\.\$/, \"\", v); print v }"
}

# gap_bound: the longest possible gap between two readings of the run in
# ./s.csv, interval x (1 + missed ticks) + the worst lateness, in $h (s).
gap_bound() {
	csv_get s.csv interval_ms scope=run
	g_iv=$csv_v
	csv_get s.csv missed_ticks scope=run
	g_missed=$csv_v
	csv_get s.csv late_max_ms scope=run
	h=$(calc "($g_iv * (1 + $g_missed) + $csv_v) / 1000")
}

# ---- the simulator's ground truth (tests/sim/README) ----------------------
# These read ./truth (NVSIM_TRUTH), ./s.csv (--csv) and $js_scn, the scenario
# played.

# truth RECORD KEY [K=V...]: KEY of the first truth record RECORD whose
# fields include every K=V, in $t_v.
truth() {
	[ -s truth ] || fail "no ground truth was written"
	t_v=$(awk -v r="$1" -v k="$2" -v m="${*:3}" '
	    BEGIN { n = split(m, want, " ") }
	    $1 == r {
		split("", have)
		for (f = 2; f <= NF; f++) {
			e = index($f, "=")
			have[substr($f, 1, e - 1)] = substr($f, e + 1)
		}
		for (i = 1; i <= n; i++) {
			e = index(want[i], "=")
			if (have[substr(want[i], 1, e - 1)] != substr(want[i], e + 1))
				next
		}
		if (k in have) {
			print have[k]
			found = 1
			exit
		}
	    }
	    END { exit !found }' truth) || fail "truth has no '$1' record with $2 ${*:3}: $(cat truth)"
}


# scn_pmax SCENARIO-PATH: the highest power (W) any phase of the scenario
# reaches (ramps reach their ends).
scn_pmax() {
	awk '$1 == "phase" {
		for (f = 2; f <= NF; f++)
			if ($f ~ /^power=/) {
				n = split(substr($f, 7), v, /\.\./)
				for (i = 1; i <= n; i++)
					if (v[i] + 0 > m) m = v[i] + 0
			}
	    } END { print m + 0 }' "$1"
}


# window DEV: d = truth window - time_s for device DEV (see "Windows"), in
# $d; fails unless 0 <= d < 100 ms (1 s under a checker, make check-valgrind,
# whose slow start between the probe and the first reading is not the
# question there).  Also sets $tw (truth window, s) and $w (time_s).
window() {
	truth device first_ns index="$1"
	w_first=$t_v
	truth device last_ns index="$1"
	tw=$(calc "$((t_v - w_first)) / 1e9")
	csv_get s.csv time_s scope=device device="$1"
	w=$csv_v
	assert_num "$w" "time_s of device $1"
	d=$(calc "$tw - $w")
	w_lim=0.1
	[ -z "${WRAP:-}" ] || w_lim=1
	# 2 us of slack below 0: time_s is printed with 6 decimals.
	awk -v d="$d" -v l="$w_lim" 'BEGIN { exit !(d >= -0.000002 && d < l) }' ||
	    fail "device $1: truth window $tw s - time_s $w s = $d s, not in [0, $w_lim)"
}

# reuse_pid_counted: after joulestat --csv=s.csv -- js-work reuse-pid (its
# output in ./out), both incarnations of the reused pid were counted.
reuse_pid_counted() {
	[ "$rc" -eq 77 ] && skip "$(cat out)"
	assert_rc 0
	children=$(sed -n 's/^reused PID [0-9]* children \([0-9]*\)$/\1/p' out)
	[ -n "$children" ] || fail "unexpected js-work output: $(cat out)"
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" $((children + 1)) "processes (both incarnations of the pid)"
}
