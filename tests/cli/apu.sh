#!/bin/bash
# An AMD APU beside its CPU package counter (tests/fixtures/apu-rapl: the
# Phoenix capture of LACT, whose hwmon shows vddnb as amdgpu does only on
# APUs, and an AMD Zen powercap tree).  amdgpu's power1 (PPT) on an APU is
# the whole SoC, CPU cores included, so the all-devices totals count the
# SoC power and not the package counter on top of it; on a discrete GPU
# (the same tree without vddnb) both are added.  The SoC draws 40 W (a
# fixed power1_input) and the package counter grows at 30 W: a total that
# counted both would be 70 W over the window.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${CSVTOOL:?}"
. "$TOP/tests/fixtures/writer.sh"

# Names from the ids alone (names.sh tests the PCI ID database's).
export JOULESTAT_LIBPCI=/nonexistent/libpci.so.3

HW=fx/sys/class/drm/card1/device/hwmon/hwmon6
PKG=fx/sys/class/powercap/intel-rapl:0/energy_uj

pkg_tick() {
	fx_put "$PKG" "$((10000000000 + 30 * ($1 - t0)))"$'\n'
}

# run_apu ARGS...: the fixture at 40 W SoC and 30 W package, joulestat ARGS
# wrapping a 1 s workload, with the summary in s.csv.
run_apu() {
	fx_set "$HW/power1_input" 40000000
	t0=$(fx_now_us)
	pkg_tick "$t0"
	fx_loop pkg_tick
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv "$@" -- \
	    "$JS_WORK" sleep 1s
	fx_stop
}

# fig DEV COLUMN: the device row's figure in $v.
fig() {
	csv_get s.csv "$2" scope=device device="$1"
	v=$csv_v
}

t_list() {
	fx_copy apu-rapl
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out '^0: AMD APU 1002:15bf \(SoC\)'
	assert_match out 'note: an APU: power \(hwmon power1, PPT\) is the whole SoC.s, the CPU cores included'
	assert_match out '^1: CPU package 0 +package-0'
	# Without vddnb the same card is a GPU, named and noted as one.
	rm "$HW/in1_label"
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --list-devices
	assert_match out '^0: AMD GPU 1002:15bf  '
	assert_no_match out 'APU|SoC'
}

t_totals() {
	fx_copy apu-rapl
	run_apu --max-energy=1000 --max-avg-power=1000
	assert_rc 0
	fig 0 energy_j
	e_soc=$v
	fig 0 time_s
	assert_near "$e_soc" "$(calc "40 * $v")" 0.002 "SoC energy at 40 W"
	fig 1 energy_j
	e_pkg=$v
	fig 1 time_s
	assert_near "$e_pkg" "$(calc "30 * $v")" "$(calc "30 * ($fx_gap_s + 0.002) + 0.002")" \
	    "package energy at 30 W"
	fig 1 within_device
	assert_eq "$v" 0 "the package is within device 0"
	fig 0 within_device
	assert_eq "$v" "" "the SoC is within nothing"
	note "SoC $e_soc J, package $e_pkg J"
	csv_get s.csv gate_measured scope=gate gate=--max-energy
	assert_near "$csv_v" "$e_soc" 0.000001 "all-devices energy is the SoC's alone"
	csv_get s.csv gate_measured scope=gate gate=--max-avg-power
	assert_near "$csv_v" 40 0.01 "all-devices average power is the SoC's alone"
	assert_match err '^ +1 CPU package not added: within an APU.s SoC power$'
	assert_match err 'all-devices totals +not added: the SoC power of device 0'
	# The JSON says the same.
	run_apu --json=s.json
	assert_rc 0
	python3 -c 'import json, sys
devs = json.load(open("s.json"))["runs"][0]["devices"]
w = [d["within_device"] for d in devs if d["backend"] == "rapl" and "package" in d["id"]]
sys.exit(0 if w == [0] else "within_device of the packages: %r" % w)' ||
	    fail "JSON within_device of the package"
}

t_gate_fails_on_soc_alone() {
	fx_copy apu-rapl
	# 40 W * 1 s is under 55 J; 70 W * 1 s would not be.
	run_apu --max-energy=55
	assert_rc 0
	csv_get s.csv gate_verdict scope=gate gate=--max-energy
	assert_eq "$csv_v" pass "the limit holds for the SoC's 40 J"
}

# A discrete GPU (no vddnb): its power is its own, and both are added.
t_dgpu_adds_up() {
	fx_copy apu-rapl
	rm "$HW/in1_label" "$HW/in1_input"
	run_apu --max-energy=1000
	assert_rc 0
	fig 0 energy_j
	e0=$v
	fig 1 energy_j
	e1=$v
	fig 1 within_device
	assert_eq "$v" "" "a discrete GPU holds no package"
	csv_get s.csv gate_measured scope=gate gate=--max-energy
	assert_near "$csv_v" "$(calc "$e0 + $e1")" 0.000002 "both added"
	assert_no_match err 'not added'
}

t_merge() {
	fx_copy apu-rapl
	run_apu
	assert_rc 0
	fig 0 energy_j
	e_soc=$v
	try "$JOULESTAT" merge s.csv --csv m.csv --json m.json
	assert_rc 0
	assert_match out 'counted once +1 CPU package not added: within an APU.s SoC power'
	assert_match out '^ job total \(1 device measurement, each counted once\)$'
	csv_get m.csv energy_j scope=job
	assert_near "$csv_v" "$e_soc" 0.000002 "job energy is the SoC's alone"
	python3 -c 'import json, sys
n = json.load(open("m.json"))["totals"]["devices_within_another"]
sys.exit(0 if n == 1 else "devices_within_another: %r" % n)' || fail "merge JSON: devices_within_another"
	assert_no_match out 'the others have no figure'
}

# mi300_shape ID: the tree as an Instinct MI300 shows it (amdgpu_pm.c's
# hwmon_attributes_visible for GC 9.4.3): power1_input alone, no vddgfx,
# vddnb or edge temperature, under PCI id 1002:ID.
mi300_shape() {
	rm -f "$HW"/in[01]_* "$HW/power1_average" "$HW/power1_label" "$HW"/temp1_*
	D=fx/sys/class/drm/card1/device
	printf '0x%s\n' "$1" >"$D/device"
	sed -i "s/^PCI_ID=.*/PCI_ID=1002:${1^^}/; s/d000015BF/d0000${1^^}/" "$D/uevent"
}

# MI300A (1002:74a0) is an APU without vddnb: its power1 is the socket's,
# CPU dies included, so the totals leave the package counter out (before:
# both added, the CPU counted twice).  MI300X (74a1), a GPU, adds up.
t_mi300a() {
	fx_copy apu-rapl
	mi300_shape 74a0
	run_apu --max-energy=1000
	assert_rc 0
	assert_match err 'note: an APU: power \(hwmon power1, PPT\) is the whole SoC.s'
	fig 1 within_device
	assert_eq "$v" 0 "MI300A: the package is within device 0"
	fig 0 energy_j
	csv_get s.csv gate_measured scope=gate gate=--max-energy
	assert_near "$csv_v" "$v" 0.000001 "MI300A: all-devices energy is the socket's alone"
	fx_copy apu-rapl
	mi300_shape 74a1
	run_apu --max-energy=1000
	assert_rc 0
	fig 1 within_device
	assert_eq "$v" "" "MI300X: a GPU holds no package"
	assert_no_match err 'not added'
}

t_run "APU: listed as SoC power" t_list
t_run "MI300A (no vddnb) is an APU; MI300X is not" t_mi300a
t_run "APU + RAPL: totals and gates count the SoC once" t_totals
t_run "APU + RAPL: a gate on the SoC alone" t_gate_fails_on_soc_alone
t_run "discrete GPU + RAPL: both added" t_dgpu_adds_up
t_run "APU + RAPL: merge counts the SoC once" t_merge
