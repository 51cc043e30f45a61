#!/bin/bash
# The process tree at scale: 2,000 short-lived children forked as
# fast as possible, and a tree of 1,000 concurrent processes.  Totals must
# be right (CPU times against what the workload's own rusage says), no pid
# may be confused or counted twice, nothing crashes, and a sampler that
# falls behind reports missed ticks instead of failing.
#
# "processes" counts the processes seen at readings (man page, CSV): the
# children of forkmany live for microseconds and are reaped by js-work, so
# most are never seen; their CPU time still reaches joulestat via wait4.
. "$(dirname "$0")/lib.sh"
: "${CSVTOOL:?}"

run_get() {
	csv_get s.csv "$1" scope=run
}

# forkmany 2000 under js-work rusage (time(1) without /usr/bin/time, which a
# minimal Debian lacks): joulestat's user_s + sys_s is the whole tree's, which
# contains what wait4 measured for js-work and its children, plus the
# wrapper's own few milliseconds.
test_forkmany_totals() {
	try "$JOULESTAT" -i 10 --csv=s.csv -- "$JS_WORK" rusage rt "$JS_WORK" forkmany 2000
	assert_rc 0
	"$CSVTOOL" check s.csv >check.out 2>&1 || fail "s.csv: $(cat check.out)"
	read -r ru rs _ <rt || fail "no rusage from the workload"
	run_get user_s
	ju=$csv_v
	run_get sys_s
	js=$csv_v
	own=$(calc "$ru + $rs")
	tot=$(calc "$ju + $js")
	note "joulestat user+sys $tot s, the workload's rusage $own s"
	# 0.02 s of slack below (rounding of the per-process figures); the
	# wrapper itself above, loosely.
	assert_ge "$tot" "$(calc "$own - 0.02")" "user_s + sys_s vs the workload's rusage"
	assert_le "$tot" "$(calc "$own * 1.5 + 0.1")" "user_s + sys_s vs the workload's rusage"
	assert_ge "$tot" 0.001 "user_s + sys_s of 2,000 forks"
	run_get processes
	p=$csv_v
	run_get max_concurrent
	note "processes $p, max_concurrent $csv_v (2,001 existed, at most 66 at once)"
	assert_ge "$p" 2 processes
	assert_le "$p" 2002 "processes (the rusage wrapper, js-work and 2,000 children at most)"
	assert_ge "$csv_v" 1 max_concurrent
	# 64 children in flight at most, plus js-work and the rusage wrapper.
	assert_le "$csv_v" 66 "max_concurrent"
	assert_le "$csv_v" "$p" "max_concurrent vs processes"
	run_get still_running
	assert_eq "$csv_v" 0 still_running
}

# The same storm at -i 1, where the sampler walks the tree a thousand times
# a second while it churns: no pid confusion (a count beyond the truth).
test_forkmany_fast_sampling() {
	try "$JOULESTAT" -i 1 --csv=s.csv -- "$JS_WORK" forkmany 2000
	assert_rc 0
	"$CSVTOOL" check s.csv >check.out 2>&1 || fail "s.csv: $(cat check.out)"
	run_get processes
	p=$csv_v
	run_get max_concurrent
	note "-i 1: processes $p, max_concurrent $csv_v"
	assert_le "$p" 2001 processes
	assert_le "$csv_v" 65 max_concurrent
	run_get missed_ticks
	assert_num "$csv_v" missed_ticks
}

# tree 1 999 2s: js-work and 999 children that all live 2 s: exactly 1,000
# processes, nearly all of them seen at once, no crash; missed ticks are
# reported, not an error.
test_tree_1000() {
	try "$JOULESTAT" -i 100 --csv=s.csv -- "$JS_WORK" tree 1 999 2s
	assert_rc 0
	"$CSVTOOL" check s.csv >check.out 2>&1 || fail "s.csv: $(cat check.out)"
	run_get missed_ticks
	m=$csv_v
	run_get late_max_ms
	l=$csv_v
	run_get processes
	p=$csv_v
	run_get max_concurrent
	note "processes $p, max_concurrent $csv_v, missed_ticks $m, late_max ${l} ms"
	assert_eq "$p" 1000 "processes (js-work and 999 children)"
	assert_ge "$csv_v" 990 "max_concurrent"
	assert_le "$csv_v" 1000 "max_concurrent"
	assert_match err 'processes +1000 seen'
	assert_match err 'sampler: .* missed'
}

t_run "forkmany 2000: CPU totals match the workload's rusage" test_forkmany_totals
t_run "forkmany 2000 at -i 1: no pid counted beyond the truth" test_forkmany_fast_sampling
t_run "a tree of 1,000 concurrent processes: 1000 counted" test_tree_1000
t_done
