#!/bin/bash
# End to end on amdgpu fixture trees (tests/fixtures/drm-amdgpu-*):
# joulestat wraps a workload while the fixture's power and pp_dpm_sclk are
# rewritten, and the CSV summary is compared with what was written.
#
# The DPM test's workload is itself the writer: a script that sets the
# level and the power, sleeps, and logs the time of each change.
# joulestat's first reading comes before the script starts and its last
# one after the script ends, so the first and last phases (the same level
# and power) absorb those edges, and the middle phases are known exactly.
#
# Tolerances use h, the longest possible gap between two readings of the
# run, interval * (1 + missed ticks) + the worst lateness, from the run's
# own CSV row: a straddled change costs at most h/2 of time per P-state
# transition (the man page's split rule) and |dP| * h/2 of energy (the
# trapezoid over a step).  Each test prints its measured error as a "# "
# line (a TAP comment).
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${CSVTOOL:?}"
. "$TOP/tests/fixtures/writer.sh"




# state_time S: time_s of the state row S (e.g. DPM2) of device 0, in $st.
state_time() {
	csv_get s.csv time_s scope=pstate device=0 pstate="$1"
	st=$csv_v
	assert_num "$st" "time_s of $1"
}

SCLK_L0=$'0: 500Mhz *\n1: 1200Mhz \n2: 2304Mhz \n'
SCLK_L2=$'0: 500Mhz \n1: 1200Mhz \n2: 2304Mhz *\n'
SCLK_S=$'S: 19Mhz *\n1: 500Mhz \n2: 1200Mhz \n3: 2304Mhz \n'

# The workload of the DPM test (see the head of this file).
write_phases() {
	cat >phases.sh <<'EOF'
. "$TOP/tests/fixtures/writer.sh"
D=$FX/sys/class/drm/card1/device
P=$D/hwmon/hwmon2/power1_input
sleep 0.6
fx_put "$D/pp_dpm_sclk" "$SCLK_L2"
fx_put "$P" $'250000000\n'
t1=$(fx_now_us)
sleep 0.8
fx_put "$D/pp_dpm_sclk" "$SCLK_S"
fx_put "$P" $'140000000\n'
t2=$(fx_now_us)
sleep 0.6
fx_put "$D/pp_dpm_sclk" "$SCLK_L0"
fx_put "$P" $'100000000\n'
t3=$(fx_now_us)
sleep 0.4
echo "$t1 $t2 $t3" >times
EOF
}

# Level 0 at 100 W, level 2 at 250 W for 0.8 s, deep sleep at 140 W for
# 0.6 s, level 0 at 100 W again, read every 50 ms.
t_dpm_split() {
	fx_copy drm-amdgpu-input
	fx_put "$FX/sys/class/drm/card1/device/pp_dpm_sclk" "$SCLK_L0"
	write_phases
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" FX="$FX" TOP="$TOP" SCLK_L0="$SCLK_L0" \
	    SCLK_L2="$SCLK_L2" SCLK_S="$SCLK_S" "$JOULESTAT" -i 50 --csv=s.csv -- bash phases.sh
	assert_rc 0
	read -r t1 t2 t3 <times || fail "the workload left no times"
	gap_bound
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	t_l2=$(calc "($t2 - $t1) / 1e6")
	t_s=$(calc "($t3 - $t2) / 1e6")
	t_l0=$(calc "$w - $t_l2 - $t_s")
	# Two transitions per state: h/2 each, plus 5 ms for a write's own delay.
	tol=$(calc "$h + 0.005")
	state_time DPM2
	note "DPM2 $st s vs $t_l2 s, deep sleep and DPM0 below; h = $h s"
	assert_near "$st" "$t_l2" "$tol" "time at level 2"
	state_time deep-sleep
	note "deep sleep $st s vs $t_s s"
	assert_near "$st" "$t_s" "$tol" "time in deep sleep"
	state_time DPM0
	note "DPM0 $st s vs $t_l0 s"
	assert_near "$st" "$t_l0" "$tol" "time at level 0"
	# Energy: the trapezoid of the readings against the steps written.
	e_truth=$(calc "100 * $t_l0 + 250 * $t_l2 + 140 * $t_s")
	csv_get s.csv energy_j scope=device device=0
	e=$csv_v
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" readings "energy method"
	e_tol=$(calc "(150 + 110 + 40) * $h / 2 + 0.005 * 250 * 2")
	note "energy $e J vs $e_truth J = $(calc "100 * ($e - $e_truth) / $e_truth")% (tolerance $e_tol J)"
	assert_near "$e" "$e_truth" "$e_tol" "energy"
	csv_get s.csv peak_power_w scope=device device=0
	assert_near "$csv_v" 250 0.001 "peak power"
	csv_get s.csv power_kind scope=device device=0
	assert_eq "$csv_v" instant "power kind"
	assert_match err '^   deep-sleep .* [0-9.]+ +140\.[0-9] '
	assert_match err 'note: states are the DPM levels of pp_dpm_sclk'
}

# power1_average only, constant 33 W at level 5 of eight: the energy is
# exact (a trapezoid of a constant), all the time at P5.
t_power_average() {
	fx_copy drm-amdgpu-avg
	fx_put "$FX/sys/class/drm/card0/device/pp_dpm_sclk" \
	    $'0: 300Mhz \n1: 600Mhz \n2: 900Mhz \n3: 1145Mhz \n4: 1215Mhz \n5: 1257Mhz *\n6: 1300Mhz \n7: 1366Mhz \n'
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- "$JS_WORK" sleep 1s
	assert_rc 0
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv energy_j scope=device device=0
	note "energy $csv_v J vs $(calc "33 * $w") J"
	assert_near "$csv_v" "$(calc "33 * $w")" 0.01 "energy at 33 W"
	state_time DPM5
	assert_eq "$st" "$w" "time at level 5"
	csv_get s.csv avg_sm_mhz scope=pstate device=0 pstate=DPM5
	# The clock comes from hwmon freq1_input (300 MHz) when it exists.
	assert_near "$csv_v" 300 0.5 "clock"
	csv_get s.csv power_kind scope=device device=0
	assert_eq "$csv_v" average-firmware "power kind of a firmware average"
	assert_match err 'note: power is hwmon power1_average'
}

# A table that marks no line, as one that is not fine-grained does (it marks
# exact matches only) while hwmon freq1_input reads 1904 MHz: level 2, and
# a note says the level came from the clock (before: all unknown).
t_level_by_clock() {
	fx_copy drm-amdgpu-avg
	fx_put "$FX/sys/class/drm/card0/device/pp_dpm_sclk" $'0: 300Mhz \n1: 1000Mhz \n2: 1905Mhz \n'
	fx_set "$FX/sys/class/drm/card0/device/hwmon/hwmon0/freq1_input" 1904000000
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- "$JS_WORK" sleep 300ms
	assert_rc 0
	csv_get s.csv time_s scope=device device=0
	state_time DPM2
	assert_eq "$st" "$csv_v" "time at level 2"
	assert_match err 'note: P-state of [0-9]+ readings? from .*freq1_input, as .*pp_dpm_sclk marked no level'
}

# A table the parser refuses, or no current line and a clock between the
# levels of three: the P-state is unknown for that time, never a made-up
# level (two unmarked levels are Navi 1x at its top one: drm_real.sh).
t_unknown_level() {
	fx_copy drm-amdgpu-avg
	fx_put "$FX/sys/class/drm/card0/device/pp_dpm_sclk" $'0: 300Mhz \n1: 600Mhz \n2: 900Mhz \n'
	fx_set "$FX/sys/class/drm/card0/device/hwmon/hwmon0/freq1_input" 450000000
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- "$JS_WORK" sleep 300ms
	assert_rc 0
	csv_get s.csv time_share scope=pstate device=0 pstate=unknown
	assert_eq "$csv_v" 1.000000 "share of unknown"
}

# amdgpu of early 6.6 kernels printed a failed power read as 4294967295 µW:
# no reading, not 4.3 kW (before: 1294.6 J for 0.3 s, "4295.0 W").  With
# -r, each run's report notes its own failed reads, once (before: run 1's
# JSON held the notes of all three runs, "6", "12" and "18 readings").
t_power_failed_read() {
	fx_copy drm-amdgpu-avg
	fx_set "$FX/sys/class/drm/card0/device/hwmon/hwmon0/power1_average" 4294967295
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- "$JS_WORK" sleep 300ms
	assert_rc 0
	csv_get s.csv energy_j scope=device device=0
	assert_eq "$csv_v" "" "energy when every power reading failed"
	csv_get s.csv peak_power_w scope=device device=0
	assert_eq "$csv_v" "" "peak power when every power reading failed"
	assert_match err 'note: [0-9]+ readings? of .*power1_average at 2\.1 kW or more'
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -q -r 3 -i 50 --json=r.json -- \
	    "$JS_WORK" sleep 300ms
	assert_rc 0
	for r in 0 1 2; do
		n=$("$JSONTOOL" get r.json ".runs[$r].devices[0].notes" | grep -o '2\.1 kW' | wc -l)
		assert_eq "$n" 1 "run $((r + 1)): notes of failed power reads"
	done
}

# Failed reads during --idle-baseline are the baseline's: said as such in
# every run's notes, and not counted in run 1's (before: run 1 said "7
# readings ... at 2.1 kW or more", the baseline's 6 and its own first).
# The power reads 2^32-1 µW until the workload writes 50 W.
t_baseline_notes() {
	fx_copy drm-amdgpu-avg
	P=$FX/sys/class/drm/card0/device/hwmon/hwmon0/power1_average
	fx_set "$P" 4294967295
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -q -r 2 -i 50 --idle-baseline=0.3 \
	    --json=r.json -- sh -c "printf '50000000\n' >$P; sleep 0.3"
	assert_rc 0
	for r in 0 1; do
		"$JSONTOOL" get r.json ".runs[$r].devices[0].notes" >notes
		n=$(grep -Eo 'during --idle-baseline, [0-9]+ readings? of [^ ]*power1_average at 2\.1 kW' notes |
		    grep -Eo '[0-9]+ reading' | grep -Eo '[0-9]+')
		note "run $((r + 1)): baseline's failed reads: ${n:-none}"
		assert_ge "${n:-0}" 3 "run $((r + 1)): the baseline's failed reads, said as its own"
		own=$(grep -v 'during --idle-baseline' notes | grep -Eo '[0-9]+ readings? of [^ ]* at 2\.1 kW' |
		    grep -Eo '^[0-9]+')
		assert_le "${own:-0}" 2 "run $((r + 1)): its own failed reads"
	done
}

# A dGPU runtime-suspended for 1.5 s in the middle of a 100 W run: amdgpu
# answers EPERM for power and pp_dpm_sclk then (written here as empty
# files, which read as failed reads too), and power/runtime_status says
# "suspended".  The stretch's energy belongs to the states of its time
# (before: the unknown state got 77.5 J over 25 ms, "3107.0 W"), and what
# a sleeping card drew lies between none and the awake power around it:
# half of it is counted, and the bound reaches both ends (before: 250.7 J
# "± 0.000", as if the card had drawn 100 W asleep).
t_asleep() {
	fx_copy drm-amdgpu-input
	D=$FX/sys/class/drm/card1/device
	cat >asleep.sh <<-EOF
	sleep 0.5
	: >$D/hwmon/hwmon2/power1_input
	: >$D/hwmon/hwmon2/power1_average
	: >$D/pp_dpm_sclk
	printf 'suspended\\n' >$D/power/runtime_status
	sleep 1.5
	printf '100000000\\n' >$D/hwmon/hwmon2/power1_input
	printf '100000000\\n' >$D/hwmon/hwmon2/power1_average
	printf '0: 500Mhz *\\n1: 1200Mhz \\n2: 2304Mhz \\n' >$D/pp_dpm_sclk
	printf 'active\\n' >$D/power/runtime_status
	sleep 0.5
	EOF
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- bash asleep.sh
	assert_rc 0
	assert_match err 'note: runtime-suspended at [0-9]+ readings \(1\.[4-6] s\)'
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv energy_j scope=device device=0
	e=$csv_v
	csv_get s.csv energy_err_j scope=device device=0
	err=$csv_v
	note "device: $e J ± $err J over $w s"
	# Truth: 100 W awake (about 1 s), between 0 and 100 W asleep (1.5 s).
	assert_le "$(calc "$e - $err")" "$(calc "100 * ($w - 1.5) + 5")" "the bound's low end"
	assert_ge "$(calc "$e + $err")" "$(calc "100 * $w - 5")" "the bound's high end"
	assert_ge "$(calc "$e - $err")" "$(calc "100 * ($w - 1.6) - 5")" "the bound's low end"
	csv_get s.csv energy_j scope=pstate device=0 pstate=DPM0
	e0=$csv_v
	csv_get s.csv time_s scope=pstate device=0 pstate=DPM0
	note "DPM0: $e0 J over $csv_v s"
	assert_near "$(calc "$e0 / $csv_v")" 100 5 "power of DPM0, awake"
	csv_get s.csv energy_j scope=pstate device=0 pstate=unknown
	eu=$csv_v
	csv_get s.csv time_s scope=pstate device=0 pstate=unknown
	note "unknown (asleep): $eu J over $csv_v s"
	assert_near "$(calc "$eu / $csv_v")" 50 5 "power of the stretch asleep, half the awake power"
	assert_near "$(calc "$e0 + $eu")" "$e" 0.01 "the states' energy against the device's"
}

t_run "DPM levels and deep sleep: time split and energy against the writer" t_dpm_split
t_run "power1_average only: energy and level at constant power" t_power_average
t_run "no current DPM line: the level the hwmon clock matches" t_level_by_clock
t_run "no current DPM line, a clock between levels: unknown, not a level" t_unknown_level
t_run "a power reading of 2^32-1 µW is a failed read" t_power_failed_read
t_run "failed reads during --idle-baseline are the baseline's, not run 1's" t_baseline_notes
t_run "runtime-suspended for 1.5 s: counted between none and the awake power, by state" t_asleep
t_done
