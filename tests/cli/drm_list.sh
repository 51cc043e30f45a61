#!/bin/bash
# --list-devices on the fixture trees (tests/fixtures): which AMD, Intel
# and RAPL devices are found and what each can measure, that cards of
# other drivers and connectors are skipped, that -d selects by number,
# PCI bus id and zone id, and that a machine without /sys/class/drm or powercap costs
# nothing and says nothing about them.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}"
. "$TOP/tests/fixtures/writer.sh"

# list FIXTURE [ARGS...]: --list-devices on a copy of the fixture, into ./out.
list() {
	fx_copy "$1" || fail "no fixture $1"
	shift
	# Names from the ids alone: names.sh tests the PCI ID database.
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_LIBPCI=/nonexistent/libpci.so.3 \
	    "$JOULESTAT" --list-devices "$@"
	assert_rc 0
}

t_amdgpu_average() {
	list drm-amdgpu-avg
	assert_match out '^0: AMD GPU 1002:67df  0000:01:00\.0$'
	assert_match out 'backend drm .*bus 0000:01:00\.0, driver amdgpu'
	assert_match out 'measures: power=hwmon0/power1_average pstate=pp_dpm_sclk '
	assert_match out 'clocks=hwmon0/freq1_input util=gpu_busy_percent'
	assert_match out 'temp=hwmon0/temp1_input pid-util=fdinfo'
	assert_match out 'note: power is hwmon power1_average, a firmware average'
	assert_match out "DPM levels of pp_dpm_sclk by the kernel's labels, and deep sleep"
	# Connectors and render nodes are not cards.
	[ "$(grep -c 'backend drm' out)" -eq 1 ] || fail "expected one drm device"
}

t_amdgpu_input() {
	list drm-amdgpu-input
	# card0 is a virtio GPU: not ours, not listed, nothing said.
	assert_match out '^0: AMD Radeon RX 7900 XTX  0000:03:00\.0$'
	assert_match out 'backend drm \(its index 1\)'
	assert_match out 'measures: power=hwmon2/power1_input '
	assert_no_match out 'virtio|power1_average'
	[ "$(grep -c 'backend drm' out)" -eq 1 ] || fail "expected one drm device"
}

t_i915() {
	list drm-i915
	assert_match out '^0: Intel GPU 8086:56a0  0000:03:00\.0$'
	assert_match out 'driver i915'
	assert_match out 'measures: energy=hwmon3/energy1_input clocks=gt_act_freq_mhz '
	assert_match out 'pstate=power/rc6_residency_ms pid-util=fdinfo'
	assert_match out 'states are awake and RC6'
}

t_xe() {
	list drm-xe
	assert_match out '^0: Intel GPU 8086:e20b  0000:04:00\.0$'
	assert_match out 'measures: energy=hwmon4/energy1_input '
	assert_match out 'clocks=tile0/gt0/freq0/act_freq pstate=tile0/gt0/gtidle/idle_residency_ms'
	# Without the card counter, the package one, said so.
	rm "$FX/sys/class/drm/card0/device/hwmon/hwmon4/energy1_input"
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --list-devices
	assert_match out 'energy=hwmon4/energy2_input'
	assert_match out 'note: energy is the package counter'
}

t_rapl() {
	list rapl-2pkg
	assert_match out '^0: CPU package 0  package-0$'
	assert_match out '^1: DRAM of package-0  package-0/dram$'
	assert_match out '^2: CPU package 1  package-1$'
	assert_match out '^3: DRAM of package-1  package-1/dram$'
	assert_match out 'measures: energy=intel-rapl:0/energy_uj range=262143328850uJ'
	# The mmio zone repeats package 0: not listed twice.
	[ "$(grep -c 'backend rapl' out)" -eq 4 ] || fail "expected four rapl devices"
}

t_select() {
	list drm-amdgpu-input -d 0000:03:00.0
	assert_match out 'AMD Radeon RX 7900 XTX'
	list drm-amdgpu-input -d 03:00.0
	assert_match out 'AMD Radeon RX 7900 XTX'
	list rapl-2pkg -d package-1
	# A device keeps its number whatever -d selects.
	assert_match out '^2: CPU package 1  package-1$'
	[ "$(grep -c 'backend rapl' out)" -eq 1 ] || fail "-d package-1 selected more"
	list drm-amdgpu-input -d 0000:09:00.0
	assert_no_match out 'backend drm'
}

# A card driven by radeon (LACT's HD 7870 capture): one line, not silence.
t_radeon() {
	list lact-hd7870
	assert_match out '^no devices found$'
	assert_match out '^drm: card0 \(0000:01:00\.0, 1002:6818\) is driven by radeon, which is not supported: only amdgpu cards are measured$'
	[ "$(grep -c radeon out)" -eq 1 ] || fail "one line about radeon"
}

# No sysfs of ours at all: no device, and not a word about drm or rapl.
t_absent() {
	mkdir empty
	try env JOULESTAT_SYSFS_ROOT="$PWD/empty" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_no_match out 'drm|rapl'
	assert_no_match err 'drm|rapl'
	try env JOULESTAT_SYSFS_ROOT="$PWD/empty" "$JOULESTAT" -- "$JS_WORK" exit 0
	assert_rc 0
	assert_no_match err 'drm|rapl|device 0'
	# A run's outputs with --list-devices: a usage error, not nothing written and 0.
	for opt in --csv=f -o=f --timeline=f --markdown=f; do
		try "$JOULESTAT" --list-devices "${opt%%=*}" "${opt#*=}"
		assert_rc 125
		assert_match err '^joulestat: --list-devices writes its list to standard output, or as --json'
	done
	# Nor a command or -p, which it would neither run nor say it left out.
	try "$JOULESTAT" --list-devices -- sh -c 'touch ran'
	assert_rc 125
	assert_match err '^joulestat: --list-devices runs nothing'
	[ ! -e ran ] || fail "the command ran"
	try "$JOULESTAT" --list-devices -p 1
	assert_rc 125
}

# energy_uj unreadable: one line with the fix, not a failure.
t_rapl_denied() {
	fx_copy rapl-2pkg
	chmod 000 "$FX"/sys/class/powercap/intel-rapl:*/energy_uj
	chmod 000 "$FX"/sys/class/powercap/intel-rapl:*:*/energy_uj
	fx_nodac || skip "root cannot drop CAP_DAC_OVERRIDE here (no setpriv or no CAP_SETPCAP)"
	try "${FX_NODAC[@]}" env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_no_match out 'backend rapl'
	assert_match out '^rapl: 4 zones not readable \(permission denied\): energy_uj has been root-only since the 2020 PLATYPUS fix; run as root, or have an administrator grant read access$'
	try "${FX_NODAC[@]}" env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" -- "$JS_WORK" exit 3
	assert_rc 3
	assert_match err 'rapl: 4 zones not readable .*PLATYPUS'
}

# scripts/capture-fixture.sh on each fixture gives a tree that lists the same.
t_capture() {
	for f in drm-amdgpu-avg drm-amdgpu-input drm-i915 drm-xe rapl-2pkg; do
		list "$f"
		mv out "$f.want"
		rm -rf cap
		try env JOULESTAT_SYSFS_ROOT="$FX/sys" sh "$TOP/scripts/capture-fixture.sh" cap
		assert_rc 0
		assert_match out "^capture-fixture.sh: [0-9]+ files in cap$"
		try env JOULESTAT_SYSFS_ROOT="$PWD/cap/sys" JOULESTAT_LIBPCI=/nonexistent/libpci.so.3 \
		    "$JOULESTAT" --list-devices
		diff "$f.want" out >&2 || fail "$f: the captured tree lists other devices"
	done
	# Of a process's fds, only the DRM ones.
	mkdir -p proc/4242/fdinfo
	cp "$TOP/tests/fixtures/proc-drm/socket.fdinfo" proc/4242/fdinfo/3
	cp "$TOP/tests/fixtures/proc-drm/i915.fdinfo" proc/4242/fdinfo/5
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_PROC_ROOT="$PWD/proc" \
	    sh "$TOP/scripts/capture-fixture.sh" cap2 4242
	assert_rc 0
	cmp -s cap2/proc/4242/fdinfo/5 "$TOP/tests/fixtures/proc-drm/i915.fdinfo" ||
	    fail "the DRM fdinfo was not captured"
	[ ! -e cap2/proc/4242/fdinfo/3 ] || fail "a socket's fdinfo was captured"
}

# More cards than joulestat takes (64; a node of GPUs split into partitions
# has hundreds of DRM minors): the lowest numbers are kept, not the first
# the directory happens to list.  card1 is the fixture's amdgpu; cards 2 to
# 400, made in a shuffled order, are virtio GPUs like its card0.
t_many_cards() {
	fx_copy drm-amdgpu-input
	for n in $(seq 2 400 | shuf); do
		cp -a "$FX/sys/class/drm/card0" "$FX/sys/class/drm/card$n"
	done
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_LIBPCI=/nonexistent/libpci.so.3 \
	    "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out '^0: AMD Radeon RX 7900 XTX  0000:03:00\.0$'
}

t_run "amdgpu with power1_average only" t_amdgpu_average
t_run "newer amdgpu with power1_input, beside a virtio GPU" t_amdgpu_input
t_run "400 cards: the lowest numbers are kept" t_many_cards
t_run "i915 dGPU" t_i915
t_run "xe dGPU, card and package energy" t_xe
t_run "two-package RAPL machine" t_rapl
t_run "-d by bus id, index and RAPL zone id" t_select
t_run "a radeon card is said to be unsupported" t_radeon
t_run "no DRM and no powercap: nothing said" t_absent
t_run "RAPL energy_uj denied: one line with the fix" t_rapl_denied
t_run "capture-fixture.sh copies what the backends read" t_capture
t_done
