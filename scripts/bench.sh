#!/bin/sh
# make bench: prints figures, asserts nothing.  Medians of repeated runs.
#  1. wrapper overhead: joulestat -q -- true vs /usr/bin/time true vs perf stat true vs true
#  2. joulestat's own CPU time while wrapping a 100-process sleeping tree at 10/100/1000 Hz
#  3. tick cost with 0 vs 5000 unrelated sleeping processes on the machine
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

# sampler_cpu ARGS...: joulestat's own CPU seconds (sampler_cpu_s) for one run.
sampler_cpu() {
	"$J" -x, "$@" 2>&1 >/dev/null | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	    $2 == "\"run\"" || $2 == "run" { print $c["sampler_cpu_s"], $c["ticks"], $c["wall_s"] }'
}

echo "== joulestat's own CPU while wrapping a tree of 100 sleeping processes for 3 s"
for ms in 100 10 1; do
	set -- $(sampler_cpu -i $ms -- "$W" tree 1 99 3s)
	awk -v hz=$((1000 / ms)) -v cpu="$1" -v ticks="$2" -v wall="$3" 'BEGIN {
	    printf "  %4d Hz: %d ticks, own CPU %.3f s over %.2f s = %.2f%% of one core, %.1f us/tick\n",
	    hz, ticks, cpu, wall, 100 * cpu / wall, ticks ? 1e6 * cpu / ticks : 0 }'
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
