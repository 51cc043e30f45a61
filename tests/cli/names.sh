#!/bin/bash
# Device names (README "Devices"): an AMD or Intel card without amdgpu's
# product_name is named from the PCI ID database (pci.ids) through libpci,
# loaded at run time; without the library, or for an id the database does
# not have, the name is made of the ids.  The expected names are read from
# the pci.ids file itself, so the test holds for any version of it.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}"
. "$TOP/tests/fixtures/writer.sh"

# pci.ids where Debian's pci.ids package (and libpci's default) puts it.
IDS=
for f in /usr/share/misc/pci.ids /usr/share/hwdata/pci.ids; do
	[ -r "$f" ] && IDS=$f && break
done

# ids_name VENDOR DEVICE: the device's name in pci.ids (lower-case hex), or "".
ids_name() {
	awk -v v="$1" -v d="$2" '
	    /^[0-9a-f][0-9a-f][0-9a-f][0-9a-f] / { in_v = ($1 == v); next }
	    in_v && /^\t[0-9a-f][0-9a-f][0-9a-f][0-9a-f] / { if ($1 == d) { sub(/^\t[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  /, ""); print; exit } }
	' "$IDS"
}

need_names() {
	[ -n "$IDS" ] || skip "no pci.ids (Debian package pci.ids): names from the database not tested"
	ldconfig -p 2>/dev/null | grep -q 'libpci\.so\.3 ' ||
	    skip "no libpci.so.3 (Debian package libpci3): names from the database not tested"
}

# list FIXTURE [ENV...]: --list-devices on a copy of the fixture, into ./out.
list() {
	fx_copy "$1" || fail "no fixture $1"
	shift
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$@" "$JOULESTAT" --list-devices
	assert_rc 0
}

# quote TEXT: TEXT as an extended regular expression that matches itself.
quote() {
	printf '%s' "$1" | sed 's/[][\.*^$()+?{}|/]/\\&/g'
}

t_from_pci_ids() {
	need_names
	for c in drm-amdgpu-avg:1002:67df:AMD:0000:01:00.0 drm-i915:8086:56a0:Intel:0000:03:00.0 \
	    lact-rx7600s:1002:7480:AMD:0000:03:00.0; do
		IFS=: read -r fx v d vendor bus <<<"$c"
		name=$(ids_name "$v" "$d")
		[ -n "$name" ] || skip "$IDS has no $v:$d"
		list "$fx"
		assert_match out "^0: $(quote "$vendor $name")  $(quote "$bus")\$"
		note "$v:$d: $vendor $name"
	done
	# An APU keeps saying that its figure is the SoC's.
	name=$(ids_name 1002 15bf)
	[ -n "$name" ] || skip "$IDS has no 1002:15bf"
	list lact-phoenix
	assert_match out "^0: $(quote "AMD $name") \\(SoC\\)  0000:64:00\\.0\$"
	# amdgpu's own product_name comes first.
	list drm-amdgpu-input
	assert_match out '^0: AMD Radeon RX 7900 XTX  0000:03:00\.0$'
}

# An id the database lacks: the ids.
t_unknown_id() {
	need_names
	[ -z "$(ids_name 1002 7fff)" ] || skip "$IDS names 1002:7fff"
	fx_copy drm-amdgpu-avg
	u=$FX/sys/class/drm/card0/device
	sed -i 's/^PCI_ID=.*/PCI_ID=1002:7FFF/' "$u/uevent"
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" "$JOULESTAT" --list-devices
	assert_rc 0
	assert_match out '^0: AMD GPU 1002:7fff  0000:01:00\.0$'
}

# Without libpci: the ids, and everything else as before.
t_no_library() {
	list drm-amdgpu-avg JOULESTAT_LIBPCI=/nonexistent/libpci.so.3
	assert_match out '^0: AMD GPU 1002:67df  0000:01:00\.0$'
	assert_match out 'measures: power=hwmon0/power1_average'
	list lact-phoenix JOULESTAT_LIBPCI=/nonexistent/libpci.so.3
	assert_match out '^0: AMD APU 1002:15bf \(SoC\)  0000:64:00\.0$'
	# A library without pci_lookup_name is no library.
	list drm-i915 JOULESTAT_LIBPCI=libc.so.6
	assert_match out '^0: Intel GPU 8086:56a0  0000:03:00\.0$'
	fx_copy drm-amdgpu-avg
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_LIBPCI=/nonexistent/libpci.so.3 \
	    "$JOULESTAT" --csv=s.csv -- "$JS_WORK" exit 0
	assert_rc 0
}

t_run "names from pci.ids through libpci" t_from_pci_ids
t_run "an id pci.ids lacks: the ids" t_unknown_id
t_run "no libpci: the ids" t_no_library
