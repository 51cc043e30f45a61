# Harness for the command-line tests (entr and tmux style), sourced by every
# tests/cli/*.sh.  Each test is a shell function run by t_run in its own
# subshell and its own temporary directory, and prints one TAP line.
#
#   t_run "name" func      run func; it passes unless it calls fail
#   try CMD...             run CMD with a timeout: $rc, files out and err
#   fail MSG / skip MSG    end the current test
#   assert_eq / assert_rc / assert_match / assert_no_match  helpers
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
	secs=$t_timeout
	if [ "$1" = -t ]; then
		secs=$2
		shift 2
	fi
	timeout -k 5 $((secs * TIMEOUT_MULT)) "$@" >out 2>err </dev/null
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
