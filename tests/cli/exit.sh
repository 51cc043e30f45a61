#!/bin/bash
# Exit status (HACKING.md, "Exit status"): the workload's own status, 128+N for a
# death by signal N, 127 not found, 126 not executable, 125 for joulestat's
# own failures and usage errors, with a one-line message and the usage line.
. "$(dirname "$0")/lib.sh"

# run_status WANT ARGS...: joulestat ARGS... must exit with WANT.
run_status() {
	want=$1
	shift
	try "$JOULESTAT" "$@"
	assert_rc "$want"
}

test_exit_zero() {
	run_status 0 -- "$JS_WORK" exit 0
}

test_exit_seven() {
	run_status 7 -- "$JS_WORK" exit 7
}

test_exit_255() {
	run_status 255 -- "$JS_WORK" exit 255
}

test_signal_term() {
	run_status 143 -- "$JS_WORK" signal TERM
}

test_signal_kill() {
	run_status 137 -- "$JS_WORK" signal KILL
}

test_signal_segv() {
	run_status 139 -- "$JS_WORK" signal SEGV
}

test_not_found_path() {
	run_status 127 -- /nonexistent/x
}

test_not_found_in_path() {
	run_status 127 -- no-such-cmd-xyz
}

# A script whose interpreter is missing: exec says ENOENT as for a missing
# script, so the message must say which of the two is missing.
test_interpreter_not_found() {
	# valgrind cannot survive a failed execve in the forked child (it exits 101).
	[ -z "${WRAP:-}" ] || skip "under a checker (${WRAP%% *}), which a failed exec kills"
	mkdir bin
	printf '#!/nonexistent/sh -e\nexit 0\n' >bin/js-badinterp
	chmod 755 bin/js-badinterp
	run_status 127 -- ./bin/js-badinterp
	assert_match err "^joulestat: cannot run '\./bin/js-badinterp': interpreter '/nonexistent/sh' not found\$"
	PATH="$PWD/bin:$PATH" run_status 127 -- js-badinterp
	assert_match err "^joulestat: cannot run 'js-badinterp': interpreter '/nonexistent/sh' not found\$"
	run_status 127 -- ./bin/nonexistent
	assert_match err "^joulestat: cannot run '\./bin/nonexistent': No such file or directory\$"
}

test_not_executable_file() {
	printf '#!/bin/sh\nexit 0\n' >noexec
	chmod 644 noexec
	run_status 126 -- ./noexec
}

test_not_executable_in_path() {
	mkdir bin
	printf '#!/bin/sh\nexit 0\n' >bin/js-noexec
	chmod 644 bin/js-noexec
	PATH="$PWD/bin:$PATH" run_status 126 -- js-noexec
}

test_directory() {
	mkdir adir
	run_status 126 -- ./adir
	# An empty name is no file (not "dir/", a directory in PATH, with its interpreter missing).
	run_status 127 -- ''
	assert_match err "cannot run '': No such file or directory"
}

# An executable file without "#!" runs under /bin/sh (execvp(3)), which
# copies the whole argv: 100,000 arguments still fit the start.
test_script_many_args() {
	printf 'exit 4\n' >noshebang
	chmod +x noshebang
	# shellcheck disable=SC2046
	run_status 4 -q -- ./noshebang $(seq 100000)
}

# assert_usage WORD...: stderr is "joulestat: ..." naming one of WORD,
# then "usage: joulestat ..."; nothing on stdout.
assert_usage() {
	head -n 1 err | grep -q '^joulestat: ' ||
	    fail "first line of stderr does not start with 'joulestat: '"
	t_named=no
	for w in "$@"; do
		head -n 1 err | grep -qF -- "$w" && t_named=yes
	done
	[ "$t_named" = yes ] || fail "the message names none of: $*"
	sed -n 2p err | grep -q '^usage: joulestat' ||
	    fail "second line of stderr is not the usage line"
	[ ! -s out ] || fail "stdout is not empty"
}

# usage_error "WORD..." ARGS...: joulestat ARGS... -- js-work exit 0 is a
# usage error naming one of WORD, and the workload never runs.
usage_error() {
	words=$1
	shift
	try "$JOULESTAT" "$@" -- "$JS_WORK" -p ran exit 0
	assert_rc 125
	# shellcheck disable=SC2086
	assert_usage $words
	[ ! -e ran ] || fail "the workload ran despite the usage error"
}

test_unknown_long_option() {
	usage_error "--no-such-option" --no-such-option
}

test_unknown_short_option() {
	usage_error "-Z Z" -Z
}

test_interval_zero() {
	usage_error "interval -i 0" -i 0
}

test_interval_abc() {
	usage_error "interval abc" -i abc
}

test_interval_too_big() {
	usage_error "interval 60001" -i 60001
}

test_interval_trailing_junk() {
	usage_error "interval 10x" -i 10x
}

test_interval_negative() {
	usage_error "interval -1" -i -1
}

test_interval_missing_value() {
	try "$JOULESTAT" -i
	assert_rc 125
	assert_usage interval -i
}

test_no_command() {
	try "$JOULESTAT"
	assert_rc 125
	assert_usage command pid COMMAND PID
}

test_only_dashdash() {
	try "$JOULESTAT" --
	assert_rc 125
	assert_usage command pid COMMAND PID
}

test_pid_abc() {
	try "$JOULESTAT" -p abc
	assert_rc 125
	assert_usage abc pid
}

test_pid_list_with_junk() {
	try "$JOULESTAT" -p "$$,abc"
	assert_rc 125
	assert_usage abc pid
}

test_pid_not_running() {
	dead=$(sh -c 'echo $$')
	try "$JOULESTAT" -p "$dead"
	assert_rc 125
	head -n 1 err | grep -q '^joulestat: ' ||
	    fail "first line of stderr does not start with 'joulestat: '"
	assert_match err "$dead"
}

test_interval_one_accepted() {
	run_status 0 -i 1 -- "$JS_WORK" exit 0
}

# An interval of a minute must not hold the report back once the workload is done.
test_interval_max_accepted() {
	run_status 0 -i 60000 -- "$JS_WORK" exit 0
}

t_run "exit status 0 passes through" test_exit_zero
t_run "exit status 7 passes through" test_exit_seven
t_run "exit status 255 passes through" test_exit_255
t_run "death by SIGTERM is 143" test_signal_term
t_run "death by SIGKILL is 137" test_signal_kill
t_run "death by SIGSEGV is 139" test_signal_segv
t_run "absolute path not found is 127" test_not_found_path
t_run "command not in PATH is 127" test_not_found_in_path
t_run "a missing #! interpreter is named, not the script" test_interpreter_not_found
t_run "file without x bit is 126" test_not_executable_file
t_run "non-executable file found in PATH is 126" test_not_executable_in_path
t_run "directory is 126" test_directory
t_run "a script without #! and 100,000 arguments runs" test_script_many_args
t_run "unknown long option is a usage error" test_unknown_long_option
t_run "unknown short option is a usage error" test_unknown_short_option
t_run "-i 0 is a usage error" test_interval_zero
t_run "-i abc is a usage error" test_interval_abc
t_run "-i 60001 is a usage error" test_interval_too_big
t_run "-i 10x is a usage error" test_interval_trailing_junk
t_run "-i -1 is a usage error" test_interval_negative
t_run "-i without a value is a usage error" test_interval_missing_value
t_run "no command and no -p is a usage error" test_no_command
t_run "-- and nothing else is a usage error" test_only_dashdash
t_run "-p abc is a usage error" test_pid_abc
t_run "-p with a bad list element is a usage error" test_pid_list_with_junk
t_run "-p with a pid that does not exist is 125" test_pid_not_running
t_run "-i 1 is accepted" test_interval_one_accepted
t_run "-i 60000 is accepted" test_interval_max_accepted
t_done
