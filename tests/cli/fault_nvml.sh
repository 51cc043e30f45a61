#!/bin/bash
# NVML faults from the simulator (tests/sim/README):
# the GPU lost for good mid-run or from the start, every call NOT_SUPPORTED,
# a call hanging for 3 s, repeated counter resets (one inside a lost
# window), and the per-process lists growing to 3,000 pids.  Each run must
# complete with the workload's status, and unknown figures stay unknown.
# Scenarios: tests/sim/scenarios/fault-*.scn, and two made by the tests.
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

# Policy (DESIGN: one sampling loop, no thread per call): a call that hangs
# holds the loop for as long as it hangs.  The loop then resumes on the
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

# Timeline rows carry the time of their reading: at a constant 200 W the
# energy column cannot grow faster than 200 W between two rows (a reading
# taken after a 3 s hang must not be stamped at the hang's start).
test_hang_timeline_stamps() {
	js_fault fault-hang.scn 4500ms 4 -i 100
	awk -F, 'NR > 1 && $8 != "" {
		if (n++ && $3 > t) { p = ($8 - e) / ($3 - t); if (p > max) max = p }
		t = $3; e = $8 } END { printf "%.1f\n", max }' t.csv >maxp
	note "largest power implied by two timeline rows: $(cat maxp) W (true: 200 W)"
	assert_le "$(cat maxp)" 220 "power implied by the timeline's energy and t_s"
}

# ---- counter resets -----------------------------------------------------------

# Three resets at a constant 200 W, the third while the GPU is lost (the
# counter is lower when it answers again): three resets counted, energy
# still by counter and within 0.5% of the truth.
test_counter_resets() {
	js_fault fault-resets.scn 2s 0 -i 100
	jget '.runs[0].devices[0].counter_resets'
	assert_eq "$j_v" 3 counter_resets
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" counter energy_method
	t=$(truth_j)
	tol=$(energy_tolerance "$t")
	csv_get s.csv energy_j scope=device device=0
	note "energy $csv_v J, truth $t J"
	assert_near "$csv_v" "$t" "$tol" "energy vs truth (0.5% + the window difference)"
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

t_run "GPU lost for good mid-run: lost counted, lost_s, gone, status" test_lost_for_good
t_run "GPU lost from the start: kept, noted, unknown, status" test_lost_from_start
t_run "every reading call NOT_SUPPORTED: unknown, never 0" test_reads_not_supported
t_run "every call NOT_SUPPORTED: nvml not available, status" test_all_not_supported
t_run "a 3 s call mid-run: missed ticks counted, late row, energy" test_hang_mid_run
t_run "the workload ends during a 3 s call: missed counted, wall" test_hang_at_end
t_run "timeline rows are stamped when read, even after a 3 s call" test_hang_timeline_stamps
t_run "three counter resets, one while lost: counted, energy exact" test_counter_resets
t_run "3,000 foreign pids appear mid-run: all read, tree found" test_procs_3000
t_done
