#!/bin/bash
# -r/--repeat, --warmup, --cooldown (perf stat -r, hyperfine): runs, their
# mean and standard deviation, and how a failing run ends the series.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

# A workload that counts its runs in ./n and fails with status 5 on run FAIL.
counter() {
	cat >count.sh <<'SH'
n=$(($(cat n 2>/dev/null || echo 0) + 1))
echo $n >n
[ "$n" != "${FAIL:-0}" ] || exit 5
exec "$@"
SH
}

test_three_runs_mean_stddev() {
	NVSIM_SCENARIO=$SCN/attrib-shared.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -r 3 \
	    --csv=s.csv -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	"$CSVTOOL" check s.csv >/dev/null || fail "s.csv: rows differ in field count"
	assert_eq "$("$CSVTOOL" count s.csv scope=run)" 9 \
	    "run rows (3 runs, mean, stddev, median, min, max, n)"
	for k in 1 2 3; do
		csv_get s.csv wall_s scope=run run=$k
		eval "w$k=$csv_v"
	done
	csv_get s.csv wall_s scope=run run=mean
	assert_near "$csv_v" "$(awk -v a="$w1" -v b="$w2" -v c="$w3" \
	    'BEGIN { printf "%.6f", (a + b + c) / 3 }')" 0.000002 "mean wall_s"
	csv_get s.csv wall_s scope=run run=stddev
	assert_near "$csv_v" "$(awk -v a="$w1" -v b="$w2" -v c="$w3" 'BEGIN { m = (a + b + c) / 3;
	    printf "%.6f", sqrt(((a - m) ^ 2 + (b - m) ^ 2 + (c - m) ^ 2) / 2) }')" 0.000002 \
	    "stddev wall_s"
	for st in median min max; do
		csv_get s.csv wall_s scope=run run=$st
		assert_near "$csv_v" "$(printf '%s\n' "$w1" "$w2" "$w3" | sort -g | awk -v st=$st '
		    { v[NR] = $1 } END { print st == "min" ? v[1] : st == "max" ? v[3] : v[2] }')" \
		    0.000002 "$st wall_s"
	done
	csv_get s.csv wall_s scope=run run=n
	assert_eq "$csv_v" 3 "n wall_s"
	csv_get s.csv energy_j scope=device run=mean device=0
	assert_num "$csv_v" "mean energy"
	csv_get s.csv time_s scope=pstate run=mean device=0
	assert_num "$csv_v" "mean P-state time"
	assert_match err '\(3 runs\)'
	assert_match err 'energy +[0-9.]+ J ± [0-9.]+ \(measurement\), standard deviation [0-9.]+ J'
	assert_match err 'wall time +[0-9.]+ s, standard deviation [0-9.]+ s'
	csv_get s.csv energy_err_j scope=device run=mean device=0
	assert_num "$csv_v" "mean energy's bound"
	csv_get s.csv time_err_s scope=pstate run=max device=0
	assert_num "$csv_v" "max P-state time's bound"
}

# The JSON summary of a series carries the same mean as the CSV.
test_json_series() {
	NVSIM_SCENARIO=$SCN/attrib-shared.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q -r 3 \
	    --csv=s.csv --json=r.json -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	csv_get s.csv wall_s scope=run run=mean
	assert_near "$("$JSONTOOL" get r.json .series.wall_s.mean)" "$csv_v" 0.000001 "series wall"
	csv_get s.csv energy_j scope=device run=stddev device=0
	assert_near "$("$JSONTOOL" get r.json .series.devices[0].energy_j.stddev)" "$csv_v" \
	    0.000001 "series energy stddev"
	assert_eq "$("$JSONTOOL" get r.json .series.runs)" 3 "series runs"
	NVSIM_SCENARIO=$SCN/attrib-shared.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q \
	    --json=one.json -- "$JS_WORK" sleep 0.1s
	assert_eq "$("$JSONTOOL" get one.json .series)" null "series of a single run"
}

test_warmup_not_reported() {
	counter
	try "$JOULESTAT" --warmup=2 -r 2 --csv=s.csv -- sh count.sh "$JS_WORK" exit 0
	assert_rc 0
	assert_eq "$(cat n)" 4 "runs of the workload"
	assert_eq "$("$CSVTOOL" count s.csv scope=run run=1)" 1 "run 1 rows"
	assert_eq "$("$CSVTOOL" count s.csv scope=run run=3)" 0 "run 3 rows"
}

# The first failing run stops the series; its status is joulestat's.
test_failing_run_stops() {
	counter
	FAIL=2 try "$JOULESTAT" -r 4 --csv=s.csv -- sh count.sh "$JS_WORK" exit 0
	assert_rc 5
	assert_eq "$(cat n)" 2 "runs of the workload"
	csv_get s.csv exit_status scope=run run=2
	assert_eq "$csv_v" 5 "run 2 exit_status"
}

# A failing warm-up stops too, before any measured run.
# Run 3 fails: the statistics are those of runs 1 and 2, and say so.
test_failed_run_not_in_statistics() {
	counter
	FAIL=3 try "$JOULESTAT" -r 3 --csv=s.csv -- sh count.sh "$JS_WORK" sleep 0.2s
	assert_rc 5
	csv_get s.csv wall_s scope=run run=1
	w1=$csv_v
	csv_get s.csv wall_s scope=run run=2
	w2=$csv_v
	csv_get s.csv wall_s scope=run run=mean
	assert_near "$csv_v" "$(calc "($w1 + $w2) / 2")" 0.000002 "mean wall_s of the runs that succeeded"
	assert_match err '\(3 runs, statistics over the 2 that succeeded\)'
	assert_match err 'warning: run 3 failed \(status 5\): it is in no statistic'
}

test_failing_warmup() {
	counter
	FAIL=1 try "$JOULESTAT" --warmup=1 -r 3 -- sh count.sh "$JS_WORK" exit 0
	assert_rc 5
	assert_eq "$(cat n)" 1 "runs of the workload"
}

# --cooldown pauses between runs: two pauses of 0.4 s at least.
test_cooldown() {
	counter
	start=$(date +%s%N)
	try "$JOULESTAT" -q -r 3 --cooldown=0.4 -- sh count.sh "$JS_WORK" exit 0
	end=$(date +%s%N)
	assert_rc 0
	assert_ge $(((end - start) / 1000000)) 800 "milliseconds for 3 runs with 2 pauses"
}

test_bad_values() {
	for v in -r0 -r -1 -rx --repeat=10001 --warmup=-1 --cooldown=-1 --cooldown=x; do
		try "$JOULESTAT" $v -- true
		assert_rc 125
	done
	try "$JOULESTAT" -r 2 -p $$
	assert_rc 125
	assert_match err 'need a command'
}

# What run 1 leaves running ends during the cool-down: its SIGCHLD is not a
# signal to stop, and every run is still made and reported.
test_cooldown_child_ends() {
	try -t 60 "$JOULESTAT" -q -r 3 --cooldown 0.6 --csv=s.csv -- sh -c 'sleep 0.2 & exit 0'
	assert_rc 0
	assert_eq "$("$CSVTOOL" count s.csv scope=run)" 9 \
	    "run rows (3 runs, mean, stddev, median, min, max, n)"
	csv_get s.csv wall_s scope=run run=3
	assert_num "$csv_v" "run 3 wall_s"
}

# What run 1 leaves running (--descendants=leave) and ends during run 2 is
# not run 2's: neither its CPU time nor its process.
test_leftover_not_next_run() {
	cat >two.sh <<'SH'
if [ ! -e n ]; then
	echo 1 >n
	"$1" spin 1s &
	exit 0
fi
exec "$1" sleep 2.5s
SH
	try -t 60 "$JOULESTAT" -q -r 2 --csv=s.csv -- sh two.sh "$JS_WORK"
	assert_rc 0
	csv_get s.csv still_running scope=run run=1
	assert_eq "$csv_v" 1 "run 1 leftovers"
	csv_get s.csv user_s scope=run run=2
	assert_le "$csv_v" 0.5 "run 2 user_s"
	csv_get s.csv processes scope=run run=2
	assert_eq "$csv_v" 1 "run 2 processes"
}

t_run "-r 3: three runs, then mean and stddev rows" test_three_runs_mean_stddev
t_run "the JSON summary of a series matches the CSV" test_json_series
t_run "--warmup runs are not reported" test_warmup_not_reported
t_run "a failing run stops the series with its status" test_failing_run_stops
t_run "a failed run is not in mean and sd, and the report says so" test_failed_run_not_in_statistics
t_run "a failing warm-up stops the series" test_failing_warmup
t_run "--cooldown pauses between runs" test_cooldown
t_run "bad repeat values are usage errors" test_bad_values
t_run "a child that ends during --cooldown does not end the series" test_cooldown_child_ends
t_run "what run 1 leaves running is not charged to run 2" test_leftover_not_next_run
t_done
