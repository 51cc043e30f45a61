#!/bin/bash
# MIG (joulestat(1), DEVICES): the MIG devices of a MIG-enabled board are
# listed under it, -d and CUDA_VISIBLE_DEVICES take their MIG-... UUIDs,
# and the board is measured, with the note that power and energy are the
# whole board's.  On the simulated NVML (tests/sim/scenarios/mig-devices.scn:
# an A100 in MIG mode with MIG devices in slots 0, 1 and 3 at 120 W, and an
# A100 without MIG at 70 W).
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${SIMLIB:?}" "${CSVTOOL:?}"

SCN=$TOP/tests/sim/scenarios/mig-devices.scn
BOARD=GPU-4c1b8e7d-5f2a-4d93-8e6b-2a1f0c9d8e73
OTHER=GPU-9e8d7c6b-5a49-4382-8171-605f4e3d2c1b
MIG3G=MIG-1f3a5c7e-9b2d-5e4f-8a6c-0d2e4f6a8c1b
MIG1G=MIG-2b4d6f8a-0c2e-5f4a-8b6d-1e3f5a7b9c0d
NOTE='MIG mode is on with 3 MIG devices: power and energy are for the whole board'

unset CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES ZE_AFFINITY_MASK

# sim [SCENARIO] -- ARGS...: ARGS (a command) on the simulated NVML, no sysfs.
sim() {
	s_scn=$SCN
	if [ "$1" != -- ]; then
		s_scn=$1
		shift
	fi
	shift
	mkdir -p nosys
	try env NVSIM_SCENARIO="$s_scn" NVSIM_TRUTH="$PWD/truth" JOULESTAT_SYSFS_ROOT="$PWD/nosys" \
	    "$@"
}

# measured: the boards with a device row in ./s.csv, in $ids.
measured() {
	ids=
	for m in $BOARD $OTHER; do
		[ "$("$CSVTOOL" count s.csv scope=device device_id="$m")" = 0 ] || ids="$ids$m "
	done
}

t_list() {
	sim -- "$JOULESTAT" --nvml-lib="$SIMLIB" --list-devices
	assert_rc 0
	assert_match out "^0: NVIDIA A100-SXM4-80GB  $BOARD\$"
	assert_match out "note: $NOTE"
	assert_match out "note: MIG device $MIG3G: NVIDIA A100-SXM4-80GB MIG 3g\\.40gb \\(GPU instance 2, compute instance 0\\), measured as this board"
	assert_match out 'note: MIG device MIG-7d9e1f3a-5b7c-5d9e-9f1a-3b5c7d9e1f2a: NVIDIA A100-SXM4-80GB MIG 2g\.20gb \(GPU instance 3, compute instance 0\)'
	assert_match out "note: MIG device $MIG1G: NVIDIA A100-SXM4-80GB MIG 1g\\.10gb \\(GPU instance 9, compute instance 0\\)"
	[ "$(grep -c 'note: MIG device MIG-' out)" = 3 ] || fail "three MIG devices (slot 2 is empty)"
	assert_match out "^1: NVIDIA A100-SXM4-80GB  $OTHER\$"
	[ "$(grep -c 'MIG mode is on' out)" = 1 ] || fail "only board 0 is in MIG mode"
}

# -d MIG-...: the board, measured whole and said so; its energy is the board's 120 W.
t_select() {
	sim -- "$JOULESTAT" --nvml-lib="$SIMLIB" -d "$MIG1G" --csv=s.csv -- "$JS_WORK" sleep 0.5s
	assert_rc 0
	measured
	assert_eq "$ids" "$BOARD " "measured boards"
	assert_match err "note: $NOTE"
	csv_get s.csv time_s scope=device device=0
	w=$csv_v
	csv_get s.csv energy_j scope=device device=0
	note "energy $csv_v J over $w s"
	assert_near "$csv_v" "$(calc "120 * $w")" "$(calc "120 * 0.05")" "the board's energy at 120 W"
	# In any case, and a MIG device no board has is no device.
	sim -- "$JOULESTAT" --nvml-lib="$SIMLIB" -d "mig-2B4D6F8A-0c2e-5f4a-8b6d-1e3f5a7b9c0d" \
	    --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 0
	measured
	assert_eq "$ids" "$BOARD " "by a MIG UUID in other case"
	sim -- "$JOULESTAT" --nvml-lib="$SIMLIB" -d MIG-00000000-0000-5000-8000-000000000000 \
	    --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 125
	assert_match err 'no device matches MIG-00000000-0000-5000-8000-000000000000'
}

t_cuda_visible() {
	sim -- env CUDA_VISIBLE_DEVICES="$MIG3G" "$JOULESTAT" --nvml-lib="$SIMLIB" --csv=s.csv -- \
	    "$JS_WORK" exit 0
	assert_rc 0
	measured
	assert_eq "$ids" "$BOARD " "the MIG device's board, not the other"
	assert_match err "CUDA_VISIBLE_DEVICES=$MIG3G\\): 1 device hidden from it"
	assert_match err "note: $NOTE"
	# A MIG device of no board hides both: neither lists it.
	sim -- env CUDA_VISIBLE_DEVICES=MIG-00000000-0000-5000-8000-000000000000 "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 0
	measured
	assert_eq "$ids" "" "no board has that MIG device"
	# The listing says which board the workload would not see.
	sim -- env CUDA_VISIBLE_DEVICES="$MIG3G" "$JOULESTAT" --nvml-lib="$SIMLIB" --list-devices
	[ "$(grep -c 'hidden from the workload by CUDA_VISIBLE_DEVICES' out)" = 1 ] ||
	    fail "one board hidden"
}

# A MIG board whose MIG devices cannot be listed may hold any MIG device: kept, and said so.
t_unlisted() {
	sed 's/^mig on$/mig on\nnotsupported nvmlDeviceGetMigDeviceHandleByIndex/' "$SCN" >u.scn
	sim u.scn -- env CUDA_VISIBLE_DEVICES="$MIG3G" "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 0
	measured
	assert_eq "$ids" "$BOARD " "the board that could hold it"
	assert_match err 'MIG mode is on with 0 MIG devices'
	assert_match err 'its MIG devices could not be listed: Not Supported'
}

t_run "MIG devices listed under their board" t_list
t_run "-d MIG-...: the whole board, said so" t_select
t_run "CUDA_VISIBLE_DEVICES=MIG-...: its board only" t_cuda_visible
t_run "MIG devices that cannot be listed" t_unlisted
