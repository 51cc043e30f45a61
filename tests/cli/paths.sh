#!/bin/bash
# Multi-node output paths (README "Clusters"): %h host, %r rank, %j job, %p pid, %%
# in -o, --csv, --json, --timeline; host, rank and job columns in the summary.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

# Runs as if no launcher were around, whatever the environment of the suite.
unset SLURM_PROCID OMPI_COMM_WORLD_RANK PMI_RANK SLURM_JOB_ID

sim() {
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

test_templates_expand() {
	host=$(hostname)
	SLURM_PROCID=3 SLURM_JOB_ID=4711 sim -o 'r-%h-%r-%j.txt' --csv='s-%r.csv' \
	    --json='j-%j-%%.json' --timeline='t-%r-%j.csv' -- "$JS_WORK" sleep 0.2s
	assert_rc 0
	for f in "r-$host-3-4711.txt" s-3.csv 'j-4711-%.json' t-3-4711.csv; do
		[ -s "$f" ] || fail "$f was not written ($(ls))"
	done
	assert_match "r-$host-3-4711.txt" '^ joulestat: '
	csv_get s-3.csv host scope=run
	assert_eq "$csv_v" "$host" host
	csv_get s-3.csv rank scope=device
	assert_eq "$csv_v" 3 "rank on device rows too"
	csv_get s-3.csv job scope=run
	assert_eq "$csv_v" 4711 job
	"$JSONTOOL" get 'j-4711-%.json' .runs[0].rank >v
	assert_match v '^"?3"?$'
}

test_pid_and_defaults() {
	sim -q --csv='s-%p-%r-%j.csv' -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	f=$(ls s-*-0-nojob.csv 2>/dev/null)
	[ -n "$f" ] || fail "no s-PID-0-nojob.csv: $(ls)"
	pid=${f#s-}
	pid=${pid%%-*}
	case $pid in '' | *[!0-9]*) fail "not a pid: $pid" ;; esac
	csv_get "$f" rank scope=run
	assert_eq "$csv_v" "" "no launcher: rank is unknown"
	csv_get "$f" job scope=run
	assert_eq "$csv_v" "" "no job"
	csv_get "$f" start_unix_s scope=run
	now=$(date +%s)
	assert_ge "$csv_v" $((now - 60)) "start time is recent"
	assert_le "$csv_v" "$now.999999" "start time is not in the future"
}

# The rank variables, innermost launcher first.
test_rank_sources() {
	OMPI_COMM_WORLD_RANK=5 PMI_RANK=6 sim -q --csv='s-%r.csv' -- true
	assert_rc 0
	[ -f s-5.csv ] || fail "OMPI_COMM_WORLD_RANK before PMI_RANK: $(ls)"
	PMI_RANK=6 sim -q --csv='s-%r.csv' -- true
	[ -f s-6.csv ] || fail "PMI_RANK: $(ls)"
	SLURM_PROCID=1 sim -q --csv='s-%r.csv' -- true
	[ -f s-1.csv ] || fail "SLURM_PROCID: $(ls)"
	rm s-*.csv
	# mpirun in a batch script: the MPI rank, not the script's SLURM_PROCID.
	SLURM_PROCID=0 OMPI_COMM_WORLD_RANK=5 sim -q --csv='s-%r.csv' -- true
	[ -f s-5.csv ] || fail "OMPI_COMM_WORLD_RANK before SLURM_PROCID: $(ls)"
}

test_bad_templates_and_ids() {
	for p in 'a-%x.csv' 'a-%' '%r-%q'; do
		try "$JOULESTAT" -q --csv="$p" -- sh -c 'touch ran'
		assert_rc 125
		assert_match err "^joulestat: --csv: '.*': (an unknown % sequence|a lone % at the end); use %h, %r, %j, %p or %%\$"
		[ ! -e ran ] || fail "$p: the workload ran"
	done
	SLURM_PROCID=abc try "$JOULESTAT" -q -- true
	assert_rc 125
	assert_match err "^joulestat: SLURM_PROCID 'abc' is not a rank number\$"
	SLURM_JOB_ID='1/2' try "$JOULESTAT" -q -- true
	assert_rc 125
	assert_match err "^joulestat: SLURM_JOB_ID '1/2' is not a job id\$"
	# "-" is standard output, never a template.
	sim -q --csv=- -- true
	assert_rc 0
	assert_match out '^schema_version,scope,run,host,rank,job,start_unix_s,command,'
}

t_run "%h %r %j %% expand in every output path" test_templates_expand
t_run "%p, and rank 0 / nojob outside a launcher" test_pid_and_defaults
t_run "rank from OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID" test_rank_sources
t_run "bad templates and rank or job values are usage errors" test_bad_templates_and_ids
t_done
