#!/bin/bash
# The DRM backend on trees copied from real cards (tests/fixtures/lact-*,
# LACT's snapshots of users' machines; tests/fixtures/README): the xe card
# of Linux 6.16 whose card energy counter reads 0 while the package one
# grows; an RDNA3 card whose fine-grained sclk table shows deep sleep as
# "1: 0Mhz *", asleep and awake; an amdgpu SI card whose pp_dpm_sclk is
# empty; a board without a product name; Navi 10 at its top clock; RDNA4's
# "S:" line.  Values are rewritten in place (tests/fixtures/writer.sh) with as
# many digits, so no read sees an empty file.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${CSVTOOL:?}"
. "$TOP/tests/fixtures/writer.sh"

B580_PKG=29523753173	# µJ, energy2_input as captured

b580_tick() {
	fx_put "$E" "$((B580_PKG + 90 * ($1 - t0)))"$'\n'
}

# The card counter reads 0: the package counter is used, and said so.
t_xe_zero_card() {
	fx_copy lact-b580
	E=$FX/sys/class/drm/card1/device/hwmon/hwmon4/energy2_input
	t0=$(fx_now_us)
	fx_loop b580_tick
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 1s
	fx_stop
	assert_rc 0
	assert_match err 'note: energy is the package counter \(energy2_input\): the card counter \(energy1_input\) reads 0'
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" counter "energy method"
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv energy_j scope=device device=0
	e_truth=$(calc "90 * $w")
	note "energy $csv_v J vs $e_truth J (writer gap $fx_gap_s s)"
	assert_near "$csv_v" "$e_truth" "$(calc "90 * ($fx_gap_s + 0.002) + 0.002")" "energy at 90 W"
}

# share STATE: the time share of STATE on device 0 in ./s.csv, or "" if none.
share() {
	share_v=$("$CSVTOOL" get s.csv time_share scope=pstate device=0 pstate="$1" 2>/dev/null)
}

# RX 7600S: asleep, its table says "1: 0Mhz *"; at work, "1: <clock> *".
t_rdna_fine_grained() {
	fx_copy lact-rx7600s
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 0.3s
	assert_rc 0
	share deep-sleep
	assert_eq "$share_v" 1.000000 "asleep: all of the run in deep sleep"
	share DPM1
	assert_eq "$share_v" "" "asleep is not DPM1"
	# Awake at 1841 MHz, the middle line of the same fine-grained table.
	fx_set "$FX/sys/class/drm/card1/device/pp_dpm_sclk" $'0: 255Mhz\n1: 1841Mhz *\n2: 1841Mhz'
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 0.3s
	share DPM1
	assert_eq "$share_v" 1.000000 "awake at work: DPM1"
	share deep-sleep
	assert_eq "$share_v" "" "awake is not deep sleep"
}

# An empty pp_dpm_sclk (amdgpu on SI) is no P-state source.
t_empty_dpm() {
	fx_copy lact-r9-280
	! grep -q Mhz "$FX/sys/class/drm/card0/device/pp_dpm_sclk" || fail "the captured table has levels"
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out 'driver amdgpu'
	assert_no_match out 'pstate=|mem-clock=|DPM levels'
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 0
	[ "$("$CSVTOOL" count s.csv scope=pstate)" = 0 ] || fail "P-state rows from an empty table"
}

# RX 6900 XT (1002:73bf): product_name is "\n" and then NUL bytes (as
# captured: the other files are padded alike).  Its line is empty, so the
# board has no product name: the PCI ID database's name is used.
t_empty_product_name() {
	fx_copy lact-rx6900xt
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out '^0: AMD Navi 21 .*  0000:0c:00.0$'
}

# RX 5700 XT (Navi 10): at its top clock navi10_print_clk_levels prints the
# fine-grained sclk table as two lines and marks neither; its hwmon clock,
# an average, reads 10 MHz and names no level.  The top level, said so
# (before: the whole run's state unknown, with no word of why).
t_navi10_top_unmarked() {
	fx_copy lact-rx5700xt
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 0.3s
	assert_rc 0
	share DPM1
	assert_eq "$share_v" 1.000000 "the top level, DPM1"
	share unknown
	assert_eq "$share_v" "" "no unknown state"
	assert_match err 'note: P-state of [0-9]+ readings taken as the top level: pp_dpm_sclk listed two levels and marked neither'
}

# RX 9070 XT (RDNA4): "S: 19Mhz *" above levels 0 to 3: deep sleep.
t_rdna4_deep_sleep() {
	fx_copy lact-rx9070xt
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 0.3s
	assert_rc 0
	share deep-sleep
	assert_eq "$share_v" 1.000000 "deep sleep share"
}

t_run "xe on 6.16: card energy counter 0, the package one used" t_xe_zero_card
t_run "RDNA3 fine-grained sclk: deep sleep and DPM1" t_rdna_fine_grained
t_run "SI: an empty pp_dpm_sclk is no P-state source" t_empty_dpm
t_run "RX 6900 XT: an empty product_name is no name" t_empty_product_name
t_run "Navi 10: two unmarked sclk levels are the top one" t_navi10_top_unmarked
t_run "RDNA4: a marked S: line is deep sleep" t_rdna4_deep_sleep
t_done
