#!/bin/bash
# Argument handling: option parsing stops at the first non-option (or at
# "--"), and the workload's arguments reach it byte for byte.  js-work args
# prints each argument on its own line with odd bytes as \xHH, so the
# comparisons below see spaces, empty strings and non-UTF-8 bytes.
. "$(dirname "$0")/lib.sh"

# expect LINE...: stdout of the last try is exactly these lines.
expect() {
	printf '%s\n' "$@" >expected
	cmp -s expected out || fail "stdout differs: got '$(cat out)', want '$(cat expected)'"
}

# same_as_direct ARG...: joulestat -- js-work args ARG... prints exactly
# what js-work args ARG... prints on its own.
same_as_direct() {
	timeout $((10 * TIMEOUT_MULT)) "$JS_WORK" args "$@" >direct </dev/null ||
	    fail "js-work args failed on its own"
	try "$JOULESTAT" -- "$JS_WORK" args "$@"
	assert_rc 0
	cmp -s direct out || fail "arguments changed on the way: got '$(head -c 2000 out)'"
}

test_stops_at_first_non_option() {
	try "$JOULESTAT" "$JS_WORK" args -x --foo
	assert_rc 0
	expect -x --foo
}

test_dashdash() {
	try "$JOULESTAT" -- "$JS_WORK" args -x --foo
	assert_rc 0
	expect -x --foo
}

# The workload's options that look like joulestat's stay the workload's.
test_own_options_then_workload_options() {
	try "$JOULESTAT" -q -i 50 "$JS_WORK" args -q -i 50 -o x -p 1 --help
	assert_rc 0
	expect -q -i 50 -o x -p 1 --help
	[ ! -s err ] || fail "-q before the command was not joulestat's"
}

test_dashdash_after_command() {
	try "$JOULESTAT" "$JS_WORK" args -- x
	assert_rc 0
	expect -- x
}

test_second_dashdash() {
	try "$JOULESTAT" -- "$JS_WORK" args -- --
	assert_rc 0
	expect -- --
}

test_empty_argument() {
	try "$JOULESTAT" -- "$JS_WORK" args ''
	assert_rc 0
	expect ''
}

test_empty_arguments_between() {
	try "$JOULESTAT" -- "$JS_WORK" args '' a '' ''
	assert_rc 0
	expect '' a '' ''
}

test_spaces_and_quotes() {
	try "$JOULESTAT" -- "$JS_WORK" args 'two words' "it's" '"dq"' ' lead' 'trail '
	assert_rc 0
	expect 'two\x20words' "it's" '"dq"' '\x20lead' 'trail\x20'
}

test_non_utf8() {
	try "$JOULESTAT" -- "$JS_WORK" args $'\xff\xfe' $'a\x80b' $'\xc3\xa9'
	assert_rc 0
	expect '\xff\xfe' 'a\x80b' '\xc3\xa9'
}

test_newlines_and_controls() {
	try "$JOULESTAT" -- "$JS_WORK" args $'line1\nline2' $'tab\there' $'cr\r' $'\x01\x1b'
	assert_rc 0
	expect 'line1\x0aline2' 'tab\x09here' 'cr\x0d' '\x01\x1b'
}

test_shell_and_format_characters() {
	same_as_direct '%s%n%d%%' '$HOME' '`id`' '*' '\\back' ';|&' '{a,b}' '~'
}

test_everything_matches_direct_run() {
	same_as_direct 'two words' '' "it's" '"dq"' $'\xff\xfe' $'l1\nl2\n' \
	    $'\t' -- -x --foo=bar '' ' '
}

test_many_arguments() {
	# shellcheck disable=SC2046
	same_as_direct $(seq 1 5000)
}

test_long_argument() {
	long=$(head -c 100000 /dev/zero | tr '\0' 'a')
	same_as_direct "$long" b
}

test_command_path_with_spaces() {
	mkdir 'dir with space'
	cp "$JS_WORK" 'dir with space/js work'
	try "$JOULESTAT" -- "$PWD/dir with space/js work" args ok
	assert_rc 0
	expect ok
}

test_command_found_in_path() {
	mkdir bin
	cp "$JS_WORK" bin/js-work-copy
	PATH="$PWD/bin:$PATH" try "$JOULESTAT" -- js-work-copy args ok
	assert_rc 0
	expect ok
}

t_run "parsing stops at the first non-option" test_stops_at_first_non_option
t_run "-- ends joulestat's options" test_dashdash
t_run "options after the command belong to the workload" test_own_options_then_workload_options
t_run "-- after the command reaches the workload" test_dashdash_after_command
t_run "a second -- reaches the workload" test_second_dashdash
t_run "an empty argument arrives" test_empty_argument
t_run "several empty arguments arrive in place" test_empty_arguments_between
t_run "spaces and quotes arrive unchanged" test_spaces_and_quotes
t_run "non-UTF-8 bytes arrive unchanged" test_non_utf8
t_run "newlines and control bytes arrive unchanged" test_newlines_and_controls
t_run "shell and printf metacharacters arrive unchanged" test_shell_and_format_characters
t_run "a mixed argument list matches a direct run" test_everything_matches_direct_run
t_run "5000 arguments arrive" test_many_arguments
t_run "a 100 kB argument arrives" test_long_argument
t_run "a command path with spaces runs" test_command_path_with_spaces
t_run "a command is searched in PATH" test_command_found_in_path
t_done
