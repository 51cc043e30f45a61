#!/bin/bash
# Die zones of RAPL (tests/fixtures/rapl-2pkg made into one package of two
# dies).  Kernels that name zones per die on AMD ("package-0-die-0",
# "package-0-die-1") give every die the package's one counter: here the
# two energy_uj files are one file (a hard link), as the two zones are one
# register.  That is one package, counted once.  Intel's multi-die parts
# have a counter per die: two files that differ are two devices.
#
# A background writer advances the counters at known powers; g is its
# longest gap (~10 ms), and an energy is off by at most P * g + 2 mJ.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${CSVTOOL:?}"
. "$TOP/tests/fixtures/writer.sh"

PC=fx/sys/class/powercap

# The fixture as one package of two dies, no DRAM zones, no mmio zone.
two_dies() {
	fx_copy rapl-2pkg
	rm -rf "$PC"/intel-rapl:0:0 "$PC"/intel-rapl:1:0 "$PC"/intel-rapl-mmio*
	fx_set "$PC/intel-rapl:0/name" package-0-die-0
	fx_set "$PC/intel-rapl:1/name" package-0-die-1
}

shared_tick() {
	fx_put "$PC/intel-rapl:0/energy_uj" "$((1000000000 + 50 * ($1 - t0)))"$'\n'
}

own_tick() {
	fx_put "$PC/intel-rapl:0/energy_uj" "$((1000000000 + 40 * ($1 - t0)))"$'\n'
	fx_put "$PC/intel-rapl:1/energy_uj" "$((2000000000 + 25 * ($1 - t0)))"$'\n'
}

# energy DEV WATTS: device DEV's energy is WATTS over its window.
energy() {
	csv_get s.csv time_s scope=device device="$1"
	w=$csv_v
	csv_get s.csv energy_j scope=device device="$1"
	note "device $1: $csv_v J vs $(calc "$2 * $w") J"
	assert_near "$csv_v" "$(calc "$2 * $w")" "$(calc "$2 * $fx_gap_s + 0.002")" \
	    "energy of device $1 at $2 W"
}

# Before: two devices of 50 W each, and 100 W in the all-devices total.
t_one_counter() {
	two_dies
	ln -f "$PC/intel-rapl:0/energy_uj" "$PC/intel-rapl:1/energy_uj"
	t0=$(fx_now_us)
	shared_tick "$t0"
	fx_loop shared_tick
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv \
	    --max-energy=100000 -- "$JS_WORK" sleep 1s
	fx_stop
	assert_rc 0
	assert_eq "$("$CSVTOOL" count s.csv scope=device)" 1 "devices"
	csv_get s.csv device_id scope=device device=0
	assert_eq "$csv_v" package-0 "the package's id"
	csv_get s.csv device_name scope=device device=0
	assert_eq "$csv_v" "CPU package 0" "the package's name"
	energy 0 50
	e=$csv_v
	csv_get s.csv gate_measured scope=gate gate=--max-energy
	assert_near "$csv_v" "$e" 0.000001 "all-devices energy is the package's once"
	assert_match err 'note: the 2 die zones of package 0 read one counter'
}

t_own_counters() {
	two_dies
	t0=$(fx_now_us)
	own_tick "$t0"
	fx_loop own_tick
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -i 50 --csv=s.csv -- \
	    "$JS_WORK" sleep 1s
	fx_stop
	assert_rc 0
	assert_eq "$("$CSVTOOL" count s.csv scope=device)" 2 "devices"
	csv_get s.csv device_name scope=device device=0
	assert_eq "$csv_v" "CPU package 0 die 0" "die 0"
	csv_get s.csv device_name scope=device device=1
	assert_eq "$csv_v" "CPU package 0 die 1" "die 1"
	energy 0 40
	energy 1 25
	assert_no_match err 'read one counter'
}

t_run "die zones that read one counter are one package, counted once" t_one_counter
t_run "die zones with counters of their own are one device each" t_own_counters
t_done
