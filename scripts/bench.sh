#!/bin/sh
# make bench: prints figures, asserts nothing.
#  1. the table of the process-tree figures, one row each with its goal
#     beside it, for each tracker this machine allows (--tracker=cgroup
#     where cgroup v2 is writable, --tracker=proc always):
#     wrapper cost of joulestat -q -- true against /usr/bin/time true;
#     joulestat's own CPU with a 100-process sleeping tree at 10 and 100 Hz,
#     no devices; tick cost at 100 Hz for trees of 1, 100 and 1000
#     processes; 5000 unrelated processes; timer lateness at 1 kHz
#     and the machine's floors: a bare timer loop at 10 and 100 Hz, and a
#     wrapper that only forks, execs and waits (in a new cgroup with the
#     cgroup tracker)
#  2. the simulated NVML's own cost, apart: the same tree with one
#     simulated GPU, with and without its per-process data
#  3. peak RSS of a RSS_SECONDS (default 600) run at 10 Hz on the simulated NVML
# Wall times are medians of RUNS (default 30) runs by build/tests/spawntime,
# which also gives the mean CPU time of a run: on a loaded machine the CPU
# time is the steadier figure.  The wrapper row takes the lowest of ROUNDS
# (default 3) rounds, joulestat and /usr/bin/time in turn; the CPU rows
# and their floors, the median of CPU_ROUNDS (default 3).  Environment:
# RUNS, ROUNDS, CPU_ROUNDS, RSS_SECONDS (0 skips 3).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
J=$BUILD/joulestat
W=$BUILD/tests/js-work
SPAWNTIME=$BUILD/tests/spawntime
SPAWNFLOOR=$BUILD/tests/spawnfloor
RUNS=${RUNS:-30}

# run_fields FIELD... -- ARGS...: the run row's FIELDs of one joulestat run.
run_fields() {
	f=""
	while [ "$1" != -- ]; do
		f="$f $1"
		shift
	done
	shift
	"$J" -x, "$@" 2>&1 >/dev/null | awk -F, -v f="$f" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	    NR > 1 && ($2 == "\"run\"" || $2 == "run") { n = split(f, k, " ");
	    for (i = 1; i <= n; i++) printf "%s ", $c[k[i]]; print "" }'
}

# sampler_cpu ARGS...: sampler_cpu_s, ticks and wall_s of one run.
sampler_cpu() {
	run_fields sampler_cpu_s ticks wall_s -- "$@"
}

SIM="--nvml-lib=$BUILD/sim/libnvidia-ml.so.1"
export NVSIM_SCENARIO=tests/sim/scenarios/attrib-shared.scn

# row NAME FIGURE GOAL: one line of the table.
row() {
	printf '  %-46s %-50s %s\n' "$1" "$2" "$3"
}

# median X...: the middle one of the figures (the lower middle of an even count).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# cpu_row NAME GOAL TRACKER INTERVAL_MS WORKLOAD...: joulestat's own CPU
# wrapping WORKLOAD (whose "@" is its duration) for 2 s and for 5 s.  The
# 5 s run gives the share of a core and the CPU a tick all told (set-up and
# the first reading of every process included); the difference between the
# two, the CPU of one more tick in a steady tree ("steady").  Each figure is
# the median of CPU_ROUNDS (default 3) such pairs: one pair moves by a
# third from run to run on a 2-core virtual machine.
cpu_row() {
	n=$1
	g=$2
	tr=$3
	iv=$4
	shift 4
	a=$(echo "$*" | sed 's/@/2s/')
	b=$(echo "$*" | sed 's/@/5s/')
	shares=""
	ticks=""
	steadies=""
	k=0
	while [ $k -lt "${CPU_ROUNDS:-3}" ]; do
		set -- $(sampler_cpu --tracker="$tr" -i "$iv" -- $a) \
		    $(sampler_cpu --tracker="$tr" -i "$iv" -- $b)
		set -- $(awk -v c1="$1" -v t1="$2" -v c2="$4" -v t2="$5" -v w2="$6" 'BEGIN {
		    printf "%.4f %.2f %.2f", 100 * c2 / w2, t2 ? 1e6 * c2 / t2 : 0,
		    (t2 > t1) ? 1e6 * (c2 - c1) / (t2 - t1) : 0 }')
		shares="$shares $1"
		ticks="$ticks $2"
		steadies="$steadies $3"
		k=$((k + 1))
	done
	row "$n" "$(awk -v s="$(median $shares)" -v t="$(median $ticks)" \
	    -v d="$(median $steadies)" 'BEGIN {
	    printf "%.2f%% of a core, %.1f us a tick (steady %.1f)", s, t, d }')" "$g"
}

trackers=proc
"$J" -q --tracker=cgroup -- true 2>/dev/null && trackers="cgroup proc"

echo "== the process tree and the wrapper: figure, then goal"
[ -x /usr/bin/time ] || echo "  /usr/bin/time: not installed (apt-get install time)"
if [ -x /usr/bin/time ]; then
	set -- $("$SPAWNTIME" "$RUNS" true)
	bare=$1
fi

# lower OLD NEW: the lower of two figures, NEW alone when OLD is empty.
lower() {
	awk -v a="$2" -v b="$1" 'BEGIN { print (b == "" || a < b) ? a : b }'
}

# wrapper_row TRACKER: joulestat -q -- true, /usr/bin/time true and the
# floor (spawnfloor: fork, exec, wait and nothing else; with the cgroup
# tracker, in a cgroup made and removed around it as joulestat's is)
# measured in turn, ROUNDS (default 3) times each, so that all see the same
# load; of each, the lowest round's median wall time and mean CPU time.
wrapper_row() {
	wtr=$1
	fl=""
	if [ "$wtr" = cgroup ]; then
		fl=$("$J" --list-devices 2>&1 | sed -n 's/^process tree: cgroup .*, under \(.*\))$/\1/p')
		[ -n "$fl" ] && fl="-c $fl"
	fi
	k=0
	jw=""
	jc=""
	tw=""
	tc=""
	fw=""
	while [ $k -lt "${ROUNDS:-3}" ]; do
		set -- $("$SPAWNTIME" "$RUNS" /usr/bin/time true)
		tw=$(lower "$tw" "$1")
		tc=$(lower "$tc" "$4")
		set -- $("$SPAWNTIME" "$RUNS" "$J" -q --tracker="$wtr" -- true)
		jw=$(lower "$jw" "$1")
		jc=$(lower "$jc" "$4")
		set -- $("$SPAWNTIME" "$RUNS" "$SPAWNFLOOR" $fl true)
		fw=$(lower "$fw" "$1")
		k=$((k + 1))
	done
	row "joulestat -q -- true vs /usr/bin/time true" "$(awk -v a="$jw" -v b="$tw" -v \
	    ca="$jc" -v cb="$tc" -v t="$bare" 'BEGIN { printf "%.2f vs %.2f ms = %.2fx (CPU %.2f vs %.2f ms; true %.2f ms)",
	    a, b, a / b, ca, cb, t }')" "<= 1.1x"
	row "floor: fork, exec, wait$([ -n "$fl" ] && echo ", in a new cgroup")" \
	    "$(awk -v a="$fw" -v b="$tw" 'BEGIN { printf "%.2f ms = %.2fx /usr/bin/time", a, a / b }')" \
	    "(what any wrapper pays here)"
}

# The machine's floor: a loop that only wakes up at 10 and 100 Hz, as
# joulestat's does, costs this much by the same accounting (getrusage).
# The median of CPU_ROUNDS runs, as the rows it is the floor of.
for ms in 100 10; do
	us=""
	pct=""
	k=0
	while [ $k -lt "${CPU_ROUNDS:-3}" ]; do
		set -- $("$BUILD/tests/timerfloor" $ms $((5000 / ms)))
		us="$us $1"
		pct="$pct $2"
		k=$((k + 1))
	done
	row "floor: a bare timer wake-up at $((1000 / ms)) Hz" \
	    "$(median $pct)% of a core, $(median $us) us a tick" "(what any sampler pays here)"
done
for tr in $trackers; do
	echo " -- tracker $tr"
	[ -x /usr/bin/time ] && wrapper_row "$tr"
	cpu_row "own CPU, 100 sleeping processes, 10 Hz" "<= 0.1%" "$tr" 100 "$W" tree 1 99 @
	cpu_row "own CPU, 100 sleeping processes, 100 Hz" "<= 0.5%" "$tr" 10 "$W" tree 1 99 @
	for spec in "sleep @:1" "tree 1 99 @:100" "tree 1 999 @:1000"; do
		cpu_row "tick cost at 100 Hz, tree of ${spec##*:}" "$([ "$tr" = cgroup ] &&
		    echo "independent of the tree" || echo "<= 2 us a process a tick")" \
		    "$tr" 10 "$W" ${spec%%:*}
	done
done
for n in 0 5000; do
	pids=""
	i=0
	while [ $i -lt $n ]; do
		sleep 60 &
		pids="$pids $!"
		i=$((i + 1))
	done
	set -- $(sampler_cpu -i 1 -- "$W" sleep 2s)
	row "$n unrelated processes, 1 kHz" "$(awk -v cpu="$1" -v ticks="$2" 'BEGIN {
	    printf "%.1f us a tick", ticks ? 1e6 * cpu / ticks : 0 }')" "no effect"
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
done
set -- $(NVSIM_SCENARIO=tests/sim/scenarios/bench-notree.scn run_fields late_p50_ms late_p99_ms \
    late_max_ms ticks missed_ticks -- "$SIM" -i 1 -- "$W" sleep 5s)
row "timer lateness at 1 kHz, p99 (one simulated GPU)" "$2 ms (p50 $1, max $3, $5 missed)" \
    "<= 0.5 ms"

# The simulator runs inside joulestat: its figures here are its cost and
# joulestat's together; the rows above have no device at all.
echo "== with one simulated GPU (its own cost included), 100 sleeping processes, 3 s"
for scn in attrib-shared bench-nopids bench-notree; do
	for ms in 100 10; do
		set -- $(NVSIM_SCENARIO=tests/sim/scenarios/$scn.scn sampler_cpu "$SIM" -i $ms -- \
		    "$W" tree 1 99 3s)
		awk -v scn=$scn -v hz=$((1000 / ms)) -v cpu="$1" -v ticks="$2" -v wall="$3" 'BEGIN {
		    printf "  %-14s %4d Hz: %.2f%% of a core, %.1f us a tick\n", scn ":", hz,
		    100 * cpu / wall, ticks ? 1e6 * cpu / ticks : 0 }'
	done
done

RSS_SECONDS=${RSS_SECONDS:-600}
# hwm PID: the VmHWM (peak RSS, KiB) of a running process.
hwm() {
	awk '/^VmHWM/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

if [ "$RSS_SECONDS" -gt 0 ]; then
	echo "== peak RSS of joulestat over a ${RSS_SECONDS} s run at 10 Hz, one simulated GPU"
	"$J" -q $SIM -i 100 --timeline=/dev/null -- "$W" sleep "${RSS_SECONDS}s" &
	jp=$!
	sleep 2
	first=$(hwm $jp)
	last=$first
	t=2
	while kill -0 $jp 2>/dev/null && [ $t -lt "$((RSS_SECONDS - 2))" ]; do
		sleep 2
		t=$((t + 2))
		v=$(hwm $jp)
		[ -n "$v" ] && last=$v
	done
	wait $jp
	awk -v a="$first" -v b="$last" -v t="$t" 'BEGIN {
	    printf "  peak RSS %d KiB after 2 s, %d KiB after %d s: %+.1f KiB per hour\n",
	    a, b, t, (b - a) / (t - 2) * 3600 }'
fi
