#!/bin/bash
# --timeline: one CSV row per device per reading, streamed during the run,
# whole rows only even when joulestat is killed (HACKING.md, "The pipeline").
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

sim() {
	scn=$1
	shift
	NVSIM_SCENARIO=$SCN/$scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q "$@"
}

# rows FILE [KEY=VALUE...]: data rows matching.
rows() {
	"$CSVTOOL" count "$@"
}

# About one row per interval per device: 2 s at 100 ms is 20 intervals and
# 21 readings; the last reading at the workload's exit may add one, and a
# loaded machine may miss a few deadlines (they are counted, not caught up).
test_rows_per_device() {
	sim two-gpus.scn -i 100 --timeline=t.csv --csv=s.csv -- "$JS_WORK" sleep 2s
	assert_rc 0
	"$CSVTOOL" check t.csv >/dev/null || fail "t.csv: rows differ in field count"
	csv_get s.csv missed_ticks scope=run
	missed=$csv_v
	for d in 0 1; do
		n=$(rows t.csv device=$d)
		assert_le "$n" 23 "rows of device $d"
		assert_ge "$n" $((19 - missed)) "rows of device $d"
	done
	csv_get t.csv status device=0
	assert_eq "$csv_v" ok "first row's status"
	csv_get t.csv t_s device=0
	assert_near "$csv_v" 0 0.05 "first row's time"
}

# The energy column is cumulative and ends at the summary's energy.
test_energy_cumulative() {
	sim demo.scn -i 100 --timeline=t.csv --csv=s.csv -- "$JS_WORK" sleep 2s
	assert_rc 0
	last=$(awk -F, 'NR > 1 && $7 != "" { e = $8 } END { print e }' t.csv)
	sorted=$(awk -F, 'NR > 1 && $8 != "" { if ($8 + 0 < prev) bad = 1; prev = $8 } END { print bad + 0 }' t.csv)
	assert_eq "$sorted" 0 "energy never goes down"
	csv_get s.csv energy_j scope=device device=0
	assert_near "$last" "$csv_v" 0.000002 "last timeline energy vs summary"
}

test_lost_rows() {
	sim lost.scn -i 100 --timeline=t.csv -- "$JS_WORK" sleep 3s
	assert_rc 0
	n=$(rows t.csv status=lost)
	assert_ge "$n" 15 "lost rows (the GPU is lost for 2 s)"
	csv_get t.csv power_w status=lost
	assert_eq "$csv_v" "" "power of a lost reading"
}

# e2e-slow.scn makes the energy call take 170 ms: readings come late.
test_late_rows() {
	sim e2e-slow.scn -i 100 --timeline=t.csv -- "$JS_WORK" sleep 3s
	assert_rc 0
	assert_ge "$(rows t.csv status=late)" 1 "late rows"
}

# lines_over FILE N: FILE has more than N lines (re-read on every poll).
lines_over() {
	[ "$(wc -l <"$1")" -gt "$2" ]
}

# SIGKILL cannot be caught: whatever was written must still be whole rows.
test_killed_run_parses() {
	NVSIM_SCENARIO=$SCN/demo.scn spawn "$JOULESTAT" --nvml-lib="$SIMLIB" -q -i 20 \
	    --timeline=t.csv -- "$JS_WORK" -p w sleep 30s
	wait_file w
	wpid=$t_file_pid
	t_kill_later TERM "$wpid"
	# Rows go out at least once a second: wait for some, then kill.
	wait_for lines_over t.csv 20
	kill -KILL "$t_pid"
	reap
	kill "$wpid" 2>/dev/null
	"$CSVTOOL" check t.csv >/dev/null || fail "a killed run left a broken row"
	assert_ge "$(rows t.csv)" 20 "rows written before the kill"
}

test_runs_numbered() {
	sim attrib-shared.scn -r 2 -i 100 --timeline=t.csv -- "$JS_WORK" sleep 0.5s
	assert_rc 0
	assert_ge "$(rows t.csv run=1)" 5 "rows of run 1"
	assert_ge "$(rows t.csv run=2)" 5 "rows of run 2"
	assert_eq "$(rows t.csv run=0)" 0 "rows of warm-up runs"
}

test_unwritable_timeline() {
	try "$JOULESTAT" --timeline=/nonexistent/dir/t.csv -- "$JS_WORK" exit 0
	assert_rc 125
	assert_match err '^joulestat: /nonexistent/dir/t.csv: '
	try "$JOULESTAT" -q --timeline=/nonexistent/dir/t.csv -- sh -c 'touch ran; exit 3'
	assert_rc 125
	[ ! -e ran ] || fail "the workload ran"
}

t_run "one row per device per reading" test_rows_per_device
t_run "energy is cumulative and ends at the summary's" test_energy_cumulative
t_run "lost readings are marked lost, with empty values" test_lost_rows
t_run "late readings are marked late" test_late_rows
t_run "a run killed with SIGKILL leaves whole rows" test_killed_run_parses
t_run "repeated runs are numbered, warm-ups left out" test_runs_numbered
t_run "an uncreatable timeline is an error before the workload runs" test_unwritable_timeline
t_done
