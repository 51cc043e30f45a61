#!/bin/bash
# joulestat under a real launcher (README "Clusters"): OpenMPI's mpirun starts two
# ranks of joulestat on this host, each measuring the same simulated GPUs
# and writing rank-%r.csv, where %r comes from OMPI_COMM_WORLD_RANK.  The
# merge of the two must count each GPU once (the job's energy is one
# rank's figure per GPU, the longer window's, not the sum of both) and
# add up the workload energies, each rank's own processes.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios/two-gpus.scn
# OpenMPI refuses root without these; in a container it must not look for
# ssh or a resource manager, and the two ranks may outnumber the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_plm=isolated OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1

# Why mpirun cannot run here, or nothing.
mpirun_trouble() {
	command -v mpirun >/dev/null 2>&1 || {
		echo "no mpirun in PATH"
		return
	}
	if ! timeout -k 5 $((60 * TIMEOUT_MULT)) mpirun -np 2 --oversubscribe true \
	    >"$T/mpi.out" 2>&1 </dev/null; then
		echo "'mpirun -np 2 true' failed: $(head -n 3 "$T/mpi.out" | tr '\n' ' ')"
	fi
}

# dev_fig FILE FIELD ID: FIELD of device ID in run 1 of a rank's summary, in $v.
dev_fig() {
	csv_get "$1" "$2" scope=device run=1 device_id="$3"
	v=$csv_v
}

test_two_ranks() {
	# Under a checker the two ranks start seconds apart, so their windows on
	# one GPU are no longer "nearly the same": the merge's arithmetic is
	# checked without one.
	[ -z "${WRAP:-}" ] || skip "under a checker (${WRAP%% *}), the ranks' windows drift apart"
	why=$(mpirun_trouble)
	[ -z "$why" ] || skip "mpirun cannot run here: $why"
	try -t 120 mpirun -np 2 --oversubscribe -x NVSIM_SCENARIO="$SCN" \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" -q --csv 'rank-%r.csv' -- "$JS_WORK" sleep 1s
	assert_rc 0
	[ "$(ls rank-*.csv | wc -l)" -eq 2 ] || fail "not two summaries: $(ls)"
	for r in 0 1; do
		[ -f rank-$r.csv ] || fail "no rank-$r.csv: $(ls)"
		csv_get rank-$r.csv rank scope=run
		assert_eq "$csv_v" $r "rank column of rank-$r.csv"
	done
	try "$JOULESTAT" merge rank-*.csv --csv m.csv --json m.json
	assert_rc 0
	"$CSVTOOL" check m.csv >/dev/null || fail "m.csv: rows differ in field count"
	"$JSONTOOL" check m.json || fail "m.json is not valid JSON"
	csv_get m.csv devices scope=job
	assert_eq "$csv_v" 2 "distinct GPUs"

	expect=0 max=0 sum=0 work=0
	for d in 0 1; do
		csv_get rank-0.csv device_id scope=device run=1 device=$d
		id=$csv_v
		csv_get m.csv measured_by scope=device device_id="$id"
		assert_eq "$csv_v" "0 1" "ranks that measured $id"
		csv_get m.csv rank scope=device device_id="$id"
		kept=$csv_v
		# The kept figures are those of the longer window.
		dev_fig rank-$kept.csv time_s "$id"
		t_kept=$v
		dev_fig rank-$((1 - kept)).csv time_s "$id"
		assert_ge "$t_kept" "$(calc "$v - 0.000001")" "GPU $d: the kept window"
		dev_fig rank-$kept.csv energy_j "$id"
		e_kept=$v
		dev_fig rank-$((1 - kept)).csv energy_j "$id"
		e_other=$v
		csv_get m.csv energy_j scope=device device_id="$id"
		# The union of both windows: rank $kept's, and a little of the other's.
		assert_ge "$csv_v" "$(calc "$e_kept - 0.000001")" "GPU $d energy against rank $kept's"
		assert_le "$csv_v" "$(calc "$e_kept + $e_other * 0.5")" "GPU $d energy against both"
		e_dev=$csv_v
		# One GPU, two views of nearly the same window: the figure is the max.
		m=$(awk -v a="$e_kept" -v b="$e_other" 'BEGIN { print (a > b ? a : b) }')
		assert_near "$e_kept" "$m" "$(calc "$m * 0.02")" "GPU $d: kept against max"
		expect=$(calc "$expect + $e_dev")
		max=$(calc "$max + $m")
		sum=$(calc "$sum + $e_kept + $e_other")
		for r in 0 1; do
			dev_fig rank-$r.csv workload_energy_j "$id"
			[ -z "$v" ] || work=$(calc "$work + $v")
		done
	done
	csv_get m.csv energy_j scope=job
	job_e=$csv_v
	assert_near "$job_e" "$expect" 0.000005 "job energy"
	assert_le "$job_e" "$(calc "$sum * 0.6")" "job energy against the sum of both ranks'"
	csv_get m.csv workload_energy_j scope=job
	assert_near "$csv_v" "$work" 0.000005 "job workload energy: the sum"
	note "job energy $job_e J (max per GPU $max J, sum of ranks $sum J), workload $csv_v J"
}

t_run "two ranks under mpirun, merged: shared GPUs once" test_two_ranks
t_done
