#!/bin/bash
# End to end on the i915 and xe fixture trees (tests/fixtures/drm-i915,
# drm-xe): a background writer advances the hwmon energy counter and the
# RC6 / gt-idle residency at known rates while joulestat wraps a workload,
# and, for xe, the workload's own fdinfo (drm-cycles against
# drm-total-cycles, with engine capacities).  The CSV summary is compared
# with the rates.
#
# Tolerances.  The writer updates every ~10 ms; g is the longest gap it
# really had.  A counter read by joulestat is stale by at most g, so the
# energy of the window is off by at most P * g (both ends are stale the
# same way).  The RC6 share follows the residency within about one
# interval (drm_dither_step), plus g.  Counter values are written in place
# with as many digits each time, so no read sees an empty file.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${CSVTOOL:?}"
. "$TOP/tests/fixtures/writer.sh"




# check_energy WATTS: device 0's energy against WATTS over its window.
check_energy() {
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv energy_j scope=device device=0
	e=$csv_v
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" counter "energy method"
	e_truth=$(calc "$1 * $w")
	e_tol=$(calc "$1 * ($fx_gap_s + 0.002) + 0.002")
	note "energy $e J vs $e_truth J = $(calc "100 * ($e - $e_truth) / $e_truth")%" \
	    "(tolerance $e_tol J; writer gap $fx_gap_s s)"
	assert_near "$e" "$e_truth" "$e_tol" "energy at $1 W"
}

# check_rc6 FRACTION: the share of RC6 against the residency's rate.
check_rc6() {
	gap_bound
	csv_get s.csv time_share scope=pstate device=0 pstate=RC6
	share=$csv_v
	tol=$(calc "(0.75 * $h + $fx_gap_s + 0.002) / $w")
	note "RC6 share $share vs $1 (tolerance $tol; h = $h s)"
	assert_near "$share" "$1" "$tol" "RC6 share"
	csv_get s.csv time_share scope=pstate device=0 pstate=awake
	assert_near "$csv_v" "$(calc "1 - $share")" 0.000002 "awake share"
}

# ---- i915 ------------------------------------------------------------------

I915_E=1000000000000	# µJ, as in the fixture
I915_RC6=1000000	# ms

i915_tick() {
	d=$(($1 - t0))
	fx_put "$E" "$((I915_E + 120 * d))"$'\n'
	fx_put "$R" "$((I915_RC6 + d / 4000))"$'\n'
}

# 120 W, asleep (RC6) a quarter of the time.
t_i915() {
	fx_copy drm-i915
	E=$FX/sys/class/drm/card0/device/hwmon/hwmon3/energy1_input
	R=$FX/sys/class/drm/card0/power/rc6_residency_ms
	t0=$(fx_now_us)
	fx_loop i915_tick
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 2s
	fx_stop
	assert_rc 0
	check_energy 120
	check_rc6 0.25
	csv_get s.csv peak_power_w scope=device device=0
	assert_eq "$csv_v" "" "peak power without power readings"
	assert_match err 'note: states are awake and RC6 \(asleep\)'
}

# A counter that goes backwards (driver reload) is a reset, not a huge delta.
# The counter drops once ./reset exists: after joulestat's first reading,
# however slowly it started (under valgrind, say).
i915_reset_tick() {
	d=$(($1 - t0))
	if [ ! -e "$T/reset" ]; then
		fx_put "$E" "$((I915_E + 120 * d))"$'\n'
	else
		fx_put "$E" "$((I915_E / 2 + 120 * d))"$'\n'
	fi
}

t_i915_reset() {
	fx_copy drm-i915
	E=$FX/sys/class/drm/card0/device/hwmon/hwmon3/energy1_input
	t0=$(fx_now_us)
	fx_loop i915_reset_tick
	spawn env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" -p pid sleep 1200ms
	# The workload runs, so the first reading has been taken.
	wait_file pid
	: >"$T/reset"
	reap
	fx_stop
	assert_rc 0
	csv_get s.csv energy_j scope=device device=0
	e=$csv_v
	csv_get s.csv time_s scope=device device=0
	# One interval is lost to the reset, at most h at 120 W.
	note "energy $e J around a reset, vs at most $(calc "120 * $csv_v") J"
	assert_le "$e" "$(calc "120 * $csv_v + 1")" "energy across a reset"
	assert_ge "$e" "$(calc "120 * ($csv_v - 0.2) - 1")" "energy across a reset"
	assert_match err 'counter resets +1 '
}

# ---- xe --------------------------------------------------------------------

XE_E=1000000000000	# µJ
XE_IDLE=1000000		# ms
XE_TOTAL=10000000000000	# GPU timestamp, 1 GHz here
XE_BUSY=1000000000000	# busy-cycle counters start here

# Runs in the writer's subshell, which keeps tc and FDI between calls.
xe_tick() {
	d=$(($1 - t0))
	fx_put "$E" "$((XE_E + 90 * d))"$'\n'
	fx_put "$R" "$((XE_IDLE + d * 3 / 5000))"$'\n'
	if [ -z "${tc:-}" ]; then
		[ -s pid ] && read -r xp <pid && [ -d "proc/$xp/fdinfo" ] || return 0
		tc=$1
		FDI=proc/$xp/fdinfo
	fi
	# Since the fdinfo appeared: rcs 40 %, bcs 10 %, ccs 2 of 4 engines.
	c=$((($1 - tc) * 1000))
	fx_fdinfo xe.fdinfo "$FDI/7" PDEV=0000:04:00.0 ID=17 TOTAL=$((XE_TOTAL + c)) \
	    RCS=$((XE_BUSY + c * 2 / 5)) BCS=$((XE_BUSY + c / 10)) CCS=$((XE_BUSY + c * 2))
}

# 90 W card energy, gt-idle 60 % of the time, one client of the workload.
# The writer runs from before joulestat starts, as in the i915 test; the
# client's file appears once the workload's pid is known.
t_xe() {
	fx_copy drm-xe
	mkdir proc
	E=$FX/sys/class/drm/card0/device/hwmon/hwmon4/energy1_input
	R=$FX/sys/class/drm/card0/device/tile0/gt0/gtidle/idle_residency_ms
	tc=
	t0=$(fx_now_us)
	fx_loop xe_tick
	spawn env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_PROC_ROOT="$PWD/proc" \
	    "$JOULESTAT" -i 50 --csv=s.csv -- "$JS_WORK" -p pid sleep 2500ms
	wait_file pid
	pid=$t_file_pid
	mkdir -p "proc/$pid/fdinfo.new"
	cp "$TOP/tests/fixtures/proc-drm/socket.fdinfo" "proc/$pid/fdinfo.new/0"
	cp "$TOP/tests/fixtures/proc-drm/socket.fdinfo" "proc/$pid/fdinfo.new/1"
	mv "proc/$pid/fdinfo.new" "proc/$pid/fdinfo"
	reap
	fx_stop
	assert_rc 0
	check_energy 90
	check_rc6 0.6
	# Per process: the busiest non-copy class (ccs, 2 of 4 engines), and bcs.
	csv_get s.csv sm_pct scope=process device=0 pid="$pid"
	note "process SM% $csv_v vs 50, mem% below"
	assert_near "$csv_v" 50 1 "SM% of the client"
	csv_get s.csv mem_pct scope=process device=0 pid="$pid"
	note "process mem% $csv_v vs 10"
	assert_near "$csv_v" 10 1 "mem% of the client"
	csv_get s.csv gpu_mem_kib scope=process device=0 pid="$pid"
	assert_eq "$csv_v" 23992 "device memory of the client"
}

t_run "i915: energy counter and RC6 residency against the writer" t_i915
t_run "i915: an energy counter that goes backwards is a reset" t_i915_reset
t_run "xe: card energy, gt-idle and a client's cycles against the writer" t_xe
t_done
