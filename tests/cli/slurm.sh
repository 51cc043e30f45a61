#!/bin/bash
# joulestat under a real Slurm (README "Clusters", man page CLUSTERS): munge,
# slurmctld and slurmd from Debian's packages, started here on the loopback
# address with a minimal slurm.conf (one node with two CPUs and two GPUs,
# no accounting database), in a PID namespace of their own so that every
# daemon and job step ends with the test, whichever way it ends.  The GPUs
# are the simulated NVML's two; Slurm's GPU GRES gives each task its own
# CUDA_VISIBLE_DEVICES, which joulestat follows.  Checked: %j, %r and %h
# come from Slurm's environment (the job ids are slurm.conf's FirstJobId
# and the next), each rank measures its own GPU, and the merge counts each
# GPU once, its job total the sum of the ranks' devices.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios/two-gpus.scn
FIRST_JOB=4242

# Why a Slurm cluster cannot be started here, or nothing.
slurm_trouble() {
	[ "$(id -u)" -eq 0 ] || {
		echo "Slurm's daemons need root"
		return
	}
	for c in munged mungekey slurmctld slurmd srun sbatch sinfo unshare; do
		command -v $c >/dev/null 2>&1 || {
			echo "no $c (apt-get install munge slurmctld slurmd slurm-client; scripts/setup.sh --extra)"
			return
		}
	done
	unshare --pid --fork --mount-proc true 2>/dev/null || echo "cannot make a PID namespace"
}

# port: a TCP port nobody listens on, in $port (from the test's own pid).
free_port() {
	port=$((20000 + ($$ * 7 + $1) % 30000))
	while grep -qi ":$(printf '%04X' $port) .* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		port=$((port + 1))
	done
}

# cluster_up: write the configuration in ./slurm and start the daemons;
# returns once the node is idle.  SLURM_CONF is exported for the clients.
cluster_up() {
	d=$PWD/slurm
	# Slurm names hosts by their short name.
	host=$(hostname -s)
	mkdir -p "$d/state" "$d/spool" "$d/dev"
	# The GRES device files: Slurm wants character devices; their numbers
	# are the indexes it writes into CUDA_VISIBLE_DEVICES.
	mknod "$d/dev/nvidia0" c 1 3 2>/dev/null && mknod "$d/dev/nvidia1" c 1 3 2>/dev/null ||
	    skip "cannot make device nodes for Slurm's GPU GRES in $d"
	mungekey -c -k "$d/munge.key" >/dev/null 2>&1 || fail "mungekey failed"
	free_port 0
	p1=$port
	free_port 1
	[ "$port" -ne "$p1" ] || port=$((port + 1))
	cat >"$d/slurm.conf" <<EOF
ClusterName=joulestat
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$p1
SlurmdPort=$port
AuthType=auth/munge
AuthInfo=socket=$d/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
FirstJobId=$FIRST_JOB
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
GresTypes=gpu
EpilogSlurmctld=$d/epilog.sh
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	echo "NodeName=$host Name=gpu File=$d/dev/nvidia[0-1]" >"$d/gres.conf"
	# The man page's recipes: the job's summaries merged once, on the
	# controller, when the job has ended; a task prolog that gives each task
	# its own GPU where Slurm does not manage them.
	cat >"$d/epilog.sh" <<EOF
#!/bin/sh
cd "$PWD" && exec "$JOULESTAT" merge -q *-"\$SLURM_JOB_ID"-*.csv --csv=epilog-"\$SLURM_JOB_ID".csv
EOF
	cat >"$d/task-prolog.sh" <<'EOF'
#!/bin/sh
echo "export CUDA_VISIBLE_DEVICES=$SLURM_LOCALID"
EOF
	chmod 755 "$d/epilog.sh" "$d/task-prolog.sh"
	# PID 1 of the namespace starts the daemons in the foreground and waits;
	# when the test ends, t_cleanup's TERM ends unshare, whose child is
	# killed with it (--kill-child), and with PID 1 the whole namespace.
	cat >"$d/run.sh" <<EOF
munged -F --socket=$d/munge.sock --key-file=$d/munge.key --pid-file=$d/munged.pid \
    --log-file=$d/munged.log --seed-file=$d/munge.seed --force &
while [ ! -S $d/munge.sock ]; do sleep 0.05; done
slurmctld -D -c -f $d/slurm.conf &
slurmd -D -N $host -f $d/slurm.conf &
wait
EOF
	export SLURM_CONF=$d/slurm.conf
	cd "$d"
	spawn -t 600 unshare --pid --fork --mount-proc --kill-child sh "$d/run.sh"
	cd ..
	ns_init=$(cat /proc/$t_pid/task/$t_pid/children 2>/dev/null)
	ns=$(readlink /proc/${ns_init%% *}/ns/pid) || fail "no PID namespace for the cluster"
	poll -t 60 node_idle || fail "the node never became idle: $(sinfo 2>&1 | tail -n 1);" \
	    "slurmctld: $(tail -n 3 "$d/slurmctld.log" 2>&1); slurmd: $(tail -n 3 "$d/slurmd.log" 2>&1)"
}

# cluster_down: end the cluster now, not at the cleanup: SIGKILL to
# unshare takes PID 1 of the namespace, and with it every daemon and step.
cluster_down() {
	kill -KILL "$t_pid"
	reap
	wait_for ns_empty
}

ns_empty() {
	for p in /proc/[0-9]*; do
		[ "$(readlink $p/ns/pid 2>/dev/null)" != "$ns" ] || return 1
	done
}

node_idle() {
	[ "$(sinfo -h -o %T 2>/dev/null)" = idle ]
}

# check_ranks JOB PATTERN: the two summaries PATTERN (with R for the rank)
# of job JOB: job, rank and host columns from Slurm's environment, one GPU
# each, rank R's the GPU that CUDA_VISIBLE_DEVICES=R leaves (--list-devices
# number R); their device energies in e0 and e1.
check_ranks() {
	for r in 0 1; do
		f=${2//R/$r}
		[ -f "$f" ] || fail "no $f: $(ls)"
		"$CSVTOOL" check "$f" >/dev/null || fail "$f: rows differ in field count"
		csv_get "$f" job scope=run
		assert_eq "$csv_v" "$1" "job column of $f"
		csv_get "$f" rank scope=run
		assert_eq "$csv_v" $r "rank column of $f"
		csv_get "$f" host scope=run
		assert_eq "$csv_v" "$(hostname)" "host column of $f"
		assert_eq "$("$CSVTOOL" count "$f" scope=device)" 1 "device rows in $f"
		csv_get "$f" device_id scope=device run=1
		assert_eq "$csv_v" "${uuid[$r]}" "GPU of rank $r"
		csv_get "$f" energy_j scope=device run=1
		assert_num "$csv_v"
		eval "e$r=\$csv_v"
	done
}

# check_merge JOB FILE: the merged CSV counts the two GPUs once each, and
# its job energy is the sum of the ranks' devices.
check_merge() {
	"$CSVTOOL" check "$2" >/dev/null || fail "$2: rows differ in field count"
	csv_get "$2" job scope=job
	assert_eq "$csv_v" "$1" "merged job"
	csv_get "$2" devices scope=job
	assert_eq "$csv_v" 2 "distinct GPUs"
	for r in 0 1; do
		csv_get "$2" measured_by scope=device device_id="${uuid[$r]}"
		assert_eq "$csv_v" $r "ranks that measured ${uuid[$r]}"
	done
	csv_get "$2" energy_j scope=job
	assert_near "$csv_v" "$(calc "$e0 + $e1")" 0.000005 "job energy against rank 0 + rank 1"
	note "job $1: $csv_v J = $e0 J (rank 0, ${uuid[0]}) + $e1 J (rank 1, ${uuid[1]})"
}

# The UUIDs of the simulated GPUs, by --list-devices number.
read_uuids() {
	try env NVSIM_SCENARIO="$SCN" "$JOULESTAT" --nvml-lib="$SIMLIB" --list-devices
	assert_rc 0
	uuid=("$(awk '/^0: / { print $NF }' out)" "$(awk '/^1: / { print $NF }' out)")
	[ -n "${uuid[0]}" ] && [ -n "${uuid[1]}" ] || fail "not two GPUs listed: $(cat out)"
}

test_srun_and_sbatch() {
	why=$(slurm_trouble)
	[ -z "$why" ] || skip "no Slurm cluster here: $why"
	read_uuids
	cluster_up
	export NVSIM_SCENARIO=$SCN

	# srun: two tasks, one GPU each; the first job of this cluster.
	try -t 120 srun -n 2 --gpus-per-task=1 "$JOULESTAT" --nvml-lib="$SIMLIB" -q \
	    --csv='e-%j-%r.csv' -- "$JS_WORK" sleep 1s
	assert_rc 0
	assert_eq "$(ls e-*.csv | tr '\n' ' ')" "e-$FIRST_JOB-0.csv e-$FIRST_JOB-1.csv " "srun's summaries"
	check_ranks $FIRST_JOB "e-$FIRST_JOB-R.csv"
	try "$JOULESTAT" merge e-$FIRST_JOB-*.csv --csv m.csv
	assert_rc 0
	check_merge $FIRST_JOB m.csv
	# EpilogSlurmctld merged the same files once the job was over.
	wait_for test -s epilog-$FIRST_JOB.csv
	csv_get m.csv energy_j scope=job
	m=$csv_v
	csv_get epilog-$FIRST_JOB.csv energy_j scope=job
	assert_eq "$csv_v" "$m" "job energy merged by EpilogSlurmctld"

	# sbatch: joulestat per task, merge at the end of the job, as the man
	# page's recipe does it.
	cat >job.sh <<EOF
#!/bin/bash
#SBATCH --ntasks=2 --gpus-per-task=1 --output=job-%j.out
srun "$JOULESTAT" --nvml-lib="$SIMLIB" -q --csv='b-%h-%j-%r.csv' -- "$JS_WORK" sleep 1s
"$JOULESTAT" merge b-*-\$SLURM_JOB_ID-*.csv --csv=job-\$SLURM_JOB_ID.csv
EOF
	try -t 180 sbatch --wait --parsable job.sh
	assert_rc 0
	job=$(head -n 1 out)
	assert_eq "$job" $((FIRST_JOB + 1)) "the batch job's id"
	h=$(hostname)
	check_ranks "$job" "b-$h-$job-R.csv"
	[ -f job-$job.csv ] || fail "the batch job wrote no job-$job.csv: $(cat job-$job.out)"
	assert_match job-$job.out "$job"
	check_merge "$job" job-$job.csv

	# No GRES asked for: the task prolog (srun's --task-prolog speaks as
	# slurm.conf's TaskProlog does) sets each task's CUDA_VISIBLE_DEVICES.
	try -t 120 srun -n 2 --task-prolog="$PWD/slurm/task-prolog.sh" "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" -q --csv='t-%j-%r.csv' -- "$JS_WORK" sleep 1s
	assert_rc 0
	job=$((FIRST_JOB + 2))
	check_ranks $job "t-$job-R.csv"
	wait_for test -s epilog-$job.csv
	check_merge $job epilog-$job.csv
	cluster_down
}

t_run "one-node Slurm: srun, sbatch, TaskProlog, EpilogSlurmctld; %j %r %h, a GPU per task, merged" test_srun_and_sbatch
t_done
