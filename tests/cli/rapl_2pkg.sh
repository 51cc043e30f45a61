#!/bin/bash
# End to end on the two-package RAPL fixture (tests/fixtures/rapl-2pkg): a
# background writer advances the four zones' energy_uj at known powers,
# two of them past max_energy_range_uj, while joulestat wraps a workload;
# each device's energy is compared with power * window.
#
# Tolerances.  g is the longest gap of the writer (~10 ms).  A zone whose
# value keeps its number of digits is rewritten in place, and its energy is
# off by at most P * g.  A wrapping zone's value shrinks, so it is
# truncated and rewritten: a read may then see an empty file, which holds
# the counter until the next read catches up; if that was the first or the
# last read of the run, one more interval h is lost: P * (g + h).  A wrap
# that was missed would be off by the whole range (50 J, 3 J here).
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${CSVTOOL:?}"
. "$TOP/tests/fixtures/writer.sh"



PC=fx/sys/class/powercap
R0=50000000		# package-0: a 50 J range, wraps every 0.77 s at 65 W
RD1=65712999613		# dram of package-1: the fixture's range
SD1=$((RD1 - 3000000))	# ... starting 3 J below it: wraps after 0.5 s at 6 W

rapl_tick() {
	d=$(($1 - t0))
	fx_set "$PC/intel-rapl:0/energy_uj" "$(((65 * d) % R0))"
	fx_put "$PC/intel-rapl:0:0/energy_uj" "$((1000000000 + 8 * d))"$'\n'
	fx_put "$PC/intel-rapl:1/energy_uj" "$((1000000000 + 40 * d))"$'\n'
	fx_set "$PC/intel-rapl:1:0/energy_uj" "$(((SD1 + 6 * d) % RD1))"
}

# check DEV ID WATTS EXTRA: device DEV is zone ID, its energy is WATTS over
# its window within WATTS * (g + EXTRA s) + 2 mJ.
check() {
	csv_get s.csv device_id scope=device device="$1"
	assert_eq "$csv_v" "$2" "device $1"
	csv_get s.csv time_s scope=device device="$1"
	w=$csv_v
	csv_get s.csv energy_j scope=device device="$1"
	e=$csv_v
	csv_get s.csv energy_method scope=device device="$1"
	assert_eq "$csv_v" counter "energy method of $2"
	e_truth=$(calc "$3 * $w")
	e_tol=$(calc "$3 * ($fx_gap_s + $4) + 0.002")
	note "$2: $e J vs $e_truth J = $(calc "100 * ($e - $e_truth) / $e_truth")% (tolerance $e_tol J)"
	assert_near "$e" "$e_truth" "$e_tol" "energy of $2"
	csv_get s.csv avg_power_w scope=device device="$1"
	assert_near "$csv_v" "$3" "$(calc "$e_tol / $w + 0.001")" "average power of $2"
}

t_two_packages() {
	fx_copy rapl-2pkg
	fx_set "$PC/intel-rapl:0/max_energy_range_uj" "$R0"
	t0=$(fx_now_us)
	rapl_tick "$t0"
	fx_loop rapl_tick
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 2500ms
	fx_stop
	assert_rc 0
	csv_get s.csv interval_ms scope=run
	h=$(calc "$csv_v / 1000")
	csv_get s.csv late_max_ms scope=run
	h=$(calc "$h + $csv_v / 1000")
	check 0 package-0 65 "$h + 0.002"
	check 1 package-0/dram 8 0.002
	check 2 package-1 40 0.002
	check 3 package-1/dram 6 "$h + 0.002"
	# Energy only: no power readings, no P-state.
	csv_get s.csv peak_power_w scope=device device=0
	assert_eq "$csv_v" "" "peak power"
	assert_no_match err 'wraps may have been missed'
}

# A -i longer than a counter may go without a read is shortened, and said.
# The fixture's smallest range over twice its zone's maximum power is about
# 33 s: the 60 s asked for must become less than that.
t_interval_fits_counters() {
	try env JOULESTAT_SYSFS_ROOT="$TOP/tests/fixtures/rapl-2pkg/sys" "$JOULESTAT" -i 60000 \
	    --csv=s.csv -- true
	assert_rc 0
	csv_get s.csv interval_ms scope=run
	assert_le "$csv_v" 40000 "interval_ms"
	assert_ge "$csv_v" 1000 "interval_ms"
	assert_match err "sampling every $csv_v ms, not 60000 ms, so that the counter of .* is read before it can wrap"
	try env JOULESTAT_SYSFS_ROOT="$TOP/tests/fixtures/rapl-2pkg/sys" "$JOULESTAT" -i 1000 \
	    --csv=s.csv -- true
	csv_get s.csv interval_ms scope=run
	assert_eq "$csv_v" 1000 "a short enough interval is kept"
}

# package-1's energy_uj reads empty for a second in the middle (the writer
# truncates it; a read then fails): the readings of that stretch give no
# energy, so the timeline's cumulative energy is empty there rather than
# standing still as if the package drew 0 W (before: 20 rows at the last
# value; -I's lines said "J so far" of that value), and the first good
# reading's delta covers the whole stretch.
rapl_tick_gap() {
	d=$(($1 - t0))
	if [ "$d" -ge 800000 ] && [ "$d" -lt 1800000 ]; then
		: >"$PC/intel-rapl:1/energy_uj"
	else
		fx_put "$PC/intel-rapl:1/energy_uj" "$((1000000000 + 40 * d))"$'\n'
	fi
}

t_failed_reads() {
	fx_copy rapl-2pkg
	t0=$(fx_now_us)
	rapl_tick_gap "$t0"
	fx_loop rapl_tick_gap
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 -I 100 --csv=s.csv \
	    --timeline=t.csv -- "$JS_WORK" sleep 2500ms
	fx_stop
	assert_rc 0
	check 2 package-1 40 0.002
	assert_match err 'note: 1[5-9] readings of intel-rapl:1/energy_uj failed; the next good reading.s delta covers them|note: 2[0-5] readings of intel-rapl:1/energy_uj failed'
	# The rows well inside the stretch: the run starts after the writer's t0
	# (long after it under valgrind), at its start_unix_s.
	csv_get s.csv start_unix_s scope=run
	off=$(calc "$csv_v - $t0 / 1000000")
	held=$(awk -F, -v a="$(calc "0.95 - $off")" -v b="$(calc "1.6 - $off")" \
	    '$4 == 2 && $3 > a && $3 < b { n++; if ($8 != "") bad++ }
	    END { print n + 0, bad + 0 }' t.csv)
	note "rows of package-1 inside the stretch, and of them with an energy: $held"
	assert_ge "${held% *}" 10 "rows inside the stretch"
	assert_eq "${held#* }" 0 "rows inside the stretch with an energy"
	sorted=$(awk -F, '$4 == 2 && $8 != "" { if ($8 + 0 < prev) bad = 1; prev = $8 }
	    END { print bad + 0 }' t.csv)
	assert_eq "$sorted" 0 "package-1's energy never goes down"
	# -I says the same: the figure it gives is from before the failed reads.
	assert_match err 'device 2 \([^)]*\): power unknown, [0-9.]+ J before reads failed \(counter\)'
	last=$(awk -F, '$4 == 2 && $8 != "" { e = $8 } END { print e }' t.csv)
	csv_get s.csv energy_j scope=device device=2
	assert_near "$last" "$csv_v" 0.000002 "last timeline energy vs summary"
}

t_run "two packages and their DRAM, two counters wrapping" t_two_packages
t_run "reads failing for a second: no energy at those rows, the next delta covers them" \
    t_failed_reads
t_run "a long interval is shortened for counters that wrap" t_interval_fits_counters
t_done
