#!/bin/bash
# Options: --help names every option in its group and exits 0, -h is the
# short form, the man page lists the same options and renders its examples
# without broken lines, --version exits 0, and the long and short spellings
# of each option are accepted.
. "$(dirname "$0")/lib.sh"

test_help() {
	try "$JOULESTAT" --help
	assert_rc 0
	[ -s out ] || fail "--help printed nothing on stdout"
	for opt in --interval -i --output -o --field-separator -x --csv --quiet -q \
	    --pid -p --descendants --help --version; do
		grep -qw -- "$opt" out || fail "--help does not mention $opt"
	done
}

# The long options --help (or -h) lists, one per line, sorted.
help_options() {
	grep -oE -- '^ +(-., )?--[a-z-]+' "$1" | grep -oE -- '--[a-z-]+' | sort -u
}

test_help_groups() {
	local group
	try "$JOULESTAT" --help
	assert_rc 0
	for group in Measuring Devices Outputs Repeats Gates "Clocks and locks" Clusters \
	    Examples; do
		grep -q "^$group" out || fail "--help has no group \"$group\""
	done
	[ "$(grep -ci '^usage' out)" = 1 ] || fail "--help has more than one usage header"
	awk 'length > 79 { print "line " NR " is " length " columns"; bad = 1 }
	    END { exit bad }' out || fail "--help has lines over 79 columns"
}

test_help_short() {
	try "$JOULESTAT" --help
	help_options out > long
	cp out help.full
	try "$JOULESTAT" -h
	assert_rc 0
	help_options out > short
	[ -s short ] && cmp -s long short || fail "-h and --help list different options"
	[ "$(wc -l < out)" -lt "$(wc -l < help.full)" ] || fail "-h is not shorter than --help"
	! grep -q '^Examples' out || fail "-h printed the examples"
	grep -q -- '--help shows' out || fail "-h does not point to --help"
}

# Every option the man page's OPTIONS section describes is in --help, and
# the other way round.
test_help_matches_man() {
	awk '/^\.Sh OPTIONS/ { f = 1; next } /^\.Sh/ { f = 0 } f && /^\.It (Fl|Cm)/' \
	    "$TOP/man/joulestat.1" | sed 's/\\-/-/g' | grep -oE -- '--[a-z-]+' | sort -u > man
	try "$JOULESTAT" --help
	help_options out > help
	[ -s man ] || fail "no options found in the man page"
	diff man help > d || fail "man page and --help differ: $(tr '\n' ' ' < d)"
}

# Rendered at 78 columns, an example is never wrapped: a line that starts
# with an option continues one that ends in a backslash.
test_man_examples() {
	command -v groff >/dev/null || skip "no groff"
	groff -mdoc -Tascii -P-bcou -rLL=78n "$TOP/man/joulestat.1" 2>/dev/null |
	    sed -n '/^EXAMPLES/,/^SEE ALSO/p' > ex
	grep -q 'joulestat' ex || fail "no EXAMPLES rendered"
	awk '/^           / {
		line = $0; sub(/^ +/, "", line)
		if (line ~ /^-/ && prev !~ /\\$/) { print "broken: " $0; bad = 1 }
		if (length($0) > 78) { print "too wide: " $0; bad = 1 }
		prev = line; next }
	    { prev = "" }
	    END { exit bad }' ex > broken || fail "$(cat broken)"
}

test_help_runs_nothing() {
	try "$JOULESTAT" --help -- "$JS_WORK" -p ran exit 3
	assert_rc 0
	[ ! -e ran ] || fail "--help ran the workload"
}

test_version() {
	try "$JOULESTAT" --version
	assert_rc 0
	assert_match out '[0-9]+\.[0-9]+'
}

# accepted ARGS...: joulestat ARGS... -- js-work exit 0 runs and exits 0.
accepted() {
	try "$JOULESTAT" "$@" -- "$JS_WORK" -p ran exit 0
	assert_rc 0
	[ -e ran ] || fail "the workload did not run"
}

test_interval_long_equals() {
	accepted --interval=50
}

test_interval_long_separate() {
	accepted --interval 50
}

test_interval_attached() {
	accepted -i50
}

test_descendants_values() {
	for v in leave wait kill; do
		accepted "--descendants=$v"
	done
}

test_combined_options() {
	accepted -q -i 20 -o report -x ';' --csv=s.csv --descendants=wait
	[ -s s.csv ] || fail "--csv file is empty"
}

t_run "--help mentions every option" test_help
t_run "--help groups the options, one usage header, 79 columns" test_help_groups
t_run "-h lists the same options as --help, without details" test_help_short
t_run "--help and the man page list the same options" test_help_matches_man
t_run "the man page's examples render without broken lines" test_man_examples
t_run "--help does not run the command" test_help_runs_nothing
t_run "--version exits 0 with a version" test_version
t_run "--interval=50 is accepted" test_interval_long_equals
t_run "--interval 50 is accepted" test_interval_long_separate
t_run "-i50 is accepted" test_interval_attached
t_run "--descendants=leave|wait|kill are accepted" test_descendants_values
t_run "options combine" test_combined_options
t_done
