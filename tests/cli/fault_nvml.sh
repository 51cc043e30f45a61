#!/bin/bash
# NVML faults from the simulator (tests/sim/README):
# the GPU lost for good mid-run or from the start, every call NOT_SUPPORTED,
# a call hanging for 3 s, repeated counter resets (one inside a lost
# window), and the per-process lists growing to 3,000 pids.  Each run must
# complete with the workload's status, and unknown figures stay unknown.
# Also single calls failing while the others answer (power only, at probe,
# mid-run, to the end), a GPU lost at probe that comes back, a GPU without
# a counter losing an interval, and a run shorter than one interval.
# Scenarios: tests/sim/scenarios/fault-*.scn, and others made by the tests.
#
# Already covered elsewhere, not repeated here: the GPU lost from 500 to
# 2500 ms and back (sim_e2e.sh "GPU lost", timeline.sh "lost rows"), one
# counter reset (sim_e2e.sh), 40 and 170 ms slow calls (sim_e2e.sh).
. "$(dirname "$0")/lib.sh"
: "${SIMLIB:?}" "${TOP:?}" "${CSVTOOL:?}" "${JSONTOOL:?}"

SCN=$TOP/tests/sim/scenarios

# Scenarios in which no device can be enumerated are made here, not
# shipped: sim_lib.sh's "every shipped scenario loads" enumerates each.
# gpu_block FILE: the device block every fault scenario uses.
gpu_block() {
	cat >>"$1" <<-'EOF'
	device 0
	name Test GPU
	uuid GPU-00000000-1111-2222-3333-444444444444
	busid 00000000:01:00.0
	phase at=0 power=200 pstate=0
	EOF
}

# js_fault SCENARIO DUR STATUS [JOULESTAT-ARGS...]: a workload that sleeps
# DUR and exits STATUS, on the simulated GPU; ./s.csv, ./j.json, ./t.csv,
# and the simulator's truth in ./truth.
js_fault() {
	f_scn=$1 f_dur=$2 f_st=$3
	shift 3
	case $f_scn in
	/*) ;;
	*) f_scn=$SCN/$f_scn ;;
	esac
	try env NVSIM_SCENARIO="$f_scn" NVSIM_TRUTH="$PWD/truth" "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" --csv=s.csv --json=j.json --timeline=t.csv "$@" -- \
	    sh -c '"$0" -p w sleep "$1"; exit "$2"' "$JS_WORK" "$f_dur" "$f_st"
	assert_rc "$f_st"
	for f in s.csv t.csv; do
		"$CSVTOOL" check "$f" >check.out 2>&1 || fail "$f: $(cat check.out)"
	done
	"$JSONTOOL" check j.json >check.out 2>&1 || fail "j.json: $(cat check.out)"
	grep -q 'exit status' err || fail "no report"
	grep -q 'sampler' err || fail "truncated report"
}

jget() {
	j_v=$("$JSONTOOL" get j.json "$1" 2>jsontool.err) || fail "jsontool get $1: $(cat jsontool.err)"
}

# truth_j: the simulator's exact energy of device 0 over its reads, in J.
truth_j() {
	awk '$1 == "device" && $2 == "index=0" {
		for (f = 3; f <= NF; f++) if ($f ~ /^energy_mj=/) { sub(/^energy_mj=/, "", $f); print $f / 1000 } }' truth
}

# counter_vs_truth WHAT: device 0's energy came from its counter and is
# within energy_tolerance of the simulator's truth.
counter_vs_truth() {
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" counter energy_method
	t=$(truth_j)
	tol=$(energy_tolerance "$t")
	csv_get s.csv energy_j scope=device device=0
	note "energy $csv_v J, truth $t J"
	assert_near "$csv_v" "$t" "$tol" "$1"
}

# valid_window SOURCE: from device 0's rows of ./t.csv, the first and the
# last reading that read SOURCE (counter or power), in $v_from and $v_to (s
# on the timeline's clock), and the first and last reading tried, lost
# ones too, in $v_first and $v_last.  A power reading is one with power_w.
# The timeline's energy_j is the counter's energy since its first reading,
# so that reading is the one before the first row with energy_j.
valid_window() {
	v_src=$1
	set -- $(awk -F, -v src="$v_src" 'NR > 1 && $4 == 0 {
		if (first == "") first = $3
		last = $3
		if (src == "power" && $7 != "") { if (from == "") from = $3; to = $3 }
		if (src == "counter" && $8 != "") { if (from == "") from = prev; to = $3 }
		if ($6 != "lost") prev = $3 }
	    END { print first, last, from, to }' t.csv)
	v_first=$1 v_last=$2 v_from=$3 v_to=$4
	assert_num "$v_from" "the first valid $v_src reading in t.csv"
}

# window_check SOURCE: device 0's window (time_s) runs from the first to the
# last valid reading of SOURCE in the timeline; it is within one gap of the
# simulator's own first..last reading; lost_s is the time before and after
# it (when nothing was lost between); the P-states' times add up to the
# window and their shares to 1, and no P-state row is empty.
window_check() {
	valid_window "$1"
	gap_bound
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	want=$(calc "$v_to - $v_from")
	note "window_s $w, timeline's valid $1 readings $v_from .. $v_to s, tried $v_first .. $v_last s"
	assert_near "$w" "$want" 0.000002 "window_s: first to last valid $1 reading"
	tw=$(awk '$1 == "device" && $2 == "index=0" { for (f = 3; f <= NF; f++) {
	    split($f, kv, "="); v[kv[1]] = kv[2] } print (v["last_ns"] - v["first_ns"]) / 1e9 }' truth)
	assert_le "$w" "$(calc "$tw + 0.000002")" "window_s within the simulator's read window"
	jget '.runs[0].devices[0].window_s'
	assert_near "$j_v" "$w" 0.000001 "window_s in the JSON"
	p_t=0 p_s=0 p_n=0
	for p in P0 P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11 P12 P13 P14 P15 unknown; do
		[ "$("$CSVTOOL" count s.csv scope=pstate device=0 pstate=$p)" -gt 0 ] || continue
		csv_get s.csv time_s scope=pstate device=0 pstate=$p
		p_t=$(calc "$p_t + $csv_v")
		csv_get s.csv time_share scope=pstate device=0 pstate=$p
		p_s=$(calc "$p_s + $csv_v")
		p_n=$((p_n + 1))
	done
	assert_ge "$p_n" 1 "P-state rows"
	assert_near "$p_t" "$w" "$(calc "0.000001 * ($p_n + 1)")" "P-state times add up to the window"
	assert_near "$p_s" 1 "$(calc "0.000001 * ($p_n + 1)")" "P-state shares add up to 1"
}

# partial_agrees WANT: device 0's energy is partial (WANT true) or not
# (false) alike in the JSON, the CSV, the --max-energy gate of the run and
# joulestat merge of its summary.
partial_agrees() {
	jget '.runs[0].devices[0].partial'
	assert_eq "$j_v" "$1" "partial in the JSON"
	csv_get s.csv partial scope=device device=0
	assert_eq "$csv_v" "$([ "$1" = true ] && echo 1 || echo 0)" "partial in the CSV"
	csv_get s.csv gate_verdict scope=gate gate=--max-energy
	assert_eq "$csv_v" "$([ "$1" = true ] && echo fail || echo pass)" \
	    "--max-energy on that device (--gate-partial=fail)"
	"$JOULESTAT" merge --json=m.json s.csv >/dev/null 2>merge.err || fail "merge: $(cat merge.err)"
	"$JSONTOOL" get m.json '.totals.devices_partly_measured' >v || fail "no devices_partly_measured"
	assert_eq "$(cat v)" "$([ "$1" = true ] && echo 1 || echo 0)" "merge: devices_partly_measured"
}

# energy_tolerance T: 0.5% of T, plus what the simulator's window has beyond
# joulestat's at the scenarios' constant 200 W: the truth starts at the
# probe's first reading, joulestat's window at its own first one, later by
# a few ms, or by tens of ms under valgrind.
energy_tolerance() {
	tw=$(awk '$1 == "device" && $2 == "index=0" { for (f = 3; f <= NF; f++) {
	    split($f, kv, "="); v[kv[1]] = kv[2] } print (v["last_ns"] - v["first_ns"]) / 1e9 }' truth)
	csv_get s.csv time_s scope=device device=0
	calc "$1 * 0.005 + ($tw - $csv_v) * 200"
}

# ---- the GPU lost -------------------------------------------------------------

# Lost at 500 ms for good, in a 2 s run: the readings after it are counted
# as lost, the time they left without readings is the rest of the run
# (about 1.5 s), the device is marked gone, the status is kept.
test_lost_for_good() {
	js_fault fault-lost-end.scn 2s 7 -i 100
	csv_get s.csv lost_readings scope=device device=0
	note "lost_readings $csv_v"
	assert_ge "$csv_v" 5 "lost_readings (1.5 s lost at -i 100)"
	csv_get s.csv lost_s scope=device device=0
	note "lost_s $csv_v"
	assert_ge "$csv_v" 1.0 "lost_s (lost from 0.5 s of a 2 s run)"
	jget '.runs[0].devices[0].gone'
	assert_eq "$j_v" true "gone (the GPU never answered again)"
	assert_match err 'lost readings'
	assert_ge "$("$CSVTOOL" count t.csv status=lost)" 5 "lost rows in the timeline"
}

# Lost from time 0: the device cannot even be opened.  It is kept (it may
# come back) with a note, every reading of it is lost, its energy is
# unknown, not 0, and the run completes with the status.
test_lost_from_start() {
	gpu_block lost.scn
	echo 'lost 0 86400000' >>lost.scn
	js_fault "$PWD/lost.scn" 500ms 7
	assert_match err 'note: did not answer at start \(GPU is lost\): kept, and tried again'
	assert_eq "$("$CSVTOOL" count s.csv scope=device)" 1 "device rows"
	csv_get s.csv energy_j scope=device device=0
	assert_eq "$csv_v" "" "energy_j of a GPU never read"
	csv_get s.csv lost_readings scope=device device=0
	assert_ge "$csv_v" 2 "lost_readings (at least the first and the last)"
	csv_get s.csv lost_s scope=device device=0
	assert_ge "$csv_v" 0.4 "lost_s: the whole run"
	assert_match err '^ +energy +unknown'
}

# ---- NOT_SUPPORTED ------------------------------------------------------------

# Every reading call answers NOT_SUPPORTED; the device is still found.
# Energy, power and the rest are unknown: "unknown" in the report, empty in
# the CSV, null in the JSON, never 0.
test_reads_not_supported() {
	js_fault fault-notsupported.scn 500ms 4
	assert_match err '^ +energy +unknown'
	assert_match err '^ +average power +unknown, peak unknown'
	for k in energy_j energy_method avg_power_w peak_power_w idle_power_w energy_above_idle_j \
	    workload_energy_j energy_counter_j energy_readings_j energy_driver_samples_j; do
		csv_get s.csv "$k" scope=device device=0
		assert_eq "$csv_v" "" "$k on the device row"
	done
	for k in energy_j avg_power_w peak_power_w idle_power_w energy_above_idle_j attribution \
	    other_processes throttled_power_s power_kind; do
		jget ".runs[0].devices[0].$k"
		assert_eq "$j_v" null "$k in the JSON"
	done
	# No timeline value is a made-up number.
	n=$(awk -F, 'NR > 1 && ($7 != "" || $8 != "" || $10 != "")' t.csv | wc -l)
	assert_eq "$n" 0 "timeline rows with power, energy or pstate"
	assert_no_match err '(energy|power) +0(\.0+)? '
}

# Even the calls that count and name devices answer NOT_SUPPORTED: one line
# naming the call, no device, the run and its status intact.
test_all_not_supported() {
	for c in nvmlDeviceGetCount_v2 nvmlDeviceGetCount nvmlDeviceGetHandleByIndex_v2 \
	    nvmlDeviceGetHandleByIndex nvmlDeviceGetName nvmlDeviceGetUUID nvmlDeviceGetIndex \
	    nvmlDeviceGetPciInfo_v3; do
		echo "notsupported $c"
	done >ns.scn
	grep '^notsupported' "$SCN/fault-notsupported.scn" >>ns.scn
	gpu_block ns.scn
	js_fault "$PWD/ns.scn" 300ms 4
	assert_match err '^ *nvml: not available: nvmlDeviceGetCount(_v2)?: Not Supported$'
	assert_eq "$("$CSVTOOL" count s.csv scope=device)" 0 "device rows"
	jget '.runs[0].devices'
	assert_eq "$j_v" '[]' devices
}

# ---- a call that hangs for 3 s ------------------------------------------------

# Policy (HACKING.md, "Measurement rules", Sampling: one loop, no thread
# per call): a call that hangs holds the loop for as long as it hangs.
# The loop then resumes on the
# next deadline: the deadlines that passed are counted as missed, never
# caught up, the next reading is marked late in the timeline, and the run
# completes.  Here the workload (4.5 s) outlives the 3 s hang.
test_hang_mid_run() {
	js_fault fault-hang.scn 4500ms 4 -i 100
	csv_get s.csv missed_ticks scope=run
	note "missed_ticks $csv_v after a 3 s call at -i 100"
	assert_ge "$csv_v" 20 "missed_ticks (a 3 s call at -i 100)"
	assert_ge "$("$CSVTOOL" count t.csv status=late)" 1 "late rows in the timeline"
	assert_match err 'sampler: .* [1-9][0-9]* missed'
	t=$(truth_j)
	tol=$(energy_tolerance "$t")
	csv_get s.csv energy_j scope=device device=0
	assert_near "$csv_v" "$t" "$tol" "energy vs truth (0.5% + the window difference)"
}

# The workload (1 s) ends while the call hangs (from about 0.4 to 3.4 s):
# the run still completes with its status and the deadlines the hang
# swallowed are counted as missed, as mid-run.  The loop only sees the
# workload's end when the call returns, so the wall time runs to the end
# of the hang (the man page's policy), and the report says how long a
# reading held the sampler.
test_hang_at_end() {
	js_fault fault-hang.scn 1s 4 -i 100
	csv_get s.csv missed_ticks scope=run
	note "missed_ticks $csv_v, the workload ended during a 3 s call"
	m=$csv_v
	csv_get s.csv wall_s scope=run
	note "wall_s $csv_v for a 1 s workload"
	assert_ge "$m" 20 "missed_ticks (a 3 s call at -i 100, the workload ending inside it)"
	assert_ge "$csv_v" 1 "wall_s of a 1 s workload"
	assert_le "$csv_v" 8 "wall_s: the workload's end seen when the hang is over"
	assert_match err 'a device reading held the sampler for [0-9.]+ s'
}

# Timeline rows carry the time of their reading, taken when its calls are
# in: a reading taken after a 3 s hang must not be stamped at the hang's
# start.  At a constant 200 W, two rows 100 ms apart would then imply
# some 6,000 W.  Stamped right, the energy between two rows can still have
# run for up to one reading longer than their stamps say (the counter is
# read first, the stamp taken last, and a busy machine can deschedule
# joulestat in between), and a reading here takes less than the 100 ms
# interval: twice the true power bounds it.
test_hang_timeline_stamps() {
	js_fault fault-hang.scn 4500ms 4 -i 100
	awk -F, 'NR > 1 && $8 != "" {
		if (n++ && $3 > t) { p = ($8 - e) / ($3 - t); if (p > max) max = p }
		t = $3; e = $8 } END { printf "%.1f\n", max }' t.csv >maxp
	note "largest power implied by two timeline rows: $(cat maxp) W (true: 200 W)"
	assert_le "$(cat maxp)" 400 "power implied by the timeline's energy and t_s"
}

# ---- counter resets -----------------------------------------------------------

# Three resets at a constant 200 W, the third while the GPU is lost (the
# counter is lower when it answers again): three resets counted, energy
# still by counter and within 0.5% of the truth.
test_counter_resets() {
	js_fault fault-resets.scn 2s 0 -i 100
	jget '.runs[0].devices[0].counter_resets'
	assert_eq "$j_v" 3 counter_resets
	counter_vs_truth "energy vs truth (0.5% + the window difference)"
	assert_match err 'counter resets +3'
}

# ---- thousands of foreign pids ------------------------------------------------

# 3,000 foreign processes appear at 600 ms, each with SM 1%: the lists
# outgrow any small buffer mid-run.  Every entry is read (the foreign peak
# SM is their sum, 3000%), the workload's own processes are still found,
# and the report says the device was shared.
test_procs_3000() {
	js_fault fault-procs-3000.scn 1500ms 0 -i 100
	read -r wl <w || fail "no pid file"
	jget '.runs[0].devices[0].other_processes.peak_sm_pct'
	assert_eq "$j_v" 3000 "foreign peak SM% (3,000 pids at 1%)"
	assert_match err 'other processes +SM .*not the workload.s alone'
	n=$("$CSVTOOL" count s.csv scope=process pid="$wl")
	assert_eq "$n" 1 "process rows of the workload's js-work ($wl)"
	n=$("$CSVTOOL" count s.csv scope=process)
	assert_le "$n" 2 "process rows (the shell and js-work; no foreign pid)"
	assert_no_match s.csv ',50[0-9]{5},'
}

# ---- one call fails, the others answer -----------------------------------------

# power_fails FILE FROM TO: the GPU block, with only the power readings
# (nvmlDeviceGetPowerUsage and the POWER_INSTANT field) answering
# GPU_IS_LOST in [FROM, TO) ms, as a failing power sensor can.
power_fails() {
	gpu_block "$1"
	cat >>"$1" <<-EOF
	fail nvmlDeviceGetFieldValues 15 $2 $3
	fail nvmlDeviceGetPowerUsage 15 $2 $3
	EOF
}

# The counter, the P-state and the clocks of a reading without power are
# kept: the energy is the counter's, exact; the GPU was in P0 throughout,
# so the P0 row holds the whole window and no time is unknown or lost.
power_fails_check() {
	counter_vs_truth "energy vs truth (0.5% + the window difference)"
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv time_s scope=pstate device=0 pstate=P0
	assert_near "$csv_v" "$w" 0.000002 "P0 time_s: the whole window"
	assert_eq "$("$CSVTOOL" count s.csv scope=pstate pstate=unknown)" 0 "unknown P-state rows"
	csv_get s.csv measured_s scope=device device=0
	assert_near "$csv_v" "$w" 0.000002 "measured_s: the whole window"
	for k in lost_readings lost_s; do
		csv_get s.csv "$k" scope=device device=0
		assert_near "$csv_v" 0 0 "$k"
	done
	csv_get s.csv peak_power_w scope=device device=0
	assert_eq "$csv_v" 200.000 "peak_power_w (power was read outside the failure)"
	# The counter read throughout: the window is every reading's.
	window_check counter
	assert_near "$w" "$(calc "$v_last - $v_first")" 0.000002 "window_s: the whole run"
	partial_agrees false
}

test_power_fails_mid() {
	power_fails pf.scn 300 700
	js_fault "$PWD/pf.scn" 1s 0 -i 100 --min-pstate-share=P0:80 --max-energy=1000000
	power_fails_check
	assert_match err 'P0 share of time, device 0 .* pass'
}

# A GPU that does not report its memory clock (NOT_SUPPORTED) still gives
# its SM and graphics clocks: each clock is known or unknown on its own, in
# the timeline, the summary and the text.
test_one_clock_absent() {
	gpu_block mc.scn
	sed -i 's/^phase at=0 power=200 pstate=0$/phase at=0 power=200 pstate=0 gfx=1755 sm=1755/' mc.scn
	echo 'clock_absent mem' >>mc.scn
	js_fault "$PWD/mc.scn" 500ms 0 -i 100
	csv_get t.csv sm_mhz status=ok
	assert_eq "$csv_v" 1755 "timeline sm_mhz"
	csv_get t.csv gfx_mhz status=ok
	assert_eq "$csv_v" 1755 "timeline gfx_mhz"
	csv_get t.csv mem_mhz status=ok
	assert_eq "$csv_v" "" "timeline mem_mhz (not reported: empty)"
	csv_get s.csv avg_sm_mhz scope=pstate device=0 pstate=P0
	assert_near "$csv_v" 1755 0.5 "P0's SM clock"
	csv_get s.csv avg_mem_mhz scope=pstate device=0 pstate=P0
	assert_eq "$csv_v" "" "P0's memory clock (unknown)"
	assert_match err '^ +P0 .* 1755/1755/unknown$'
}

# Failing from the start: at probe too.  A transient error there does not
# mean "does not measure it": power is kept, noted, and read once it answers.
test_power_fails_at_start() {
	power_fails pf.scn 0 400
	js_fault "$PWD/pf.scn" 1s 0 -i 100 --max-energy=1000000
	power_fails_check
	assert_match err 'note: failed at start: power \(GPU is lost\); tried again on every reading'
	csv_get s.csv energy_readings_j scope=device device=0
	assert_num "$csv_v" energy_readings_j
}

# An H100 whose instantaneous power field times out during the probe only:
# the field is kept and read on, not swapped for nvmlDeviceGetPowerUsage,
# a 1 s trailing average on Hopper, for the whole run (before: power kind
# average-1s, "power readings are 1 s trailing averages").
test_power_field_timeout_at_probe() {
	gpu_block pt.scn
	cat >>pt.scn <<-EOF
	pciid 0x233010DE 0x16C110DE
	cuda_cc 9.0
	power average1s
	fail nvmlDeviceGetFieldValues 10 0 50
	EOF
	js_fault "$PWD/pt.scn" 1s 0 -i 100
	assert_rc 0
	csv_get s.csv power_kind scope=device device=0
	assert_eq "$csv_v" instant "power kind"
	assert_no_match err '1 s trailing averages'
	assert_match err 'note: failed at start: power \(Timeout\); tried again on every reading'
}

# Failing to the end (from 0.6 s, leaving room for a slow start to read
# power first): the counter still covers everything; the integral of the
# readings covers less, and says so instead of a comparison.
test_power_fails_to_end() {
	power_fails pf.scn 600 86400000
	js_fault "$PWD/pf.scn" 1s 0 -i 100 --max-energy=1000000
	power_fails_check
	assert_match err 'integrated from readings, over [0-9.]+ s of [0-9.]+ s only'
}

# A GPU lost at probe for 0.6 s (lost 0 600) is kept and read once it
# answers: the energy is the counter's over its good readings; the window
# runs from the first of them to the last, so the 0.6 s before it are lost
# time (at the start: no reading before it) outside the window, not an
# unknown P-state; the energy is partial, and a gate and merge say so.
test_gpu_lost_at_probe() {
	gpu_block lp.scn
	echo 'lost 0 600' >>lp.scn
	js_fault "$PWD/lp.scn" 1500ms 7 -i 100 --max-energy=1000000
	assert_match err 'note: did not answer at start \(GPU is lost\): kept, and tried again'
	window_check counter
	t=$(truth_j)
	tol=$(calc "$t * 0.005 + ($tw - $w) * 200")
	csv_get s.csv energy_j scope=device device=0
	note "energy $csv_v J over the good readings, truth $t J"
	assert_near "$csv_v" "$t" "$tol" "energy vs truth over the good readings"
	# The lost start is the time from the first reading (lost) to the first
	# good one, as the timeline stamped them.
	want=$(calc "$v_from - $v_first")
	csv_get s.csv lost_s scope=device device=0
	note "lost_s $csv_v, timeline $want s (lost at probe until 0.6 s, h = $h s)"
	assert_near "$csv_v" "$want" 0.000002 "lost_s: the lost start counts"
	assert_le "$csv_v" "$(calc "0.6 + $h")" "lost_s"
	assert_ge "$csv_v" 0.5 "lost_s"
	csv_get s.csv measured_s scope=device device=0
	assert_near "$csv_v" "$w" 0.000002 "measured_s: the window, spanned by the counter"
	assert_eq "$("$CSVTOOL" count s.csv scope=pstate pstate=unknown)" 0 \
	    "unknown P-state rows (the lost start is outside the window)"
	csv_get s.csv time_share scope=pstate device=0 pstate=P0
	assert_near "$csv_v" 1 0.000001 "P0's share of the window"
	assert_match err '^ +window +[0-9.]+ s of [0-9.]+ s, from the first valid counter reading'
	partial_agrees true
}

# The same lost start, and the P-state unreadable from 1.0 to 1.4 s while
# the rest answers: inside the window that time is the unknown state's, by
# the split rule on the timeline's readings (half an interval at a change),
# and the lost start is still nobody's.
test_pstate_unknown_inside() {
	gpu_block pu.scn
	echo 'lost 0 600' >>pu.scn
	echo 'fail nvmlDeviceGetPerformanceState 15 1000 1400' >>pu.scn
	js_fault "$PWD/pu.scn" 2s 7 -i 100 --max-energy=1000000
	window_check counter
	set -- $(awk -F, -v from="$v_from" -v to="$v_to" 'NR > 1 && $4 == 0 && $6 != "lost" &&
	    $3 >= from && $3 <= to {
		if (n++) { dt = $3 - t; if (p == "" && $10 == "") u += dt;
		    else if (p == "" || $10 == "") { u += dt / 2; m++ } }
		t = $3; p = $10 }
	    END { printf "%.6f %d\n", u, m + n }' t.csv)
	note "unknown P-state by the timeline: $1 s (from 0.4 s without a P-state)"
	assert_ge "$1" 0.2 "the timeline's unknown time"
	csv_get s.csv time_s scope=pstate device=0 pstate=unknown
	assert_near "$csv_v" "$1" "$(calc "0.000002 * $2")" "unknown P-state: the time inside the window"
	csv_get s.csv lost_s scope=device device=0
	assert_near "$csv_v" "$(calc "$v_from - $v_first")" 0.000002 "lost_s: the lost start alone"
	partial_agrees true
}

# counterless FILE: a Pascal GPU (P100, PCI id 0x15F8) without an energy
# counter or driver samples: 100 W to 1 s, 250 W to 2 s, then 150 W.
counterless() {
	cat >"$1" <<-'EOF'
	device 0
	name Tesla P100-PCIE-16GB
	uuid GPU-00000000-1111-2222-3333-444444444455
	busid 00000000:01:00.0
	pciid 0x15F810DE 0x118F10DE
	energy_counter no
	sample_ms none
	phase at=0 dur=1000 power=100 pstate=0 sm=1300
	phase dur=1000 power=250
	phase power=150
	EOF
}

# Lost from 800 to 1600 ms on a GPU without a counter: the energy of the
# gap is bridged by interpolating power between the readings around it,
# and the report says so.  Its error is at most the gap times the spread
# of power inside it (100 to 250 W).  Its readings are instantaneous, by
# its PCI id (no architecture call in the simulated library).
test_counterless_lost_interval() {
	counterless cl.scn
	echo 'lost 800 1600' >>cl.scn
	js_fault "$PWD/cl.scn" 2500ms 0 -i 100
	assert_match err 'bridged by interpolating power'
	assert_no_match err 'trailing averages'
	csv_get s.csv power_kind scope=device device=0
	assert_eq "$csv_v" instant "power_kind of a P100"
	gap_bound
	t=$(truth_j)
	csv_get s.csv energy_j scope=device device=0
	e=$csv_v
	tol=$(calc "(0.8 + 2 * $h) * 150 + $t * 0.02")
	note "energy $e J, truth $t J (bridged gap of 0.8 s + 2h, h = $h s)"
	assert_near "$e" "$t" "$tol" "energy vs truth, the bridge within gap x (250 - 100) W"
	csv_get s.csv measured_s scope=device device=0
	m=$csv_v
	csv_get s.csv time_s scope=device device=0
	assert_near "$m" "$csv_v" 0.000002 "measured_s: the bridge covers the gap"
	csv_get s.csv lost_s scope=device device=0
	assert_ge "$csv_v" 0.7 "lost_s (no power readings from 0.8 to 1.6 s)"
}

# Power failing to the end on a GPU without a counter: the energy covers
# only the readings with power, says so, and is never above the truth.
test_counterless_power_to_end() {
	counterless cl.scn
	cat >>cl.scn <<-'EOF'
	fail nvmlDeviceGetFieldValues 15 1500 86400000
	fail nvmlDeviceGetPowerUsage 15 1500 86400000
	EOF
	js_fault "$PWD/cl.scn" 2500ms 7 -i 100 --max-energy=1000000
	t=$(truth_j)
	csv_get s.csv energy_j scope=device device=0
	note "energy $csv_v J of truth $t J"
	assert_le "$csv_v" "$t" "energy: a lower bound"
	# The P-state is read to the end, but the window ends with power.
	window_check power
	csv_get s.csv lost_s scope=device device=0
	assert_ge "$csv_v" 0.8 "lost_s (no power after 1.5 s)"
	assert_near "$csv_v" "$(calc "$v_last - $v_to")" 0.000002 "lost_s: the time after the window"
	assert_eq "$("$CSVTOOL" count s.csv scope=pstate pstate=unknown)" 0 "unknown P-state rows"
	assert_match err 'so the energy is a lower bound for the run'
	partial_agrees true
}

# Power failing from the start on a GPU without a counter: the window
# begins with the first power reading; the time before it is lost.
test_counterless_power_from_start() {
	counterless cl.scn
	cat >>cl.scn <<-'EOF'
	fail nvmlDeviceGetFieldValues 15 0 600
	fail nvmlDeviceGetPowerUsage 15 0 600
	EOF
	js_fault "$PWD/cl.scn" 2s 7 -i 100 --max-energy=1000000
	window_check power
	csv_get s.csv lost_s scope=device device=0
	assert_near "$csv_v" "$(calc "$v_from - $v_first")" 0.000002 "lost_s: the time before the window"
	# The first reading comes later under a checker: less of the 0.6 s is seen.
	assert_ge "$csv_v" "$([ -z "${WRAP:-}" ] && echo 0.5 || echo 0.4)" "lost_s (no power before 0.6 s)"
	csv_get s.csv measured_s scope=device device=0
	assert_near "$csv_v" "$w" 0.000002 "measured_s: the window"
	assert_eq "$("$CSVTOOL" count s.csv scope=pstate pstate=unknown)" 0 "unknown P-state rows"
	partial_agrees true
}

# A run shorter than one interval (-i 1000) and than the driver's own
# sampling (sample_ms 500): read at its start and end, its energy is the
# counter's delta, the report says how short it was, and lateness without
# a tick is unknown, not 0.
test_short_run() {
	gpu_block sr.scn
	echo 'sample_ms 500' >>sr.scn
	js_fault "$PWD/sr.scn" 0ms 0 -i 1000
	csv_get s.csv ticks scope=run
	assert_eq "$csv_v" 0 ticks
	counter_vs_truth "energy vs truth"
	assert_match err 'short run +[0-9.]+ s measured, [0-9.]+ of the 500\.0 ms'
	jget '.runs[0].devices[0].short'
	assert_eq "$j_v" true "short in the JSON"
	jget '.runs[0].devices[0].driver_sampling_s'
	assert_near "$j_v" 0.5 0.000001 "driver_sampling_s: the scenario's sample_ms"
	assert_match err 'lateness unknown \(no ticks\)'
	for k in late_max_ms late_p50_ms late_p99_ms; do
		csv_get s.csv "$k" scope=run
		assert_eq "$csv_v" "" "$k without ticks"
		jget ".runs[0].sampler.$k"
		assert_eq "$j_v" null "$k without ticks in the JSON"
	done
}

# -r 2 with the P-state unreadable from 2 s on, after the first run (0.3 s)
# and before the second (--cooldown=3 after it): the second run knows no
# P-state, so the P0 statistics are the first run's alone, not a mean
# with 0 s.
test_series_without_pstates() {
	gpu_block ps.scn
	echo 'fail nvmlDeviceGetPerformanceState 15 2000 86400000' >>ps.scn
	js_fault "$PWD/ps.scn" 300ms 0 -i 100 -r 2 --cooldown=3
	csv_get s.csv time_s scope=pstate run=1 device=0 pstate=P0
	p0=$csv_v
	assert_eq "$("$CSVTOOL" count s.csv scope=pstate run=2 pstate=P0)" 0 "P0 rows of run 2"
	csv_get s.csv time_s scope=pstate run=mean device=0 pstate=P0
	assert_near "$csv_v" "$p0" 0.000002 "mean P0 time: the first run's"
	assert_match err 'time in P0 .*\(1 of 2 runs\)'
}

# The energy counter fails from 0.7 to 1.5 s while power and the P-state
# answer, across a change from P0 at 250 W to P8 at 60 W at 1.0 s.  The
# delta that catches up holds both states' energy and is shared by what
# the power readings show: each state's energy is the truth's within the
# split rule's bound (before: P8 178.0 J against a truth of 60.1 J, as the
# driver's samples gave the states the stretch's energy and the delta gave
# it again: the states held 424 J of a 310 J device).
# counter_fails FILE [LINE]: P0 at 250 W for 1 s, then P8 at 60 W, the
# counter's reads failing from 0.7 to 1.5 s, and LINE; the run at 50 ms.
# The truth's window starts at the first call of the first reading, the
# run's at its end: es is that time (d, lib.sh's window) at 250 W.
counter_fails() {
	cat >"$1" <<-'EOF'
	device 0
	name Test GPU
	uuid GPU-00000000-1111-2222-3333-444444444444
	busid 00000000:01:00.0
	pciid 0x233010DE 0x16C110DE
	energy_counter yes
	power instant
	phase at=0 dur=1000 power=250 pstate=0
	phase power=60 pstate=8
	fail nvmlDeviceGetTotalEnergyConsumption 999 700 1500
	EOF
	[ -z "${2:-}" ] || echo "$2" >>"$1"
	js_fault "$PWD/$1" 2s 0 -i 50
	window 0
	es=$(calc "($d + 0.002) * 250")
}

# states_within_bound: P0's and P8's energy against the truth, within their
# bounds (and es).
states_within_bound() {
	for p in 0 8; do
		truth pstate energy_mj index=0 pstate=$p
		want=$(calc "$t_v / 1000")
		csv_get s.csv energy_j scope=pstate device=0 pstate=P$p
		got=$csv_v
		csv_get s.csv energy_err_j scope=pstate device=0 pstate=P$p
		note "P$p: $got J ± $csv_v (+ $es) vs truth $want J"
		off=$(calc "($got - $want) * ($got - $want)")
		assert_le "$off" "$(calc "($csv_v + $es + 0.5) ^ 2")" "P$p energy within its bound"
	done
}

test_counter_fails_across_state() {
	counter_fails cf.scn
	states_within_bound
	for p in 0 8; do
		truth pstate energy_mj index=0 pstate=$p
		csv_get s.csv energy_j scope=pstate device=0 pstate=P$p
		off=$(calc "($csv_v - $t_v / 1000) ^ 2")
		assert_le "$off" "$(calc "(10 + $es) ^ 2")" "P$p energy within 10 J"
	done
}

# The same, with the counter restarting from 0 at 1.2 s, while its reads
# fail: no delta brings the held 0.7 s, so they take their power
# readings' energy, as the reset interval does (before: device 196.2 J
# ± 0.004 against a truth of 310.2, the held stretch left out).
test_counter_reset_while_failing() {
	counter_fails cr.scn "reset 1200"
	truth device energy_mj index=0
	want=$(calc "$t_v / 1000")
	csv_get s.csv energy_j scope=device device=0
	got=$csv_v
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" counter "energy method"
	csv_get s.csv energy_err_j scope=device device=0
	note "device: $got J ± $csv_v (+ $es) vs truth $want J"
	off=$(calc "($got - $want) * ($got - $want)")
	assert_le "$off" "$(calc "($csv_v + $es + 0.5) ^ 2")" "device energy within its bound"
	assert_le "$off" "$(calc "(10 + $es) ^ 2")" "device energy within 10 J"
	states_within_bound
	assert_match err 'counter resets +1'
}

t_run "GPU lost for good mid-run: lost counted, lost_s, gone, status" test_lost_for_good
t_run "GPU lost from the start: kept, noted, unknown, status" test_lost_from_start
t_run "every reading call NOT_SUPPORTED: unknown, never 0" test_reads_not_supported
t_run "every call NOT_SUPPORTED: nvml not available, status" test_all_not_supported
t_run "a 3 s call mid-run: missed ticks counted, late row, energy" test_hang_mid_run
t_run "the workload ends during a 3 s call: missed counted, wall" test_hang_at_end
t_run "timeline rows are stamped when read, even after a 3 s call" test_hang_timeline_stamps
t_run "three counter resets, one while lost: counted, energy exact" test_counter_resets
t_run "3,000 foreign pids appear mid-run: all read, tree found" test_procs_3000
t_run "power fails mid-run: counter, P-state, window kept" test_power_fails_mid
t_run "power fails at probe: kept, noted, read later" test_power_fails_at_start
t_run "the power field times out at probe: still the field, instantaneous" \
    test_power_field_timeout_at_probe
t_run "a clock the GPU does not report leaves the others" test_one_clock_absent
t_run "power fails to the end: counter exact, readings' integral marked" test_power_fails_to_end
t_run "GPU lost at probe 0.6 s: window from the first good reading, partial" test_gpu_lost_at_probe
t_run "P-state unreadable inside the window: unknown there only" test_pstate_unknown_inside
t_run "no counter, lost interval: bridged, said so, within bound" test_counterless_lost_interval
t_run "no counter, power fails to the end: lower bound, window, partial" test_counterless_power_to_end
t_run "no counter, power fails from the start: window, lost start, partial" test_counterless_power_from_start
t_run "a run shorter than one interval: read at both ends, said short" test_short_run
t_run "-r: a run without P-state readings is not 0 s in P0" test_series_without_pstates
t_run "the counter fails across a P-state change: each state's energy" test_counter_fails_across_state
t_run "the counter resets while its reads fail: the held time from power" \
    test_counter_reset_while_failing
t_done
