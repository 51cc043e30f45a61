#!/bin/bash
# The shape of the source tree (HACKING.md, "Layering"): lower stages never
# include a higher stage's header, no file grows past 800 lines, and
# comments cite only what a clone of the repository can open.
. "$(dirname "$0")/lib.sh"
: "${TOP:?}"

test_layers_hold() {
	sh "$TOP/scripts/check-layers" "$TOP" >out 2>&1 || fail "$(cat out)"
}

# The check finds a backend that includes the option parser's header.
test_layers_catch() {
	mkdir -p t/src/sources t/src/cli t/include/joulestat
	echo '#include "joulestat/config.h"' >t/src/sources/drm.c
	: >t/src/cli/config.c
	: >t/include/joulestat/config.h
	sh "$TOP/scripts/check-layers" t >out 2>&1 && fail "a violation passed: $(cat out)"
	assert_match out 'src/sources/drm.c \(sources\) includes config.h \(cli\)'
	# And a header that belongs to no stage.
	rm t/src/sources/drm.c
	echo '#include "joulestat/nowhere.h"' >t/src/cli/config.c
	: >t/include/joulestat/nowhere.h
	sh "$TOP/scripts/check-layers" t >out 2>&1 && fail "a stageless header passed"
	assert_match out 'nowhere.h'
}

test_no_long_files() {
	(cd "$TOP" && wc -l src/*.c src/*/*.c include/*/*.h tests/*/*.c tests/*/*.h \
	    tests/*/*/*.c) |
	    awk '$2 != "total" && $1 > 800' >long
	[ ! -s long ] || fail "over 800 lines: $(tr '\n' ' ' <long)"
}

test_citations_resolve() {
	(cd "$TOP" && grep -rn -E '\b(STYLE|DESIGN)\b|\.\./shared/' src include tests scripts \
	    Makefile README.md man HACKING.md) | grep -v '^tests/cli/layout.sh:' >cites || :
	[ ! -s cites ] || fail "citations a clone cannot open: $(head -n 5 cites)"
}

t_run "no lower stage includes a higher stage's header" test_layers_hold
t_run "the layering check fails on a violation" test_layers_catch
t_run "no source file over 800 lines, the tests' included" test_no_long_files
t_run "comments cite only what the repository holds" test_citations_resolve
t_done
