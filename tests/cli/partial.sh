#!/bin/bash
# A lost GPU never makes a gate pass (joulestat(1), --gate-partial): the
# average power and the energy above idle cover only the measured time,
# gates whose figure covers less than the run fail unless
# --gate-partial=measured, and the -r statistics leave such runs out.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

sim() {
	scn=$1
	shift
	NVSIM_SCENARIO=$scn try "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

# fault-lost-end.scn: 200 W, lost from 0.5 s for good.  Before: "average
# power 40.0 W", "energy above idle -320 J", both gates pass, exit 0.
test_lost_gpu_fails_gates() {
	sim "$SCN/fault-lost-end.scn" --csv=s.csv --max-avg-power=150 \
	    --max-energy-above-idle=0 --max-energy=1000 -- "$JS_WORK" sleep 2s
	assert_rc 3
	csv_get s.csv avg_power_w scope=device device=0
	note "average power of a 200 W GPU lost at 0.5 s of 2 s: $csv_v W"
	assert_near "$csv_v" 200 2 "average power over the measured time"
	csv_get s.csv energy_above_idle_j scope=device device=0
	note "energy above idle: $csv_v J"
	assert_near "$csv_v" 0 2 "above idle over the measured time (idle = lowest = 200 W)"
	csv_get s.csv measured_s scope=device device=0
	assert_le "$csv_v" 1.0 "measured_s"
	for g in --max-avg-power --max-energy-above-idle --max-energy; do
		csv_get s.csv gate_verdict scope=gate gate=$g
		assert_eq "$csv_v" fail "$g on a partly measured device"
	done
	assert_match err 'FAIL \(partly measured\)'
	assert_match err 'device time measured: 0\.[0-9]+ s of [0-9.]+ s'
	assert_match err '^ +measured +0\.[0-9]+ s of [0-9.]+ s'
}

test_gate_partial_measured() {
	sim "$SCN/fault-lost-end.scn" -q --gate-partial=measured --max-avg-power=250 \
	    -- "$JS_WORK" sleep 1s
	assert_rc 0
	sim "$SCN/fault-lost-end.scn" --gate-partial=measured --max-avg-power=150 \
	    -- "$JS_WORK" sleep 1s
	assert_rc 3
	assert_match err 'judged on that \(--gate-partial=measured\)'
	assert_match err "average power.* (199|200)\\.[0-9]+ W +FAIL$"
	sim "$SCN/fault-lost-end.scn" --gate-partial=bogus -- sh -c 'touch ran'
	assert_rc 125
	assert_match err "invalid --gate-partial 'bogus'"
	[ ! -e ran ] || fail "the workload ran"
}

# Lost from 1.5 s for good: the first 1 s run is whole, the second is not.
test_repeat_leaves_partial_runs_out() {
	cat >late.scn <<-'SCN'
	device 0
	name Test GPU
	uuid GPU-00000000-1111-2222-3333-444444444455
	busid 00000000:01:00.0
	pciid 0x233010DE 0x16C110DE
	energy_counter yes
	power instant
	phase at=0 power=100 pstate=0
	lost 1500 86400000
	SCN
	sim "$PWD/late.scn" -r 2 --csv=s.csv --max-energy=1000 -- "$JS_WORK" sleep 1s
	assert_rc 3
	csv_get s.csv energy_j scope=device run=1 device=0
	e1=$csv_v
	csv_get s.csv energy_j scope=device run=mean device=0
	assert_near "$csv_v" "$e1" 0.000001 "the mean is that of the whole run only"
	assert_match err 'run 2: device 0 measured [0-9.]+ s of [0-9.]+ s: its energy is not in the statistics'
	assert_match err 'energy, all devices .*FAIL \(partly measured\)'
}

# A rank whose GPU was lost: the merged total says it covers less than the job.
test_merge_inherits_partial() {
	sim "$SCN/fault-lost-end.scn" -q --csv=r0.csv -- "$JS_WORK" sleep 1s
	assert_rc 0
	try "$JOULESTAT" merge r0.csv
	assert_rc 0
	assert_match out 'partly measured +1 device measurement lost time'
	try "$JOULESTAT" merge --json=- r0.csv
	assert_rc 0
	"$JSONTOOL" get out '.totals.devices_partly_measured' >v ||
	    fail "stdout is not the JSON alone, or has no devices_partly_measured"
	assert_eq "$(cat v)" 1 "devices_partly_measured"
}

# A summary written before the partial column (its time_s then ran over
# every reading tried, lost ones included): merge still tells a partial
# device by measured_s below time_s, and a whole one by their agreement.
# Made from new summaries: the column left out, time_s set back to the
# span (measured_s + lost_s when only ends were lost).
# Fields are split with their quotes kept (no row spans lines), and
# csvtool checks the result.
old_summary() {
	awk 'function fields(s,   i, ch, q, cur) {
		n = 0; cur = ""; q = 0
		for (i = 1; i <= length(s); i++) {
			ch = substr(s, i, 1)
			if (ch == "\"") q = !q
			if (ch == "," && !q) { f[++n] = cur; cur = "" } else cur = cur ch
		}
		f[++n] = cur
	}
	{ fields($0) }
	NR == 1 { for (i = 1; i <= n; i++) c[f[i]] = i }
	NR > 1 && f[c["scope"]] ~ /^"?device"?$/ {
		f[c["time_s"]] = sprintf("%.6f", f[c["measured_s"]] + f[c["lost_s"]]) }
	{ out = ""; sep = ""
	  for (i = 1; i <= n; i++) if (i != c["partial"]) { out = out sep f[i]; sep = "," }
	  print out }' "$1" >"$2"
}

test_merge_old_summaries() {
	sim "$SCN/fault-lost-end.scn" -q --csv=lost.csv -- "$JS_WORK" sleep 1s
	assert_rc 0
	sim "$SCN/gate.scn" -q --csv=whole.csv -- "$JS_WORK" sleep 500ms
	assert_rc 0
	for f in lost whole; do
		old_summary "$f.csv" "old-$f.csv"
		"$CSVTOOL" check "old-$f.csv" >/dev/null || fail "old-$f.csv"
		"$CSVTOOL" get "old-$f.csv" partial >/dev/null 2>&1 && fail "old-$f.csv still has partial"
	done
	for f in lost old-lost whole old-whole; do
		try "$JOULESTAT" merge --json=- "$f.csv"
		assert_rc 0
		"$JSONTOOL" get out '.totals.devices_partly_measured' >v || fail "$f: no devices_partly_measured"
		case $f in *lost) want=1 ;; *) want=0 ;; esac
		assert_eq "$(cat v)" "$want" "$f.csv: devices_partly_measured"
	done
}

# No counter, 100 W then 300 W, lost from 0.5 to 1 s and back: the driver's
# samples bridge the stretch as power readings do, so the energy covers the
# whole run and so does measured_s (before: 372 J over "0.901 s measured",
# an average of 413 W against a 300 W peak, partial).
test_lost_and_back_bridged() {
	cat >lb.scn <<-'EOF'
	device 0
	name Test GPU
	uuid GPU-00000000-1111-2222-3333-4444444444b2
	busid 00000000:01:00.0
	pciid 0x233010DE 0x16C110DE
	energy_counter no
	power instant
	phase at=0 dur=400 power=100 pstate=2 gfx=1500 sm=1500 mem=5000 util=50
	phase power=300 pstate=0
	lost 500 1000
	EOF
	sim "$PWD/lb.scn" --csv=s.csv -- "$JS_WORK" sleep 1.5s
	assert_rc 0
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" driver-samples "energy method"
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv measured_s scope=device device=0
	note "measured $csv_v s of $w s"
	assert_near "$csv_v" "$w" 0.001 "measured_s: the bridged window"
	csv_get s.csv partial scope=device device=0
	assert_eq "$csv_v" 0 "partial"
	csv_get s.csv avg_power_w scope=device device=0
	note "average power: $csv_v W"
	assert_le "$csv_v" 300.5 "average power within the power drawn"
	assert_ge "$csv_v" 99.5 "average power within the power drawn"
	assert_match err 'bridged by interpolating power'
}

t_run "a GPU lost mid-run: averages over the measured time, gates fail" test_lost_gpu_fails_gates
t_run "lost and back without a counter: the samples bridge, measured" test_lost_and_back_bridged
t_run "--gate-partial=measured judges what was measured and says so" test_gate_partial_measured
t_run "-r: a partly measured run is not in the energy statistics" test_repeat_leaves_partial_runs_out
t_run "merge: a partly measured device marks the job total" test_merge_inherits_partial
t_run "merge: summaries without the partial column keep their rule" test_merge_old_summaries
t_done
