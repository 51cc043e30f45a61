#!/bin/bash
# Progress while the workload runs (joulestat(1), PROGRESS): -I MS prints a
# line per device every MS on stderr, the figures of that reading's
# timeline row; on a terminal a status line is drawn in place and erased
# before the report, and nothing of it reaches a file or a pipe.  The
# terminal is a pseudo-terminal from script(1).
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

sim() {
	scn=$1
	shift
	NVSIM_SCENARIO=$SCN/$scn try "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

need_script() {
	command -v script >/dev/null 2>&1 || skip "script(1) is not installed"
}

# on_tty OUT CMD...: run CMD with stdin, stdout and stderr on a
# pseudo-terminal; everything it wrote to the terminal, bytes as they came,
# in OUT.  $rc is CMD's status.
on_tty() {
	t_out=$1
	shift
	printf '%q ' "$@" >cmd.sh
	try script -qec "sh cmd.sh" /dev/null
	mv out "$t_out"
}

# screen FILE: what a terminal shows after FILE's bytes: a carriage return
# goes back to the start of the line, and what follows overwrites it.
screen() {
	awk '{
		n = 0; col = 0
		split("", cell)
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c == "\r") { col = 0; continue }
			cell[++col] = c
			if (col > n) n = col
		}
		s = ""
		for (i = 1; i <= n; i++) s = s cell[i]
		sub(/ +$/, "", s)
		print s
	}' "$1"
}

# The -I line of each device at each period is the first reading of that
# period, with the figures of its timeline row.
test_lines_are_readings() {
	sim two-gpus.scn -q -I 300 --timeline=t.csv -- "$JS_WORK" sleep 1.5s
	assert_rc 0
	assert_no_match err $'\r'
	grep -E '^joulestat: ' err >lines || fail "no -I lines"
	note "$(wc -l <lines) lines, e.g. $(head -n 1 lines)"
	# Every line is one of the two devices, in its shape.
	assert_eq "$(grep -Evc '^joulestat: +[0-9]+\.[0-9]{3} s device [01] \([^)]+\): [0-9]+\.[0-9] W, [0-9]+\.[0-9]{3} J so far \([a-z ]+\), P[0-9]+, ' lines)" 0 \
	    "lines of another shape"
	awk -v every=0.3 '
	FNR == 1 { file++ }
	file == 1 && FNR > 1 {
		split($0, f, ",")
		d = f[4]; t = f[3]
		k = int(t / every + 1e-9)
		# The first reading of each period after the first.
		if (k > 0 && !((d, k) in first)) {
			first[d, k] = t; pw[d, k] = f[7]; e[d, k] = f[8]; ps[d, k] = f[10]
			tsm[d, k] = f[17]; tmem[d, k] = f[18]
		}
		next
	}
	file == 2 {
		t = $2; d = $5
		k = int(t / every + 1e-9)
		if (!((d, k) in first)) { print "a line in a period without a reading: " $0; bad++; next }
		if (((d, k) in seen)) { print "two lines in one period: " $0; bad++ }
		seen[d, k] = 1
		if (sprintf("%.3f", first[d, k]) != t) { print "not the first reading (" first[d, k] "): " $0; bad++ }
		if (index($0, sprintf(": %.1f W, %.3f J so far", pw[d, k], e[d, k])) == 0) {
			print "power or energy differ from the row (" pw[d, k] " W, " e[d, k] " J): " $0; bad++
		}
		if (index($0, sprintf(", P%d,", ps[d, k])) == 0) { print "P-state differs (" ps[d, k] "): " $0; bad++ }
		if (tsm[d, k] != "" && index($0, sprintf("workload SM %.0f%% mem %.0f%%", tsm[d, k], tmem[d, k])) == 0) {
			print "workload load differs (" tsm[d, k] ", " tmem[d, k] "): " $0; bad++
		}
		if (tsm[d, k] == "" && index($0, "workload SM")) { print "a load without per-process data: " $0; bad++ }
		n++
	}
	END {
		for (key in first) if (!(key in seen)) { split(key, kk, SUBSEP); print "no line for device " kk[1] " in period " kk[2]; bad++ }
		if (n == 0) { print "no lines read"; bad++ }
		exit bad > 0
	}' t.csv lines >check.txt || fail "$(cat check.txt)"
	# The scenario's workload uses 95 % of device 0's SMs and 40 % of its memory.
	assert_match lines '^joulestat: +[0-9.]+ s device 0 .*, workload SM 95% mem 40%, others SM 0% mem 0%$'
	assert_match lines '^joulestat: +[0-9.]+ s device 1 .*\(integrated from driver samples\)'
}

# With -r: each line says its run; warm-up runs print none.
test_lines_name_the_run() {
	sim gate.scn -q -r 2 --warmup 1 -I 200 -- "$JS_WORK" sleep 0.7s
	assert_rc 0
	assert_match err '^joulestat: run 1/2 +0\.[0-9]{3} s device 0 '
	assert_match err '^joulestat: run 2/2 +0\.[0-9]{3} s device 0 '
	assert_no_match err 'warm-up|run 3/'
	assert_no_match err $'\r'
}

# A device without power readings, P-states or per-process data (RAPL):
# its lines say so, never 0 W.
test_lines_say_unknown() {
	try env JOULESTAT_SYSFS_ROOT="$TOP/tests/fixtures/rapl-2pkg/sys" "$JOULESTAT" -q -i 50 \
	    -I 100 -- "$JS_WORK" sleep 0.5s
	assert_rc 0
	assert_match err '^joulestat: +[0-9.]+ s device 0 \([^)]*\): power unknown, [0-9.]+ J so far \(counter\), no per-process data$'
	assert_no_match err ' 0\.0 W'
}

test_bad_values() {
	for v in 0 9 3600001 x 1.5 ''; do
		try "$JOULESTAT" -I "$v" -- true
		assert_rc 125
		head -n 1 err >first
		assert_match first "^joulestat: invalid --interval-print '$v': expected milliseconds from 10 to 3600000$"
		assert_match err '^usage: joulestat '
	done
}

# On a terminal: the status line is drawn (more than once in a run of a
# second) and what stays on the screen is the report alone.
test_status_line_on_a_terminal() {
	need_script
	on_tty raw env NVSIM_SCENARIO="$SCN/two-gpus.scn" "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    -r 2 -- "$JS_WORK" sleep 1s
	assert_rc 0
	tr '\r' '\n' <raw >draws
	assert_match draws '^joulestat: run 1/2 [0-9]+\.[0-9] s, [0-9]+\.[0-9] J so far on 2 devices *$'
	assert_match draws '^joulestat: run 2/2 [0-9]+\.[0-9] s, [0-9]+\.[0-9] J so far on 2 devices *$'
	screen raw >shown
	note "drawn $(grep -c 'so far' draws) times; the screen: $(grep -c . shown) lines"
	assert_no_match shown 'so far'
	assert_match shown '^ joulestat: .*js-work sleep 1s +\(2 runs\)$'
	assert_match shown '^ device 0: NVIDIA A100'
}

# -I lines on a terminal go above the status line, which is drawn again.
test_status_line_with_lines() {
	need_script
	on_tty raw env NVSIM_SCENARIO="$SCN/gate.scn" "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    -I 300 -- "$JS_WORK" sleep 1s
	assert_rc 0
	screen raw >shown
	assert_no_match shown 'so far on'
	assert_match shown '^joulestat: +0\.[0-9]{3} s device 0 .* J so far \(counter\)'
}

# Never into a file or a pipe, and not with -q.
test_no_status_line_off_a_terminal() {
	need_script
	on_tty raw env NVSIM_SCENARIO="$SCN/gate.scn" sh -c '"$@" 2>err.txt' sh "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" -- "$JS_WORK" sleep 0.6s
	assert_rc 0
	assert_match err.txt '^ joulestat: '
	assert_no_match err.txt $'\r'
	assert_no_match raw 'so far'
	on_tty raw env NVSIM_SCENARIO="$SCN/gate.scn" sh -c '"$@" 2>&1 | cat >piped.txt' sh \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" -- "$JS_WORK" sleep 0.6s
	assert_match piped.txt '^ joulestat: '
	assert_no_match piped.txt $'\r'
	on_tty raw env NVSIM_SCENARIO="$SCN/gate.scn" "$JOULESTAT" --nvml-lib="$SIMLIB" -q \
	    -- "$JS_WORK" sleep 0.6s
	assert_rc 0
	assert_no_match raw 'so far'
	[ ! -s raw ] || fail "-q on a terminal wrote: $(od -c raw | head -n 3)"
}

t_run "-I: a line per device per period, the figures of its reading" test_lines_are_readings
t_run "-I with -r: each line names its run" test_lines_name_the_run
t_run "-I: unknown figures are said, never 0" test_lines_say_unknown
t_run "-I: bad values exit 125 with one line" test_bad_values
t_run "a status line on a terminal, erased before the report" test_status_line_on_a_terminal
t_run "-I lines on a terminal with the status line" test_status_line_with_lines
t_run "no status line into a file, a pipe, or with -q" test_no_status_line_off_a_terminal
t_done
