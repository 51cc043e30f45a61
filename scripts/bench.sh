#!/bin/sh
# make bench: prints figures, asserts nothing.  Medians of repeated runs.
#  1. wrapper overhead: joulestat -q -- true vs /usr/bin/time true vs perf stat true vs true
#  2. joulestat's own CPU time while wrapping a 100-process sleeping tree at
#     10/100/1000 Hz, without devices and with the simulated NVML, and what
#     per-process polling of a GPU adds to a tick
#  3. tick cost vs tree size (1, 100, 1000) and vs unrelated processes (0, 5000)
#  4. timer lateness p50/p99/max at 1 kHz
#  5. peak RSS of a RSS_SECONDS (default 600) run at 10 Hz on the simulated NVML
# Environment: RUNS (default 30), RSS_SECONDS (0 skips 5).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
J=$BUILD/joulestat
W=$BUILD/tests/js-work
RUNS=${RUNS:-30}

now_ns() { date +%s%N; }

# median_ms RUNS CMD...: median wall time of CMD in milliseconds.
median_ms() {
	n=$1
	shift
	i=0
	while [ $i -lt "$n" ]; do
		s=$(now_ns)
		"$@" >/dev/null 2>&1
		e=$(now_ns)
		echo $(((e - s) / 1000))
		i=$((i + 1))
	done | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m / 1000 }'
}

echo "== wrapper overhead: median wall time of $RUNS runs (ms)"
if command -v hyperfine >/dev/null 2>&1; then
	set -- true "$J -q -- true"
	[ -x /usr/bin/time ] && set -- "$@" "/usr/bin/time true"
	perf stat true >/dev/null 2>&1 && set -- "$@" "perf stat true"
	hyperfine -N -w 5 -r "$RUNS" --export-json "${TMPDIR:-/tmp}/joulestat-bench.json" "$@" \
	    >/dev/null 2>&1
	awk -F'"' '/"command":/ { c = $4 } /"median":/ { split($0, a, ":"); v = a[2];
	    sub(",", "", v); printf "  %-40s %.3f\n", c, v * 1000 }' "${TMPDIR:-/tmp}/joulestat-bench.json"
	rm -f "${TMPDIR:-/tmp}/joulestat-bench.json"
else
	echo "  (install hyperfine for exact figures; timing with date instead)"
	printf '  %-40s %s\n' "true" "$(median_ms "$RUNS" true)"
	printf '  %-40s %s\n' "$J -q -- true" "$(median_ms "$RUNS" "$J" -q -- true)"
	[ -x /usr/bin/time ] &&
	    printf '  %-40s %s\n' "/usr/bin/time true" "$(median_ms "$RUNS" /usr/bin/time true)"
fi
[ -x /usr/bin/time ] || echo "  /usr/bin/time: not installed (apt-get install time)"
perf stat true >/dev/null 2>&1 || echo "  perf stat: does not work here"

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

for lib in "" "$SIM"; do
	if [ -z "$lib" ]; then
		echo "== joulestat's own CPU, tree of 100 sleeping processes, 3 s, no devices"
	else
		echo "== the same with one simulated GPU (tests/sim, attrib-shared.scn)"
	fi
	for ms in 100 10 1; do
		set -- $(sampler_cpu $lib -i $ms -- "$W" tree 1 99 3s)
		awk -v hz=$((1000 / ms)) -v cpu="$1" -v ticks="$2" -v wall="$3" 'BEGIN {
		    printf "  %4d Hz: %d ticks, own CPU %.3f s over %.2f s = %.2f%% of one core, %.1f us/tick\n",
		    hz, ticks, cpu, wall, 100 * cpu / wall, ticks ? 1e6 * cpu / ticks : 0 }'
	done
done

echo "== per-process polling of one simulated GPU (100 Hz, 3 s): with it, without it"
for scn in attrib-shared bench-nopids; do
	set -- $(NVSIM_SCENARIO=tests/sim/scenarios/$scn.scn sampler_cpu "$SIM" -i 10 -- \
	    "$W" sleep 3s)
	awk -v scn=$scn -v cpu="$1" -v ticks="$2" 'BEGIN {
	    printf "  %-14s %d ticks, %.1f us/tick\n", scn ":", ticks, ticks ? 1e6 * cpu / ticks : 0 }'
done

echo "== tick cost vs tree size (100 Hz, 3 s, sleeping processes)"
for spec in "sleep 3s:1" "tree 1 99 3s:100" "tree 1 999 3s:1000"; do
	set -- $(sampler_cpu -i 10 -- "$W" ${spec%%:*})
	awk -v n="${spec##*:}" -v cpu="$1" -v ticks="$2" -v wall="$3" 'BEGIN {
	    printf "  %5d processes: %d ticks, %.1f us/tick, %.2f%% of one core\n", n, ticks,
	    ticks ? 1e6 * cpu / ticks : 0, 100 * cpu / wall }'
done

echo "== tick cost vs unrelated processes (1 kHz, 2 s, workload: one sleeping process)"
for n in 0 5000; do
	pids=""
	i=0
	while [ $i -lt $n ]; do
		sleep 60 &
		pids="$pids $!"
		i=$((i + 1))
	done
	set -- $(sampler_cpu -i 1 -- "$W" sleep 2s)
	awk -v n=$n -v cpu="$1" -v ticks="$2" 'BEGIN {
	    printf "  %5d unrelated processes: %d ticks, %.1f us/tick\n", n, ticks, ticks ? 1e6 * cpu / ticks : 0 }'
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
done

echo "== timer lateness at 1 kHz, 5 s, one simulated GPU"
set -- $(run_fields late_p50_ms late_p99_ms late_max_ms ticks missed_ticks -- "$SIM" -i 1 -- \
    "$W" sleep 5s)
echo "  p50 $1 ms, p99 $2 ms, max $3 ms over $4 ticks, $5 missed"

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
