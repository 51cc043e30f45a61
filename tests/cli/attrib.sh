#!/bin/bash
# Attribution and idle power (HACKING.md, "Measurement rules") end to end on the simulated NVML:
# the scenario's constant utilization gives an exact expected share, so the
# estimate is checked against arithmetic, not against itself.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

# run_sim SCENARIO ARGS...: joulestat on the simulated GPU, summary in s.csv.
run_sim() {
	scn=$1
	shift
	NVSIM_SCENARIO=$SCN/$scn try "$JOULESTAT" --nvml-lib="$SIMLIB" --csv=s.csv "$@"
	assert_rc 0
}

# ratio A B: A / B with 6 decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a / b }'
}

# Tree 60% SM / 30% mem, other 40% / 20%, idle 100 W of 300 W: the workload
# gets exactly 60%.  2 percentage points cover the first and last partial
# per-process windows (500 ms polls) on a loaded machine.
test_shared_gpu_share() {
	run_sim attrib-shared.scn --idle-power=100 -- "$JS_WORK" sleep 3s
	csv_get s.csv energy_j scope=device device=0
	total=$csv_v
	csv_get s.csv workload_energy_j scope=device device=0
	assert_near "$(ratio "$csv_v" "$total")" 0.60 0.02 "workload share"
	csv_get s.csv other_energy_j scope=device device=0
	assert_near "$(ratio "$csv_v" "$total")" 0.40 0.02 "other processes' share"
	csv_get s.csv unattributed_energy_j scope=device device=0
	assert_near "$(ratio "$csv_v" "$total")" 0 0.02 "unattributed share"
	csv_get s.csv idle_method scope=device device=0
	assert_eq "$csv_v" given "idle_method"
	assert_match err 'attribution \(estimate'
}

# The process row carries the same estimate as the device's workload figure.
test_process_row_matches_workload() {
	run_sim attrib-shared.scn --idle-power=100 -- "$JS_WORK" -p w sleep 2s
	read -r wpid <w
	csv_get s.csv energy_j scope=process pid="$wpid"
	proc=$csv_v
	csv_get s.csv workload_energy_j scope=device device=0
	assert_near "$proc" "$csv_v" 0.000002 "process energy vs workload energy"
	csv_get s.csv energy_method scope=process pid="$wpid"
	assert_eq "$csv_v" estimate "process energy_method"
	csv_get s.csv sm_pct scope=process pid="$wpid"
	# The first answer, before the driver's sample period is learnt, may
	# stand for a little more than one sample (a slow start: ASan, and
	# valgrind much more).
	tol=0.05
	[ -z "${WRAP:-}" ] || tol=2
	assert_near "$csv_v" 60 "$tol" "process sm_pct"
	[ "$("$CSVTOOL" count s.csv pid=7777)" = 0 ] || fail "a foreign pid has a process row"
}

# Weights change the dynamic share: with SM only, 60/(60+40) of the dynamic
# energy; idle energy by SM% still gives 60%, so the share stays 0.60.  With
# memory only: 30/(30+20) = 0.6 too.  Weights 1,0 against 0,1 on a scenario
# where the ratios differ (foreign.scn, tree 50/25 vs others 45/20 at the
# busiest) must move the share, and by the sign the arithmetic predicts.
test_weights_move_share() {
	run_sim foreign.scn --idle-power=120 --attrib-weights=1,0 -- "$JS_WORK" sleep 3s
	csv_get s.csv energy_share scope=device device=0
	sm_only=$csv_v
	run_sim foreign.scn --idle-power=120 --attrib-weights=0,1 -- "$JS_WORK" sleep 3s
	csv_get s.csv energy_share scope=device device=0
	mem_only=$csv_v
	awk -v a="$sm_only" -v b="$mem_only" 'BEGIN { exit !(b > a + 0.01) }' ||
	    fail "memory-only weights should favour the workload (mem 25 vs 10+10): sm-only $sm_only, mem-only $mem_only"
}

# Idle power: given, measured by a baseline, or the lowest reading.
test_idle_sources() {
	# Busy at 300 W throughout: the lowest reading is no idle reference.
	run_sim attrib-shared.scn -- "$JS_WORK" sleep 1s
	csv_get s.csv idle_method scope=device device=0
	assert_eq "$csv_v" "" "idle_method without options on a busy GPU (unknown)"
	csv_get s.csv idle_power_w scope=device device=0
	assert_eq "$csv_v" "" "idle power of a GPU that never idled (unknown)"
	# demo.scn idles in P8 at 72 W for its first 500 ms, then works at up to 610 W.
	run_sim demo.scn -- "$JS_WORK" sleep 1s
	csv_get s.csv idle_method scope=device device=0
	assert_eq "$csv_v" minimum-seen "idle_method without options"
	csv_get s.csv idle_power_w scope=device device=0
	assert_near "$csv_v" 72 0.5 "the lowest reading while idle"
	run_sim demo.scn --idle-baseline=0.3 -- "$JS_WORK" sleep 1s
	csv_get s.csv idle_method scope=device device=0
	assert_eq "$csv_v" baseline "idle_method with --idle-baseline"
	# demo.scn idles at 72 W for its first 500 ms: the baseline sees that.
	csv_get s.csv idle_power_w scope=device device=0
	assert_near "$csv_v" 72 0.5 "baseline idle power"
	assert_match err 'energy above idle .*measured before the run'
}

# Energy above idle = energy - idle power x window, exactly but for the
# rounding of time_s to 1 us in the CSV (100 W x 1 us = 0.0001 J).
test_energy_above_idle() {
	run_sim attrib-shared.scn --idle-power=0:100 -- "$JS_WORK" sleep 1s
	csv_get s.csv energy_j scope=device device=0
	e=$csv_v
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv energy_above_idle_j scope=device device=0
	assert_near "$csv_v" "$(awk -v e="$e" -v w="$w" 'BEGIN { printf "%.6f", e - 100 * w }')" \
	    0.0002 "energy_above_idle_j"
}

test_bad_values() {
	for v in --attrib-weights=0,0 --attrib-weights=1 --attrib-weights=-1,2 \
	    --idle-power=abc --idle-power=0: --idle-power=-5 --idle-baseline=0 \
	    --idle-baseline=x --idle-baseline=4000; do
		try "$JOULESTAT" "$v" -- true
		assert_rc 125
		head -n 1 err | grep -q "^joulestat: invalid" || fail "$v: first line: $(head -n 1 err)"
	done
}

# An idle power given above what the device drew (400 W at 250 W): the
# shares are over the mean power as idle, none below nothing, and they add
# up to the device's energy (before: the workload 0 J, the others 560 J of
# 500, 112%).
test_idle_above_mean() {
	run_sim attrib-idle-high.scn --idle-power=400 -- "$JS_WORK" sleep 2s
	shares
	note "workload $w J, others $o J, unattributed $u J, of $e J"
	assert_near "$(calc "$w + $o + $u")" "$e" 0.01 "the shares add up to the device's energy"
	assert_le "$o" "$e" "the others' energy within the device's"
	# All of it idle, by SM: 5 of 55.
	assert_near "$(calc "$w / $e")" "$(calc "5 / 55")" 0.01 "the workload's share"
	# Below the mean, above a part's power: the workload's share of that
	# part is negative and held at 0, the rest scaled down with it (before:
	# the others got 1107 J of 1000).
	run_sim attrib-idle-dip.scn --idle-power=240 -- "$JS_WORK" sleep 4s
	shares
	note "a dip below idle: workload $w J, others $o J, unattributed $u J, of $e J"
	assert_near "$(calc "$w + $o + $u")" "$e" 0.01 "a dip: the shares add up"
	assert_le "$o" "$e" "a dip: the others' energy within the device's"
}

t_run "a shared GPU: the workload gets its arithmetic share" test_shared_gpu_share
t_run "an idle power above the mean: shares still add up" test_idle_above_mean
t_run "the process row carries the workload estimate" test_process_row_matches_workload
t_run "attribution weights move the share the right way" test_weights_move_share
t_run "idle power from the lowest reading or a baseline" test_idle_sources
t_run "energy above idle is energy minus idle x window" test_energy_above_idle
t_run "bad attribution and idle values are usage errors" test_bad_values
t_done
