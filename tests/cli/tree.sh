#!/bin/bash
# The process tree (HACKING.md, "Measurement rules"): every process of the workload's tree is
# counted, a recycled pid counts twice (identity is pid + start time), and
# a process that lives and dies between two ticks still counts in the
# rusage totals.
. "$(dirname "$0")/lib.sh"

test_tree_counts() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" tree 2 3 300ms
	assert_rc 0
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" 13 "processes (1 + 3 + 9)"
	csv_get s.csv max_concurrent scope=run
	assert_ge "$csv_v" 2 max_concurrent
	assert_le "$csv_v" 13 max_concurrent
}

test_wide_tree_counts() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- "$JS_WORK" tree 1 10 300ms
	assert_rc 0
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" 11 "processes (1 + 10)"
}

test_tree_through_a_shell() {
	try "$JOULESTAT" -i 20 --csv=s.csv -- sh -c '"$0" tree 1 2 300ms; exit 3' "$JS_WORK"
	assert_rc 3
	csv_get s.csv processes scope=run
	assert_eq "$csv_v" 4 "processes (sh + 1 + 2)"
}

# The child spins 200 ms of CPU and the whole run ends long before the
# first 2 s tick: only wait4's rusage can know about it.
test_short_child_in_totals() {
	try "$JOULESTAT" -i 2000 --csv=s.csv -- "$JS_WORK" short-child 200
	assert_rc 0
	csv_get s.csv user_s scope=run
	assert_ge "$csv_v" 0.15 "user_s including the short-lived child"
}

test_reused_pid_counts_twice() {
	try "$JOULESTAT" -i 10 --csv=s.csv -- "$JS_WORK" reuse-pid
	reuse_pid_counted
}

# Hundreds of processes that live for microseconds: no crash, no hang,
# a consistent CSV and a count that stays within the truth.
test_fork_storm() {
	try "$JOULESTAT" -i 1 --csv=s.csv -- "$JS_WORK" forkmany 500
	assert_rc 0
	"$CSVTOOL" check s.csv >/dev/null 2>&1 || fail "s.csv is not consistent CSV"
	csv_get s.csv processes scope=run
	assert_ge "$csv_v" 1 processes
	assert_le "$csv_v" 501 processes
}

t_run "tree 2 3: 13 processes, several at once" test_tree_counts
t_run "tree 1 10: 11 processes" test_wide_tree_counts
t_run "a shell running a tree: 4 processes, its status" test_tree_through_a_shell
t_run "a child shorter than a tick counts in user_s" test_short_child_in_totals
t_run "a reused pid counts as two processes" test_reused_pid_counts_twice
t_run "a fork storm at -i 1 is survived" test_fork_storm
t_done
