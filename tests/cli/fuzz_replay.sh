#!/bin/bash
# The fuzz corpora, replayed (HACKING.md, "Tests"): every tests/fuzz/fuzz_*.c target
# runs each file of its tests/fuzz/corpus/<target>/ once under ASan and
# UBSan, and a crash, a sanitizer report or a failed property check fails
# that target's test.  Where clang's libFuzzer links, the binaries are
# `make fuzz`'s, run with -runs=0 (replay only, no mutation); elsewhere
# each target is built here with cc and tests/fuzz/replay_main.c, so the
# corpora are replayed on every machine that builds joulestat.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}"

FZ=$(mktemp -d "${TMPDIR:-/tmp}/joulestat-fuzz.XXXXXX")
trap 'rm -rf "$FZ"' EXIT
: "${PARSERS:?the Makefile names the parser sources: run through make check}"

# True when clang can build and link a libFuzzer target.
has_libfuzzer() {
	printf '#include <stddef.h>\n#include <stdint.h>\n%s\n' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	    >"$FZ/probe.c"
	clang -fsanitize=fuzzer -o "$FZ/probe" "$FZ/probe.c" >/dev/null 2>&1
}

# The sanitizers cc can link here, or nothing.  gcc leaves
# float-cast-overflow out of "undefined"; clang's libFuzzer build has it.
cc_sanitizers() {
	printf 'int main(void) { return 0; }\n' >"$FZ/san.c"
	for san in address,undefined,float-cast-overflow address,undefined; do
		if cc -fsanitize=$san -o "$FZ/san" "$FZ/san.c" >/dev/null 2>&1; then
			echo "-fsanitize=$san -fno-sanitize-recover=all"
			return
		fi
	done
}

# Every target with cc and the replay driver, into $FZ (run in $TOP).
build_with_cc() {
	san=$(cc_sanitizers)
	flags="-g -O1 -fno-omit-frame-pointer $san -Iinclude -Itests/sim -D_GNU_SOURCE"
	objs=""
	for src in $PARSERS; do
		o="$FZ/$(echo "$src" | tr / _).o"
		cc $flags -c -o "$o" "$src" || return 1
		objs="$objs $o"
	done
	cc $flags -c -o "$FZ/replay_main.o" tests/fuzz/replay_main.c || return 1
	for src in tests/fuzz/fuzz_*.c; do
		cc $flags -o "$FZ/$(basename "$src" .c)" "$src" "$FZ/replay_main.o" $objs \
		    -lpopt -lcsv -ljansson -lm || return 1
	done
}

t_build() {
	if [ "$mode" = libfuzzer ]; then
		# Not the outer make's jobserver: this is a make of its own.
		try -t 600 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$TOP" fuzz
	else
		(cd "$TOP" && build_with_cc) >out 2>err
		rc=$?
	fi
	assert_rc 0
}

# replay TARGET: each corpus file once; every one of them must have run.
replay() {
	t=$1
	corpus="$TOP/tests/fuzz/corpus/$t"
	n=$(find "$corpus" -type f | wc -l)
	[ "$n" -gt 0 ] || fail "no corpus for $t"
	if [ "$mode" = libfuzzer ]; then
		try -t 300 "$TOP/build-fuzz/$t" -runs=0 "$corpus"
		assert_rc 0
		assert_match err '(INITED|DONE)'
	else
		try -t 300 "$FZ/$t" "$corpus"
		assert_rc 0
		assert_match out "replayed $n inputs"
	fi
}

if has_libfuzzer; then
	mode=libfuzzer
elif command -v cc >/dev/null 2>&1; then
	mode=cc
else
	mode=none
fi

if [ "$mode" = none ]; then
	t_run "replay the fuzz corpora" skip "neither clang with libFuzzer nor cc"
	t_done
	exit 0
fi
t_run "build the fuzz targets ($mode)" t_build
for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c)
	t_run "replay the $t corpus ($mode)" replay "$t"
done
t_done
