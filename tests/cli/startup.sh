#!/bin/bash
# What joulestat costs before the workload's exec (HACKING.md, "Start-up
# cost"): the loader maps no shared library but the C library's.
. "$(dirname "$0")/lib.sh"

# readelf's NEEDED entries of the binary, one a line.
needed() {
	readelf -d "$JOULESTAT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort
}

# As the Makefile links it by default: popt, jansson and libcsv inside,
# libm not used, libdl part of the C library since glibc 2.34.
test_only_libc_loaded() {
	command -v readelf >/dev/null || skip "no readelf (binutils)"
	needed >needed.txt
	if grep -q 'libasan\|libubsan\|libpopt\|libjansson' needed.txt; then
		skip "built with sanitizers or LINK_STATIC= ($(tr '\n' ' ' <needed.txt))"
	fi
	[ -s needed.txt ] || fail "readelf found no NEEDED entry in $JOULESTAT"
	grep -vx 'libc\.so\.6\|libdl\.so\.2' needed.txt >extra.txt
	[ ! -s extra.txt ] || fail "libraries loaded at every start: $(tr '\n' ' ' <extra.txt)"
}

t_run "only the C library is loaded at start" test_only_libc_loaded
t_done
