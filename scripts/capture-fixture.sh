#!/bin/sh
# capture-fixture.sh OUTDIR [PID...]
#
# Copy the files joulestat's drm and rapl backends read, from this
# machine's /sys (DRM cards, their PCI devices, hwmon, i915/xe GT
# directories, powercap zones) and, for each PID given, the fdinfo of its
# DRM fds, into OUTDIR/sys/... and OUTDIR/proc/PID/fdinfo/N: a fixture
# tree of the same shape as tests/fixtures/.  Attach it (as a tarball) to
# a report about a device joulestat does not handle yet; it can be read
# back with
#
#	JOULESTAT_SYSFS_ROOT=OUTDIR/sys joulestat --list-devices
#
# Only small read-only attribute files are read, once each; nothing is
# written to sysfs.  Board serial numbers and unique ids are left out.
# Reading energy_uj needs root (it has been root-only since 2020); without
# it the zone is copied without that file.  Reading a sensor may wake a
# runtime-suspended GPU for a moment.
#
# JOULESTAT_SYSFS_ROOT and JOULESTAT_PROC_ROOT, when set, are read instead
# of /sys and /proc (the test suite captures a fixture that way).
set -u

if [ $# -lt 1 ]; then
	echo "usage: capture-fixture.sh OUTDIR [PID...]" >&2
	exit 2
fi
out=$1
shift
sys=${JOULESTAT_SYSFS_ROOT:-/sys}
proc=${JOULESTAT_PROC_ROOT:-/proc}
n=0
mkdir -p "$out" || exit 1

# copy SRC DST: one readable regular file, at most 64 KiB, bounded in time.
copy() {
	[ -f "$1" ] && [ -r "$1" ] || return 0
	mkdir -p "$(dirname "$2")" || exit 1
	if timeout 2 head -c 65536 "$1" >"$2" 2>/dev/null; then
		n=$((n + 1))
	else
		rm -f "$2"
	fi
}

# copy_sys REL...: files under the sysfs root, to the same place under OUTDIR/sys.
copy_sys() {
	for rel in "$@"; do
		copy "$sys/$rel" "$out/sys/$rel"
	done
}

# The hwmon attributes of interest in directory REL.
copy_hwmon() {
	for f in "$sys/$1"/*; do
		b=${f##*/}
		case $b in
		name | \
		power[0-9]*_input | power[0-9]*_average | power[0-9]*_label | power[0-9]*_cap | \
		power[0-9]*_cap_max | power[0-9]*_max | power[0-9]*_rated_max | \
		energy[0-9]*_input | energy[0-9]*_label | \
		temp[0-9]*_input | temp[0-9]*_label | freq[0-9]*_input | freq[0-9]*_label | \
		in[0-9]*_input | in[0-9]*_label | fan[0-9]*_input)
			copy_sys "$1/$b"
			;;
		esac
	done
}

# An xe tile: VRAM size, and per GT the frequencies and the idle residency.
copy_tile() {
	copy_sys "$1/physical_vram_size_bytes"
	for gt in "$sys/$1"/gt[0-9]*; do
		[ -d "$gt" ] || continue
		g=$1/${gt##*/}
		for f in act_freq cur_freq rp0_freq rpe_freq rpn_freq min_freq max_freq; do
			copy_sys "$g/freq0/$f"
		done
		for f in name idle_status idle_residency_ms; do
			copy_sys "$g/gtidle/$f"
		done
	done
}

copy_card() {
	c=class/drm/$1
	copy_sys "$c/dev" "$c/uevent" "$c/gt_act_freq_mhz" "$c/gt_cur_freq_mhz" \
	    "$c/gt_min_freq_mhz" "$c/gt_max_freq_mhz" "$c/gt_boost_freq_mhz" \
	    "$c/gt_RP0_freq_mhz" "$c/gt_RP1_freq_mhz" "$c/gt_RPn_freq_mhz" \
	    "$c/power/rc6_enable" "$c/power/rc6_residency_ms"
	for gt in "$sys/$c"/gt/gt[0-9]*; do
		[ -d "$gt" ] || continue
		g=$c/gt/${gt##*/}
		copy_sys "$g/rc6_residency_ms" "$g/rc6_enable" "$g/rps_act_freq_mhz" \
		    "$g/rps_cur_freq_mhz" "$g/rps_RP0_freq_mhz" "$g/rps_RPn_freq_mhz"
	done
	d=$c/device
	copy_sys "$d/vendor" "$d/device" "$d/subsystem_vendor" "$d/subsystem_device" \
	    "$d/revision" "$d/uevent" "$d/product_name" "$d/pp_dpm_sclk" "$d/pp_dpm_mclk" \
	    "$d/pp_dpm_socclk" "$d/pp_dpm_fclk" "$d/pp_dpm_pcie" "$d/gpu_busy_percent" \
	    "$d/mem_busy_percent" "$d/power_dpm_force_performance_level" \
	    "$d/power/runtime_status"
	for h in "$sys/$d"/hwmon/hwmon[0-9]*; do
		[ -d "$h" ] && copy_hwmon "$d/hwmon/${h##*/}"
	done
	for t in "$sys/$d"/tile[0-9]*; do
		[ -d "$t" ] && copy_tile "$d/${t##*/}"
	done
}

for card in "$sys"/class/drm/*; do
	b=${card##*/}
	case $b in
	card[0-9]*-*) copy_sys "class/drm/$b/status" ;;	# a connector
	card[0-9]*) copy_card "$b" ;;
	renderD[0-9]*) copy_sys "class/drm/$b/dev" ;;
	esac
done
copy_sys class/drm/version

for zone in "$sys"/class/powercap/*; do
	z=class/powercap/${zone##*/}
	copy_sys "$z/name" "$z/enabled" "$z/energy_uj" "$z/max_energy_range_uj"
	for f in "$zone"/constraint_*; do
		[ -e "$f" ] && copy_sys "$z/${f##*/}"
	done
done

# The fdinfo of DRM fds (character devices of major 226) of the pids
# given; when the fd link cannot be followed, the drm-driver key decides.
for pid in "$@"; do
	for fi in "$proc/$pid"/fdinfo/*; do
		[ -e "$fi" ] || continue
		num=${fi##*/}
		major=$(stat -L -c %t "$proc/$pid/fd/$num" 2>/dev/null)
		if [ -z "$major" ]; then
			grep -q '^drm-driver:' "$fi" 2>/dev/null || continue
		elif [ "$major" != e2 ]; then
			continue
		fi
		copy "$fi" "$out/proc/$pid/fdinfo/$num"
	done
done

{
	echo "captured by scripts/capture-fixture.sh"
	echo "kernel: $(uname -sr)"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "files: $n"
} >"$out/MANIFEST"
echo "capture-fixture.sh: $n files in $out"
