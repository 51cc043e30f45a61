#!/bin/bash
# CI gates: thresholds, baselines, their verdicts in every output form and
# the exit status they give (only when the workload and joulestat succeeded).
# gate.scn is a steady 100 W, so a run's energy is 100 J per second.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

gated() {
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

# verdict FILE GATE [FIGURE]: the gate_verdict of a gate row of a summary CSV.
verdict() {
	csv_get "$1" gate_verdict scope=gate gate="$2" ${3:+gate_figure="$3"}
}

test_energy_limits_either_side() {
	gated --csv=s.csv --max-energy=200 -- "$JS_WORK" sleep 1s
	assert_rc 0
	csv_get s.csv energy_j scope=device device=0
	e=$csv_v
	note "energy of a 1 s run at 100 W: $e J"
	verdict s.csv --max-energy
	assert_eq "$csv_v" pass "verdict under the limit"
	csv_get s.csv gate_measured scope=gate gate=--max-energy
	assert_near "$csv_v" "$e" 0.000001 "the gate judged the device's energy"
	gated --csv=s.csv --max-energy=50 -- "$JS_WORK" sleep 1s
	assert_rc 3
	verdict s.csv --max-energy
	assert_eq "$csv_v" fail "verdict over the limit"
	assert_match err 'energy, all devices +<= 50\.000 J +[0-9.]+ J +FAIL'
	assert_match err '1 of 1 gates failed'
}

test_per_device_and_missing_device() {
	gated --csv=s.csv --max-energy=0:200,1:200 -- "$JS_WORK" sleep 0.5s
	assert_rc 3
	verdict s.csv --max-energy "energy, device 0"
	assert_eq "$csv_v" pass "device 0"
	verdict s.csv --max-energy "energy, device 1"
	assert_eq "$csv_v" fail "device 1 does not exist: not measured is a failure"
	assert_match err 'FAIL \(not measured\)'
	assert_match err 'the run has no device 1'
}

test_time_power_above_idle() {
	gated -q --csv=s.csv --max-time=10 --max-avg-power=90 --idle-power=40 \
	    --max-energy-above-idle=1000 -- "$JS_WORK" sleep 1s
	assert_rc 3
	verdict s.csv --max-time
	assert_eq "$csv_v" pass "--max-time 10"
	verdict s.csv --max-avg-power
	assert_eq "$csv_v" fail "--max-avg-power 90 at 100 W"
	csv_get s.csv gate_measured scope=gate gate=--max-avg-power
	assert_near "$csv_v" 100 1 "average power judged"
	verdict s.csv --max-energy-above-idle
	assert_eq "$csv_v" pass "--max-energy-above-idle"
	csv_get s.csv energy_above_idle_j scope=device device=0
	above=$csv_v
	csv_get s.csv gate_measured scope=gate gate=--max-energy-above-idle
	assert_near "$csv_v" "$above" 0.000001 "above-idle energy judged"
	# -q: no report, so the failed gate is named on stderr alone.
	assert_match err 'gate failed: average power, all devices \(--max-avg-power\): (100|99)\.[0-9]+ W, limit <= 90\.000 W'
	assert_no_match err 'max-time'
	gated -q --max-time=0.2 -- "$JS_WORK" sleep 0.5s
	assert_rc 3
	assert_match err 'gate failed: wall time \(--max-time\)'
}

# sim SCENARIO ARGS...: joulestat on another scenario of tests/sim/scenarios,
# or on one the test wrote (a path).
sim() {
	case $1 in
	/*) s_scn=$1 ;;
	*) s_scn=$SCN/$1 ;;
	esac
	shift
	NVSIM_SCENARIO=$s_scn try "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

# A partly measured gate says how much device time was measured, of how
# much.  Before: "lost time: 0.400 s of 1.002 s of device time measured",
# where 0.400 s was the time measured, not the time lost.
test_partial_says_time_measured() {
	sim fault-lost-end.scn --csv=s.csv --max-energy=1000 -- "$JS_WORK" sleep 1s
	assert_rc 3
	csv_get s.csv measured_s scope=device device=0
	m=$csv_v
	line=$(grep -Eo 'device time measured: [0-9.]+ s of [0-9.]+ s' err) ||
	    fail "no 'device time measured' on the gate's line"
	set -- $line
	note "$line; measured_s $m"
	assert_near "$4" "$m" 0.0005 "the time measured is the device's measured_s"
	awk -v a="$4" -v b="$7" 'BEGIN { exit !(a < b) }' || fail "$4 s measured of $7 s"
	assert_no_match err 'lost time: '
}

# 2 s runs: P2 for the first 0.5 s (less the simulator's head start), P0 after.
test_pstate_share() {
	gated --json=j.json --min-pstate-share=P0:60,0:p2:10 -- "$JS_WORK" sleep 2s
	assert_rc 0
	"$JSONTOOL" get j.json '.gates[0].measured' >v || fail "no gates in JSON"
	p0=$(cat v)
	note "P0 share $p0 %"
	assert_ge "$p0" 60 "P0 share"
	assert_le "$p0" 90 "P0 share"
	"$JSONTOOL" get j.json '.gates[1].figure' >v
	assert_match v 'p2 share of time, device 0'
	"$JSONTOOL" get j.json '.gates[1].passed' >v
	assert_match v true
	gated --min-pstate-share=P0:95 -- "$JS_WORK" sleep 1s
	assert_rc 3
	assert_match err 'P0 share of time, device 0 +>= 95\.000 % +[0-9.]+ % +FAIL'
	gated --min-pstate-share=P5:1 -- "$JS_WORK" sleep 0.3s
	assert_rc 3
	assert_match err 'P5 share of time, device 0 +>= 1\.000 % +0\.000 % +FAIL'
}

# A device that reports P-states but read none (every read failed) has no
# share to judge; one lost mid-run has a share of part of the run.
# Before: "P0 ... 0.000 % FAIL" and, with a limit of 0, P2 passed at
# 0.000 %; the lost device's 100 % P0 passed.
test_pstate_share_not_or_partly_measured() {
	{ cat "$SCN/gate.scn"; echo 'fail nvmlDeviceGetPerformanceState 999 0 86400000'; } >nops.scn
	sim "$PWD/nops.scn" --csv=s.csv --json=j.json --min-pstate-share=P0:10,0:P2:0 -- \
	    "$JS_WORK" sleep 0.5s
	assert_rc 3
	for i in 0 1; do
		"$JSONTOOL" get j.json ".gates[$i].measured" >v || fail "no gate $i in JSON"
		assert_eq "$(cat v)" null "gate $i's measured in JSON"
		"$JSONTOOL" get j.json ".gates[$i].passed" >v
		assert_eq "$(cat v)" false "gate $i passed"
	done
	for f in "P0 share of time, device 0" "P2 share of time, device 0"; do
		csv_get s.csv gate_measured scope=gate gate_figure="$f"
		assert_eq "$csv_v" "" "$f: measured in CSV"
	done
	assert_match err 'P2 share of time, device 0 +>= 0\.000 % +- +FAIL \(not measured\)'
	assert_match err '^ +device 0 read no performance state$'
	# fault-lost-end.scn: lost from 0.5 s of a 1 s run.
	sim fault-lost-end.scn --min-pstate-share=P0:10 -- "$JS_WORK" sleep 1s
	assert_rc 3
	assert_match err 'P0 share of time, device 0 .* FAIL \(partly measured\)$'
	assert_match err 'device time measured: 0\.[0-9]+ s of '
	sim fault-lost-end.scn --gate-partial=measured --min-pstate-share=P0:10 -- \
	    "$JS_WORK" sleep 1s
	assert_rc 0
	assert_match err 'P0 share of time, device 0 .* pass$'
	assert_match err 'judged on that \(--gate-partial=measured\)'
}

# A GPU lost in the middle of a phase measured part of it.  The phase runs
# from the start to 1 s, the GPU is lost from 0.5 s to 2.5 s of a 3 s run.
# Before: the phase's 40 J of 100 passed --max-energy, and the phase's
# -60 % against a whole baseline passed --max-regression.
test_phase_partly_measured() {
	cat >whole.scn <<-'SCN'
	device 0
	name Test GPU
	uuid GPU-00000000-1111-2222-3333-444444444466
	busid 00000000:01:00.0
	energy_counter yes
	power instant
	phase at=0 power=100 pstate=0
	SCN
	{ cat whole.scn; echo 'lost 500 2500'; } >midphase.scn
	sim "$PWD/whole.scn" -q --csv=base.csv -- "$JS_WORK" marks m phase:work 1s end 2s
	assert_rc 0
	sim "$PWD/midphase.scn" --csv=s.csv --json=j.json --max-energy=phase:work:1000 \
	    --min-pstate-share=phase:work:P0:50 --baseline=base.csv --max-regression=60 -- \
	    "$JS_WORK" marks m phase:work 1s end 2s
	assert_rc 3
	csv_get s.csv energy_j scope=phase phase=work device=0
	note "phase work: $csv_v J of 100 J"
	for f in "energy, all devices, phase work" "P0 share of time, device 0, phase work" \
	    "energy growth over the baseline, phase work"; do
		csv_get s.csv gate_verdict scope=gate gate_figure="$f"
		assert_eq "$csv_v" fail "$f"
	done
	assert_match err 'energy, all devices, phase work .* FAIL \(partly measured\)$'
	assert_match err 'energy growth over the baseline, phase work .* FAIL \(partly measured\)$'
	for scope in phase phase_occurrence; do
		csv_get s.csv partial scope=$scope phase=work device=0
		assert_eq "$csv_v" 1 "partial on the $scope row"
		csv_get base.csv partial scope=$scope phase=work device=0
		assert_eq "$csv_v" 0 "partial on the whole phase's $scope row"
	done
	"$JSONTOOL" get j.json '.runs[0].phases[0].devices[0].partial' >v || fail "no phase in JSON"
	assert_eq "$(cat v)" true "the phase's partial in JSON"
	sim "$PWD/midphase.scn" --gate-partial=measured --max-energy=phase:work:1000 -- \
	    "$JS_WORK" marks m phase:work 1s end 2s
	assert_rc 0
	assert_match err 'judged on that \(--gate-partial=measured\)'
}

# A GPU lost from the start (it never answered, so it has no UUID either)
# measured nothing: a total over all devices misses all of its time, as it
# would miss part of it had the GPU been lost later; the per-device gate of
# the other GPU is whole.  Before: every gate passed, "the sum over the 1 of
# 2 devices", and against a baseline of both GPUs the growth was over the
# one left (+0.0 %, "1 device").
test_device_lost_from_start() {
	{
		cat "$SCN/gate.scn"
		printf 'device 1\nname Test GPU B\nuuid GPU-00000000-1111-2222-3333-4444444444bb\n'
		printf 'busid 00000000:19:00.0\nenergy_counter yes\npower instant\n'
		printf 'phase at=0 power=100 pstate=0\n'
	} >two.scn
	{ cat two.scn; echo 'lost 0 86400000'; } >lost.scn
	sim "$PWD/two.scn" -q -d all --csv=base.csv -- "$JS_WORK" marks m phase:a 1s
	assert_rc 0
	sim "$PWD/lost.scn" -d all --csv=s.csv --max-energy=1000,0:1000 --max-avg-power=1000 \
	    --max-energy=phase:a:1000 --baseline=base.csv --max-regression=20 -- \
	    "$JS_WORK" marks m phase:a 1s
	assert_rc 3
	csv_get s.csv energy_j scope=device device=1
	assert_eq "$csv_v" "" "GPU B's energy"
	for f in "energy, all devices" "average power, all devices" \
	    "energy, all devices, phase a" "energy growth over the baseline" \
	    "energy growth over the baseline, phase a"; do
		assert_match err "^   $f  .* FAIL \\(partly measured\\)\$"
	done
	verdict s.csv --max-energy "energy, device 0"
	assert_eq "$csv_v" pass "GPU A's own gate"
	assert_match err 'the sum over the 1 of 2 devices that measured it; device time measured: '
	assert_match err '1 device; 1 that measured nothing left out of both'
	# Judged on what was measured: each side without GPU B.
	sim "$PWD/lost.scn" -d all --csv=s.csv --gate-partial=measured --max-energy=1000 \
	    --baseline=base.csv --max-regression=20 -- "$JS_WORK" marks m phase:a 1s
	assert_rc 0
	for f in "energy growth over the baseline" "energy growth over the baseline, phase a"; do
		csv_get s.csv gate_measured scope=gate gate_figure="$f"
		note "$f: $csv_v %"
		assert_near "$csv_v" 0 5 "$f, GPU A on both sides"
	done
	assert_match err 'judged on that \(--gate-partial=measured\)'
}

# The workload's own status always wins over a failed gate; joulestat's own
# failure (an output it could not write) too.
test_status_precedence() {
	gated -q --max-energy=1 -- "$JS_WORK" exit 7
	assert_rc 7
	gated -q --max-energy=1 --gate-exit-code=42 -- "$JS_WORK" sleep 0.2s
	assert_rc 42
	gated -q --max-energy=1000 --gate-exit-code=42 -- "$JS_WORK" sleep 0.2s
	assert_rc 0
	gated -q --max-energy=1 --csv=/nonexistent/dir/s.csv -- "$JS_WORK" sleep 0.2s
	assert_rc 125
	gated -q --max-energy=1 -- "$JS_WORK" signal TERM
	assert_rc 143
}

# With -r the mean is judged; --gate-sigma adds K standard deviations.
test_repeat_mean_and_sigma() {
	gated -q -r 3 --csv=s.csv --max-energy=1000 --gate-sigma=2 -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	csv_get s.csv energy_j scope=device run=mean device=0
	m=$csv_v
	csv_get s.csv energy_j scope=device run=stddev device=0
	sd=$csv_v
	csv_get s.csv gate_measured scope=gate gate=--max-energy
	assert_near "$csv_v" "$(calc "$m + 2 * $sd")" 0.00002 "mean + 2 sd"
	gated -r 2 --max-energy=1000 -- "$JS_WORK" sleep 0.2s
	assert_rc 0
	assert_match err 'mean [0-9.]+ J \+ 0 x sd [0-9.]+ J over 2 runs'
}

# With -r a run that failed is in no statistic, so not in what the gates
# judge: run 1 sleeps 0.5 s (50 J), run 2 sleeps 0.2 s (20 J) and exits 1,
# which ends the series.  Before: the gate judged the mean of both, 35 J,
# and passed a limit of 40 J.
test_repeat_failed_run_left_out() {
	gated -r 3 --csv=s.csv --max-energy=40 -- sh -c \
	    'if [ -e once ]; then "$0" sleep 0.2s; exit 1; fi; touch once; exec "$0" sleep 0.5s' \
	    "$JS_WORK"
	assert_rc 1
	assert_eq "$("$CSVTOOL" count s.csv scope=run run=2)" 1 "the row of run 2, which failed"
	csv_get s.csv energy_j scope=device run=1 device=0
	e1=$csv_v
	csv_get s.csv energy_j scope=device run=2 device=0
	note "run 1 $e1 J, run 2 (failed) $csv_v J"
	csv_get s.csv gate_measured scope=gate gate=--max-energy
	assert_near "$csv_v" "$e1" 0.000001 "the gate judged run 1 alone"
	verdict s.csv --max-energy
	assert_eq "$csv_v" fail "run 1's energy over the limit"
	# No run succeeded: nothing to judge, so every gate fails as not measured.
	gated --csv=s.csv --max-energy=1000 --max-time=60 --min-pstate-share=P2:0 -- \
	    "$JS_WORK" exit 7
	assert_rc 7
	for g in --max-energy --max-time --min-pstate-share; do
		verdict s.csv $g
		assert_eq "$csv_v" fail "$g when no run succeeded"
		csv_get s.csv gate_measured scope=gate gate=$g
		assert_eq "$csv_v" "" "$g: no figure"
	done
	assert_match err 'energy, all devices +<= 1000\.000 J +- +FAIL \(not measured\)'
	assert_match err '^ +no run succeeded$'
	assert_match err '3 of 3 gates failed'
}

test_regression_against_baseline() {
	gated -q -r 2 --csv=base.csv -- "$JS_WORK" sleep 0.5s
	assert_rc 0
	# Twice as long: twice the energy, +100 %.
	gated --baseline=base.csv --max-regression=20 -- "$JS_WORK" sleep 1s
	assert_rc 3
	assert_match err 'energy growth over the baseline +<= 20\.000 % +[0-9.]+ % +FAIL'
	assert_match err 'baseline [0-9.]+ J \(2 runs\), now [0-9.]+ J \(1 runs\): \+(9[0-9]|1[01][0-9])\.'
	gated --baseline=base.csv --max-regression=20 -- "$JS_WORK" sleep 0.5s
	assert_rc 0
	assert_match err 'energy growth over the baseline .* pass'
	gated -q --baseline=base.csv --max-regression=20 --regression-metric=time \
	    --csv=s.csv -- "$JS_WORK" sleep 1s
	assert_rc 3
	csv_get s.csv gate_figure scope=gate
	assert_eq "$csv_v" "wall time growth over the baseline" "time metric"
}

# A baseline's run that failed is not compared, nor its device and phase
# rows: run 1 of base.csv sleeps 0.5 s (50 J), run 2 sleeps 0.2 s (20 J) and
# exits 1.  Before: the baseline's mean was 35 J, and a run of 50 J grew by
# 43 %.
test_baseline_leaves_failed_runs_out() {
	gated -q -r 3 --csv=base.csv -- sh -c \
	    'if [ -e once ]; then "$0" marks m phase:a 0.2s; exit 1; fi
	    touch once; exec "$0" marks m phase:a 0.5s' "$JS_WORK"
	assert_rc 1
	assert_eq "$("$CSVTOOL" count base.csv scope=device run=2)" 1 "run 2 in base.csv"
	gated --csv=s.csv --baseline=base.csv --max-regression=20 -- "$JS_WORK" marks m phase:a 0.5s
	assert_rc 0
	assert_match err 'baseline [0-9.]+ J \(1 runs\), now'
	for w in "energy growth over the baseline" "energy growth over the baseline, phase a"; do
		csv_get s.csv gate_measured scope=gate gate_figure="$w"
		note "$w: $csv_v %"
		assert_near "$csv_v" 0 5 "$w: against run 1 alone"
		verdict s.csv --max-regression "$w"
		assert_eq "$csv_v" pass "$w"
	done
	# No run that succeeded: refused in one line, before the workload.
	gated -q --csv=failed.csv -- "$JS_WORK" exit 3
	assert_rc 3
	gated -q --baseline=failed.csv --max-regression=20 -- sh -c 'touch ran'
	assert_rc 125
	[ "$(wc -l <err)" -eq 1 ] || fail "not one line"
	assert_match err "^joulestat: --baseline: failed.csv: no run that succeeded"
	[ ! -e ran ] || fail "the workload ran"
}

# The growth must exceed the limit by more than the combined noise.
test_regression_is_noise_aware() {
	gated -q --csv=a.csv -- "$JS_WORK" sleep 0.3s
	gated -q --csv=b.csv -- "$JS_WORK" sleep 0.9s
	assert_rc 0
	# A baseline of two runs with very different energies: a large sd.
	{ cat a.csv; tail -n +2 b.csv | sed 's/^2,run,1,/2,run,2,/; s/^2,\(device\|pstate\|process\),1,/2,\1,2,/'; } >noisy.csv
	assert_eq "$("$CSVTOOL" count noisy.csv scope=run)" 2 "runs in the noisy baseline"
	# Now 0.9 s runs: +50 % or more over the baseline mean of ~60 J, but well
	# within the noise of both sides.
	gated -q -r 2 --csv=s.csv --baseline=noisy.csv --max-regression=10 -- \
	    sh -c 'if [ -e once ]; then exec "$0" sleep 0.3s; fi; touch once; exec "$0" sleep 0.9s' "$JS_WORK"
	assert_rc 0
	csv_get s.csv gate_verdict scope=gate
	assert_eq "$csv_v" pass "within the noise"
	# Without repeats on this side there is no noise estimate: the same growth fails.
	gated -q --csv=s.csv --baseline=noisy.csv --max-regression=10 -- "$JS_WORK" sleep 0.9s
	assert_rc 3
}

test_bad_values_are_usage_errors() {
	for a in --max-energy=x --max-energy=-1 --max-energy=0:x --max-energy=a:5 \
	    --max-time=0 --max-time=1,2 --max-avg-power= --min-pstate-share=P0 \
	    --min-pstate-share=P0:101 --min-pstate-share=:50 --max-regression=5% \
	    --gate-sigma=-1 --gate-exit-code=0 --gate-exit-code=125 --regression-metric=power \
	    --max-time=0x10 --max-energy=+5 --max-energy=inf --cooldown=0x1 -i0x10 \
	    --max-energy=0:5,0:6 --min-pstate-share=P0:5,P0:6 --idle-power=0:50,0:60; do
		try "$JOULESTAT" -q "$a" -- sh -c 'touch ran'
		assert_rc 125
		case $a in
		-i*) assert_match err "^joulestat: invalid interval" ;;
		*) assert_match err "^joulestat: (invalid )?${a%%=*}" ;;
		esac
		[ ! -e ran ] || fail "$a: the workload ran"
	done
	try "$JOULESTAT" -q --max-regression=5 -- true
	assert_rc 125
	assert_match err 'needs --baseline'
	try "$JOULESTAT" -q --baseline=x.csv -- true
	assert_rc 125
	assert_match err 'needs --max-regression'
}

test_bad_baselines() {
	printf 'a,b\n1,2\n' >notours.csv
	printf 'schema_version,scope,run,wall_s,device_id,energy_j,energy_above_idle_j\n2,run,1,zz,,,\n' >badnum.csv
	printf 'x,"y\n' >badquote.csv
	: >empty.csv
	# Cut short inside the device row's energy; a schema from elsewhere; a run that is no number.
	h='schema_version,scope,run,wall_s,device_id,energy_j,energy_above_idle_j'
	printf '%s\n2,run,1,1.5,,,\n2,device,1,,GPU-x,12' "$h" >cut.csv
	printf '%s\n9,run,1,1.5,,,\n' "$h" >v9.csv
	printf '%s\n2,run,1x,1.5,,,\n' "$h" >badrun.csv
	printf '%s,exit_status\n2,run,1,1.5,,,,x\n' "$h" >badexit.csv
	for f in cut.csv v9.csv badrun.csv badexit.csv; do
		gated -q --baseline=$f --max-regression=5 -- true
		assert_rc 125
		[ "$(wc -l <err)" -eq 1 ] || fail "$f: not one line"
		case $f in
		cut.csv) assert_match err "^joulestat: --baseline: $f: line 3: 6 fields where the header has 7" ;;
		v9.csv) assert_match err "^joulestat: --baseline: $f: line 2: schema_version '9' is not 2" ;;
		badrun.csv) assert_match err "^joulestat: --baseline: $f: line 2: run '1x' is not a run number" ;;
		badexit.csv) assert_match err "^joulestat: --baseline: $f: line 2: exit_status 'x' is not an exit status" ;;
		esac
	done
	for f in notours.csv badnum.csv badquote.csv empty.csv missing.csv; do
		gated -q --baseline=$f --max-regression=5 -- sh -c 'touch ran'
		assert_rc 125
		assert_match err "^joulestat: --baseline: $f"
		[ ! -e ran ] || fail "$f: the workload ran"
	done
	assert_match err 'No such file'
}

t_run "energy limits either side of the measured energy" test_energy_limits_either_side
t_run "per-device limits; a device the run lacks fails" test_per_device_and_missing_device
t_run "time, average power and above-idle gates" test_time_power_above_idle
t_run "a partly measured gate says the device time measured" test_partial_says_time_measured
t_run "P-state share gates" test_pstate_share
t_run "a P-state share not measured, or measured in part, fails" \
    test_pstate_share_not_or_partly_measured
t_run "a phase measured in part fails its gates" test_phase_partly_measured
t_run "a device lost from the start makes a total partly measured" test_device_lost_from_start
t_run "the workload's status and joulestat's failure win over gates" test_status_precedence
t_run "with -r the mean (+ k sd) is judged" test_repeat_mean_and_sigma
t_run "a run that failed is not judged; none that succeeded fails every gate" \
    test_repeat_failed_run_left_out
t_run "regression against a baseline summary" test_regression_against_baseline
t_run "a baseline's runs that failed are not compared" test_baseline_leaves_failed_runs_out
t_run "the regression gate allows for noise" test_regression_is_noise_aware
t_run "bad gate values are usage errors" test_bad_values_are_usage_errors
t_run "bad baselines are usage errors, before the workload" test_bad_baselines
t_done
