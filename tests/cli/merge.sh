#!/bin/bash
# joulestat merge (README "Clusters"): ranks of one job run joulestat on the
# simulated NVML with SLURM_PROCID and SLURM_JOB_ID set and --csv 'r%r.csv'
# (the path template), then merge adds their summaries up.  A GPU that two
# ranks measured at the same time counts once, with the figures of the
# longer window; GPUs measured one after the other add up; workload
# energies always add up.  Every figure is checked against the inputs'
# own (csvtool), the outputs are checked for form (csvtool, jsontool), and
# each kind of bad input ends with a one-line message and status 125.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios/two-gpus.scn
USAGE='usage: joulestat merge \[-q\] \[-o FILE\] \[--csv FILE\] \[--json FILE\] FILE\.\.\.'

# rank_bg RANK JOB ARGS...: one rank in the background, its summary in rRANK.csv.
rank_bg() {
	r_rank=$1 r_job=$2
	shift 2
	NVSIM_SCENARIO=$SCN SLURM_PROCID=$r_rank SLURM_JOB_ID=$r_job \
	    timeout -k 5 $((30 * TIMEOUT_MULT)) "$JOULESTAT" --nvml-lib="$SIMLIB" -q \
	    --csv 'r%r.csv' "$@" >"out$r_rank" 2>"err$r_rank" </dev/null &
}

# wait_ranks: wait for every background rank; each must succeed.
wait_ranks() {
	for w_pid in $(jobs -p); do
		wait "$w_pid" || fail "a rank failed: $(cat err0 err1 err2 2>/dev/null)"
	done
}

# dev_fig FILE FIELD ID: FIELD of device ID's row of run 1 of a summary, in $v.
dev_fig() {
	csv_get "$1" "$2" scope=device run=1 device_id="$3"
	v=$csv_v
}

# sum_all FIELD FILES...: the sum of FIELD over the run-1 device rows of FILES.
sum_all() {
	s_field=$1
	shift
	s=0
	for s_f in "$@"; do
		for s_id in $ids; do
			dev_fig "$s_f" "$s_field" "$s_id"
			[ -z "$v" ] || s=$(calc "$s + $v")
		done
	done
}

# The device ids of r0.csv, in $ids.
device_ids() {
	ids=
	for d in 0 1; do
		csv_get r0.csv device_id scope=device run=1 device=$d
		ids="$ids $csv_v"
	done
}

outputs_ok() {
	"$CSVTOOL" check m.csv >/dev/null || fail "m.csv: rows differ in field count"
	"$JSONTOOL" check m.json || fail "m.json is not valid JSON"
}

# Two ranks at the same time on one host: each GPU counted once.
test_shared_counted_once() {
	rank_bg 0 42 -- "$JS_WORK" sleep 1s
	rank_bg 1 42 -- "$JS_WORK" sleep 1s
	wait_ranks
	[ -f r0.csv ] && [ -f r1.csv ] || fail "no r0.csv and r1.csv from --csv 'r%r.csv'"
	for r in 0 1; do
		csv_get r$r.csv rank scope=run
		assert_eq "$csv_v" $r "rank column of r$r.csv"
		csv_get r$r.csv job scope=run
		assert_eq "$csv_v" 42 "job column of r$r.csv"
	done
	try "$JOULESTAT" merge r0.csv r1.csv --csv m.csv --json m.json
	assert_rc 0
	outputs_ok
	assert_match out '^ joulestat merge: job 42, 2 ranks on 1 host$'
	assert_match out 'shared, counted once'
	device_ids
	expect=0
	for id in $ids; do
		csv_get m.csv rank scope=device device_id="$id"
		kept=$csv_v
		other=$((1 - kept))
		csv_get m.csv measured_by scope=device device_id="$id"
		assert_eq "$csv_v" "0 1" "ranks that measured $id"
		# The kept figures are the longer window's.
		dev_fig r$kept.csv time_s "$id"
		t_kept=$v
		dev_fig r$other.csv time_s "$id"
		assert_ge "$t_kept" "$(calc "$v - 0.000001")" "kept window of $id"
		# Over the union of both windows: the kept energy, and a little of the
		# other's where it measured beyond (the ranks started moments apart).
		dev_fig r$other.csv energy_j "$id"
		e_other=$v
		dev_fig r$kept.csv energy_j "$id"
		csv_get m.csv energy_j scope=device device_id="$id"
		assert_ge "$csv_v" "$(calc "$v - 0.000001")" "energy of $id against the kept"
		assert_le "$csv_v" "$(calc "$v + $e_other * 0.5")" "energy of $id against both"
		expect=$(calc "$expect + $csv_v")
	done
	csv_get m.csv energy_j scope=job
	assert_near "$csv_v" "$expect" 0.000005 "job energy"
	job_e=$csv_v
	sum_all energy_j r0.csv r1.csv
	assert_le "$job_e" "$(calc "$s * 0.6")" "job energy against the sum of both ranks'"
	sum_all workload_energy_j r0.csv r1.csv
	csv_get m.csv workload_energy_j scope=job
	assert_near "$csv_v" "$s" 0.000005 "job workload energy"
	assert_near "$("$JSONTOOL" get m.json .totals.energy_j)" "$job_e" 0.000001 "JSON energy"
	assert_eq "$("$JSONTOOL" get m.json .totals.devices)" 2 "JSON devices"
	assert_eq "$("$JSONTOOL" get m.json .devices[0].measured_by)" "[0,1]" "JSON measured_by"
	csv_get m.csv ranks scope=job
	assert_eq "$csv_v" 2 ranks
	csv_get m.csv hosts scope=job
	assert_eq "$csv_v" 1 hosts
	note "job energy $job_e J of $s J measured by both ranks; workload $csv_v J"
}

# One rank after the other: the same GPUs, measured twice, add up.
test_apart_summed() {
	rank_bg 0 7 -- "$JS_WORK" sleep 0.3s
	wait_ranks
	rank_bg 1 7 -- "$JS_WORK" sleep 0.3s
	wait_ranks
	try "$JOULESTAT" merge -q r0.csv r1.csv --csv m.csv --json m.json
	assert_rc 0
	[ ! -s out ] || fail "-q printed a report"
	outputs_ok
	device_ids
	sum_all energy_j r0.csv r1.csv
	csv_get m.csv energy_j scope=job
	assert_near "$csv_v" "$s" 0.000005 "job energy: the sum"
	# Its bound: the ranks' bounds added (worst case).
	sum_all energy_err_j r0.csv r1.csv
	csv_get m.csv energy_err_j scope=job
	assert_near "$csv_v" "$s" 0.000005 "job energy_err_j: the sum of the bounds"
	assert_near "$("$JSONTOOL" get m.json .totals.energy_err_j)" "$s" 0.000005 \
	    "JSON totals.energy_err_j"
	csv_get m.csv devices scope=job
	assert_eq "$csv_v" 4 "device measurements"
	csv_get r0.csv start_unix_s scope=run
	start=$csv_v
	csv_get r1.csv start_unix_s scope=run
	start1=$csv_v
	csv_get r1.csv wall_s scope=run
	end=$(calc "$start1 + $csv_v")
	csv_get m.csv wall_s scope=job
	assert_near "$csv_v" "$(calc "$end - $start")" 0.000005 "job wall time"
}

# -r: a rank's figures are the mean of its runs.
test_repeat_mean() {
	rank_bg 0 9 -r 3 -- "$JS_WORK" sleep 0.2s
	wait_ranks
	try "$JOULESTAT" merge r0.csv --csv m.csv
	assert_rc 0
	for d in 0 1; do
		csv_get r0.csv energy_j scope=device run=mean device=$d
		mean=$csv_v
		csv_get m.csv energy_j scope=device device=$d
		assert_near "$csv_v" "$mean" 0.000002 "device $d mean energy"
		# The mean's bound follows -r's rule: the mean of the runs' bounds.
		csv_get r0.csv energy_err_j scope=device run=mean device=$d
		mean=$csv_v
		csv_get m.csv energy_err_j scope=device device=$d
		assert_near "$csv_v" "$mean" 0.000002 "device $d mean energy's bound"
	done
	csv_get m.csv runs scope=rank
	assert_eq "$csv_v" 3 runs
}

# Standard output for every form ("-"); the report to a file with -o.
test_outputs_to_stdout() {
	rank_bg 0 5 -- "$JS_WORK" sleep 0.2s
	wait_ranks
	try "$JOULESTAT" merge -q --csv - r0.csv
	assert_rc 0
	"$CSVTOOL" check out >/dev/null || fail "--csv - wrote no consistent CSV"
	try "$JOULESTAT" merge -q --json - r0.csv
	assert_rc 0
	"$JSONTOOL" check out || fail "--json - wrote no valid JSON"
	try "$JOULESTAT" merge -o rep.txt r0.csv
	assert_rc 0
	[ ! -s out ] || fail "the report went to stdout despite -o"
	assert_match rep.txt '^ joulestat merge: job 5, 1 rank on 1 host$'
	assert_match rep.txt '^   energy +[0-9.]+ J ± [0-9.]+ = [0-9.]+ Wh$'
}

# The merged outputs are opened as the run's are: a FIFO without a reader
# is an error, not an open that waits forever (before: fopen blocked), and
# a file written beside and renamed over, so a failure keeps the old one.
test_outputs_as_the_runs() {
	rank_bg 0 5 -- "$JS_WORK" sleep 0.2s
	wait_ranks
	mkfifo f
	try -t 10 "$JOULESTAT" merge -q --csv=f r0.csv
	assert_rc 125
	assert_match err '^joulestat: f: no reader on this FIFO'
	try -t 10 "$JOULESTAT" --list-devices --json=f
	assert_rc 125
	assert_match err '^joulestat: f: no reader on this FIFO'
	echo old >m.json
	try "$JOULESTAT" merge -q --json=m.json r0.csv
	assert_rc 0
	"$JSONTOOL" check m.json || fail "m.json: not the merged JSON"
	ls -a >names
	assert_no_match names '^\.m\.json\.'
}

# err_case MSG-REGEX ARGS...: merge fails with 125 and one line naming the problem.
err_case() {
	e_re=$1
	shift
	try "$JOULESTAT" merge -q --csv m.csv "$@"
	assert_rc 125
	assert_match err "^joulestat: merge: $e_re"
	[ "$(wc -l <err)" -eq 1 ] || fail "more than one line on stderr"
	[ ! -e m.csv ] || fail "m.csv written despite the error"
}

test_errors() {
	rank_bg 0 42 -- "$JS_WORK" sleep 0.2s
	rank_bg 1 43 -- "$JS_WORK" sleep 0.2s
	wait_ranks
	err_case 'nope\.csv: No such file or directory$' r0.csv nope.csv
	printf 'a,b\n1,2\n' >other.csv
	err_case 'other\.csv: not a joulestat summary \(no scope column\)$' other.csv
	printf '{"runs": [1, 2]}\n' >j.json
	err_case 'j\.json: (line 1: .*|not a joulestat summary .*)$' j.json
	# The energy of the first device row (GPU 0, read from its counter).
	sed '3s/,[0-9.]*,"counter",/,abc,"counter",/' r0.csv >nan.csv
	cmp -s r0.csv nan.csv && fail "nan.csv: the energy was not replaced"
	err_case "nan\\.csv: line 3: energy_j 'abc' is not a number$" nan.csv
	# A summary cut short inside the energy of its first device row: the
	# row has fewer fields than the header, though its last one parses.
	sed -n '1,3p' r0.csv | sed '3s/\(,[0-9][0-9]*\)\.[0-9]*,"counter",.*/\1/' >cut.csv
	sed -n 3p cut.csv | grep -q counter && fail "cut.csv: the row was not cut"
	err_case 'cut\.csv: line 3: [0-9]+ fields where the header has [0-9]+ \(a row cut short or run on\)$' cut.csv
	sed '2,$s/^2,/9,/' r0.csv >v9.csv
	err_case "v9\\.csv: line 2: schema_version '9' is not 2, the one this joulestat reads\$" v9.csv
	err_case 'r1\.csv: job 43, but r0\.csv has job 42: merge one job at a time$' r0.csv r1.csv
	err_case 'r0\.csv: given twice$' r0.csv r0.csv
	cp r0.csv copy.csv
	err_case 'r0\.csv: host .* rank 0 is also in copy\.csv$' r0.csv copy.csv
}

test_usage() {
	try "$JOULESTAT" merge
	assert_rc 125
	assert_match err '^joulestat: merge: no files given$'
	assert_match err "^$USAGE\$"
	[ "$(wc -l <err)" -eq 2 ] || fail "not a message and the usage line"
	try "$JOULESTAT" merge --bogus x.csv
	assert_rc 125
	assert_match err '^joulestat: merge: --bogus: unknown option$'
	assert_match err "^$USAGE\$"
	try "$JOULESTAT" merge --help
	assert_rc 0
	assert_match out "^$USAGE\$"
	assert_match out -- '--csv=FILE'
}

t_run "two ranks at once: a shared GPU counts once" test_shared_counted_once
t_run "ranks one after the other: the GPUs add up" test_apart_summed
t_run "a rank's -r runs give their mean" test_repeat_mean
t_run "outputs on stdout and with -o" test_outputs_to_stdout
t_run "merged and listed outputs opened as the run's (a FIFO without reader: 125)" \
    test_outputs_as_the_runs
t_run "bad inputs: one line and status 125" test_errors
t_run "usage errors and --help" test_usage
t_done
