#!/bin/bash
# One numbering of devices everywhere (HACKING.md, "The backend contract";
# joulestat(1), DEVICES): the number --list-devices prints is the one -d,
# --idle-power and the gates take and the report shows, beside the
# backend's own index; BACKEND:NAME, ids and bus ids select too; and by
# default a run measures the GPUs the workload can see through
# CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES and
# ZE_AFFINITY_MASK.  Trees from real captures (tests/fixtures/README):
# an RX 7600S that is card1, beside a two-socket RAPL tree; NVIDIA GPUs on
# the simulated NVML (tests/sim/README).
. "$(dirname "$0")/lib.sh"
: "${TOP:?}" "${SIMLIB:?}" "${CSVTOOL:?}"
. "$TOP/tests/fixtures/writer.sh"

SCN=$TOP/tests/sim/scenarios

# node: the RX 7600S (card1) and the two RAPL packages in one tree, ./fx.
node() {
	fx_copy lact-rx7600s || fail "no fixture"
	cp -R "$TOP/tests/fixtures/rapl-2pkg/sys/class/powercap" "$FX/sys/class/" || fail "no rapl"
}

# on_node ARGS...: joulestat on the node tree.
on_node() {
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_PROC_ROOT="$PWD/noproc" "$JOULESTAT" "$@"
}

t_card1_is_0() {
	node
	on_node --list-devices
	assert_rc 0
	assert_match out '^0: .*  0000:03:00\.0$'
	assert_match out 'backend drm \(its index 1\)'
	assert_match out '^1: CPU package 0  package-0$'
	assert_match out '^3: CPU package 1  package-1$'
	# The number --list-devices printed selects the card, whatever its card number.
	for sel in 0 drm:card1 0000:03:00.0 03:00.0; do
		on_node -d "$sel" -q --json=j.json -- "$JS_WORK" exit 0
		assert_rc 0
		assert_match j.json '"index": 0,'
		assert_match j.json '"backend_index": 1,'
		assert_no_match j.json '"backend": "rapl"'
	done
	on_node -d 0 -- "$JS_WORK" exit 0
	assert_match err '^ device 0: .*  0000:03:00\.0 \(drm, its index 1\)$'
	# Card numbers are not device numbers.
	on_node -d drm:card0 -- "$JS_WORK" exit 0
	assert_rc 125
	assert_match err 'no device matches drm:card0'
}

t_numbers_everywhere() {
	node
	on_node -d rapl:package-1,1 --csv=s.csv --idle-power=3:7.5 -- "$JS_WORK" exit 0
	assert_rc 0
	assert_match err '^ device 1: CPU package 0  package-0 \(rapl, its index 0\)$'
	assert_match err '^ device 3: CPU package 1  package-1 \(rapl, its index 2\)$'
	assert_no_match err '^ device (0|2):'
	# The CSV's device column, and --idle-power by the same number.
	csv_get s.csv device scope=device device_id=package-1
	assert_eq "$csv_v" 3
	on_node -d 3 --json=j.json --idle-power=3:7.5 -- "$JS_WORK" exit 0
	assert_match j.json '"idle_power_w": 7\.5'
	assert_match j.json '"idle_method": "given"'
	# A gate on device 3 is judged on package-1; device 0 is not measured.
	on_node -d 1,3 --max-energy=3:1000000 -- "$JS_WORK" exit 0
	assert_rc 0
	assert_match err 'energy, device 3 '
	on_node -d 1,3 --max-energy=0:1000000 -- "$JS_WORK" exit 0
	assert_match err 'the run has no device 0'
	on_node -d all,1 -- "$JS_WORK" exit 0
	assert_rc 125
	assert_match err '"all" cannot be combined'
}

# js_sim SCENARIO ARGS...: joulestat on the simulated NVML, without sysfs.
js_sim() {
	js_scn=$SCN/$1
	shift
	mkdir -p nosys
	try env NVSIM_SCENARIO="$js_scn" JOULESTAT_SYSFS_ROOT="$PWD/nosys" "$@"
}

# measured: the ids of two-gpus.scn's GPUs with a device row in ./s.csv, in $measured_ids.
measured() {
	measured_ids=
	for m_id in GPU-0b7e3c2a-6d41-4f8e-9a55-1e2d3c4b5a60 GPU-d3f1a9b8-2c7e-4a16-8f03-7b6e5d4c3b21; do
		[ "$("$CSVTOOL" count s.csv scope=device device_id="$m_id")" = 0 ] ||
		    measured_ids="$measured_ids$m_id "
	done
}

t_cuda_visible() {
	local a100=GPU-0b7e3c2a-6d41-4f8e-9a55-1e2d3c4b5a60 p100=GPU-d3f1a9b8-2c7e-4a16-8f03-7b6e5d4c3b21
	unset CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES ZE_AFFINITY_MASK
	js_sim two-gpus.scn env CUDA_VISIBLE_DEVICES=1 "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 0
	measured
	assert_eq "$measured_ids" "$p100 "
	assert_match err 'measuring the devices the workload can see \(CUDA_VISIBLE_DEVICES=1\): 1 device hidden from it; -d all measures every device'
	assert_match err '^ device 1: Tesla P100'
	# By UUID, in the runtime's order; an entry CUDA does not take ends the list.
	js_sim two-gpus.scn env CUDA_VISIBLE_DEVICES="$p100,-1,0" "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" --csv=s.csv -- "$JS_WORK" exit 0
	measured
	assert_eq "$measured_ids" "$p100 "
	js_sim two-gpus.scn env CUDA_VISIBLE_DEVICES="$a100" "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" --csv=s.csv -- "$JS_WORK" exit 0
	measured
	assert_eq "$measured_ids" "$a100 "
	# Set but empty: no NVIDIA GPU.
	js_sim two-gpus.scn env CUDA_VISIBLE_DEVICES= "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 0
	measured
	assert_eq "$measured_ids" ""
	# -d all, and -d over the mask.
	js_sim two-gpus.scn env CUDA_VISIBLE_DEVICES=1 "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    -d all --csv=s.csv -- "$JS_WORK" exit 0
	measured
	assert_eq "$measured_ids" "$a100 $p100 "
	assert_no_match err 'can see'
	js_sim two-gpus.scn env CUDA_VISIBLE_DEVICES=1 "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    -d nvml:0 --csv=s.csv -- "$JS_WORK" exit 0
	measured
	assert_eq "$measured_ids" "$a100 "
	# --list-devices lists both and says which one the workload would not see.
	js_sim two-gpus.scn env CUDA_VISIBLE_DEVICES=1 "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    --list-devices
	assert_match out '^0: NVIDIA A100-SXM4-40GB'
	assert_match out 'hidden from the workload by CUDA_VISIBLE_DEVICES'
	assert_match out '^1: Tesla P100-PCIE-16GB'
	[ "$(grep -c 'hidden from' out)" -eq 1 ] || fail "one device is hidden"
}

t_rocr_and_ze() {
	node
	try env ROCR_VISIBLE_DEVICES=1 JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_PROC_ROOT="$PWD/noproc" \
	    "$JOULESTAT" --json=j.json -q -- "$JS_WORK" exit 0
	assert_rc 0
	assert_no_match j.json '"backend": "drm"'
	assert_match j.json '"backend": "rapl"'
	try env HIP_VISIBLE_DEVICES=0 ZE_AFFINITY_MASK=0.1 JOULESTAT_SYSFS_ROOT="$FX/sys" \
	    JOULESTAT_PROC_ROOT="$PWD/noproc" "$JOULESTAT" --json=j.json -q -- "$JS_WORK" exit 0
	assert_match j.json '"backend": "drm"'
}

# WSL2 reaches the GPU through /dev/dxg and loads no NVIDIA kernel module,
# so there is no /proc/driver/nvidia: NVML is still looked for in the
# loader's path (here the simulated one, by LD_LIBRARY_PATH); without
# either, nothing is searched for.
t_wsl2() {
	[ ! -e /proc/driver/nvidia ] || skip "this machine has an NVIDIA driver"
	mkdir dev
	: >dev/dxg
	try env LD_LIBRARY_PATH="$(dirname "$SIMLIB")" NVSIM_SCENARIO="$SCN/demo.scn" \
	    JOULESTAT_DEV_ROOT="$PWD/dev" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out '^0: NVIDIA H100 '
	rm dev/dxg
	try env LD_LIBRARY_PATH="$(dirname "$SIMLIB")" NVSIM_SCENARIO="$SCN/demo.scn" \
	    JOULESTAT_DEV_ROOT="$PWD/dev" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out '^nvml: not available: no NVIDIA driver loaded'
}

t_run "the GPU of card1 is device 0, by every name" t_card1_is_0
t_run "-d, --idle-power, gates and the report use one numbering" t_numbers_everywhere
t_run "CUDA_VISIBLE_DEVICES by index, UUID and empty; -d all and -d win" t_cuda_visible
t_run "ROCR/HIP_VISIBLE_DEVICES and ZE_AFFINITY_MASK hide only their GPUs" t_rocr_and_ze
t_run "WSL2: /dev/dxg and no /proc/driver/nvidia still loads NVML" t_wsl2
t_done
