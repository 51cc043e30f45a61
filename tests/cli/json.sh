#!/bin/bash
# The JSON report (--json=FILE) end to end, on the simulated NVML
# where devices are needed (--nvml-lib=$SIMLIB, NVSIM_SCENARIO).  Every
# check reads the JSON through jsontool (jansson, duplicate keys rejected)
# and the CSV through csvtool, never with grep or awk.  The JSON must be
# valid and say what the CSV summary of the same run says: the same text,
# null exactly where the CSV field is empty, and numbers within half a unit
# of the CSV's last printed decimal.  Every key must be documented in the
# man page's JSON section.
. "$(dirname "$0")/lib.sh"
: "${SIMLIB:?}" "${TOP:?}" "${CSVTOOL:?}" "${JSONTOOL:?}"

SCN=$TOP/tests/sim/scenarios

# need_json: skip the test until joulestat writes --json files.
need_json() {
	try "$JOULESTAT" --json=probe.json -- "$JS_WORK" exit 0
	[ "$rc" -eq 0 ] && [ -s probe.json ] || skip "--json does not write a file yet"
	rm -f probe.json
}

# js_sim SCENARIO JOULESTAT-ARGS...: joulestat on the simulated GPU playing
# SCENARIO, the JSON in ./r.json and the summary CSV in ./s.csv.
js_sim() {
	j_scn=$SCN/$1
	shift
	try env NVSIM_SCENARIO="$j_scn" "$JOULESTAT" --nvml-lib="$SIMLIB" --json=r.json \
	    --csv=s.csv "$@"
}

# json_ok FILE: valid JSON with schema_version 1 (an integer).
json_ok() {
	"$JSONTOOL" check "$1" >check.out 2>&1 || fail "$1 is not valid JSON: $(cat check.out)"
	jtype "$1" .schema_version
	assert_eq "$j_v" integer "type of schema_version"
	jget "$1" .schema_version
	assert_eq "$j_v" 1 schema_version
}

# jget FILE PATH / jtype FILE PATH / jlen FILE PATH: through jsontool, in $j_v.
jget() {
	j_v=$("$JSONTOOL" get "$1" "$2" 2>jsontool.err) ||
	    fail "jsontool get $1 $2: $(cat jsontool.err)"
}

jtype() {
	j_v=$("$JSONTOOL" type "$1" "$2" 2>jsontool.err) ||
	    fail "jsontool type $1 $2: $(cat jsontool.err)"
}

jlen() {
	j_v=$("$JSONTOOL" len "$1" "$2" 2>jsontool.err) ||
	    fail "jsontool len $1 $2: $(cat jsontool.err)"
}

# agree JPATH COLUMN [KEY=VALUE...]: r.json at JPATH and s.csv's COLUMN in
# the first row matching the filters say the same thing: both unknown
# (null, empty field), the same text, or a JSON number within half a unit
# of the CSV number's last decimal.
agree() {
	a_path=$1
	shift
	jget r.json "$a_path"
	a_j=$j_v
	csv_get s.csv "$@"
	a_c=$csv_v
	if [ -z "$a_c" ]; then
		assert_eq "$a_j" null "$a_path (CSV $1 is empty)"
	elif printf '%s\n' "$a_c" | grep -Eqx -- '-?[0-9]+(\.[0-9]+)?'; then
		jtype r.json "$a_path"
		case $j_v in
		integer | real) ;;
		*) fail "$a_path is a $j_v, CSV $1 is the number $a_c" ;;
		esac
		a_dec=${a_c#*.}
		[ "$a_dec" = "$a_c" ] && a_dec=
		a_tol=$(awk -v p="${#a_dec}" 'BEGIN { printf "%.12f", 0.5 * 10 ^ -p + 1e-9 }')
		assert_near "$a_j" "$a_c" "$a_tol" "$a_path vs CSV $1 ($*)"
	else
		assert_eq "$a_j" "$a_c" "$a_path vs CSV $1 ($*)"
	fi
}

# agree_all PREFIX FILTERS <<< "JKEY COLUMN" lines: agree for each line.
agree_all() {
	g_prefix=$1
	g_filters=$2
	while read -r g_key g_col; do
		[ -n "$g_key" ] || continue
		# shellcheck disable=SC2086
		agree "$g_prefix.$g_key" "$g_col" $g_filters
	done
}

RUN_PAIRS='run run
command command
outcome outcome
exit_status exit_status
wall_s wall_s
user_s user_s
sys_s sys_s
max_rss_kib max_rss_kib
peak_tree_rss_kib peak_tree_rss_kib
processes processes
max_concurrent max_concurrent
still_running still_running
sampler.interval_ms interval_ms
sampler.ticks ticks
sampler.missed_ticks missed_ticks
sampler.late_max_ms late_max_ms
sampler.late_p99_ms late_p99_ms
sampler.cpu_s sampler_cpu_s'

DEVICE_PAIRS='id device_id
name device_name
backend backend
power_kind power_kind
energy_j energy_j
energy_method energy_method
energies_j.counter energy_counter_j
energies_j.driver_samples energy_driver_samples_j
energies_j.readings energy_readings_j
window_s time_s
avg_power_w avg_power_w
peak_power_w peak_power_w
lost_readings lost_readings
lost_s lost_s
throttled_power_s throttled_power_s
throttled_thermal_s throttled_thermal_s
idle_power_w idle_power_w
idle_method idle_method
energy_above_idle_j energy_above_idle_j'

PSTATE_PAIRS='time_s time_s
share time_share
energy_j energy_j
avg_power_w avg_power_w
avg_sm_mhz avg_sm_mhz'

ATTRIB_PAIRS='attribution.workload_energy_j workload_energy_j
attribution.other_energy_j other_energy_j
attribution.unattributed_energy_j unattributed_energy_j
attribution.energy_share energy_share'

PROCESS_PAIRS='process process
sm_pct sm_pct
mem_pct mem_pct
gpu_mem_kib gpu_mem_kib
energy_j energy_j
energy_method energy_method
energy_share energy_share'

# devices_agree [K]: every device and every P-state of run K (default 0)
# agrees with the CSV rows of run K + 1.
devices_agree() {
	d_r=${1:-0}
	d_run=run=$((d_r + 1))
	jlen r.json ".runs[$d_r].devices"
	d_n=$j_v
	assert_eq "$d_n" "$("$CSVTOOL" count s.csv scope=device "$d_run")" \
	    "devices vs CSV device rows"
	for d_i in $(seq 0 $((d_n - 1))); do
		d_p=".runs[$d_r].devices[$d_i]"
		jget r.json "$d_p.index"
		assert_eq "$j_v" "$d_i" "$d_p.index"
		agree_all "$d_p" "scope=device $d_run device=$d_i" <<<"$DEVICE_PAIRS"
		jlen r.json "$d_p.pstates"
		assert_eq "$j_v" "$("$CSVTOOL" count s.csv scope=pstate "$d_run" device="$d_i")" \
		    "$d_p.pstates vs CSV pstate rows"
		for s_i in $(seq 0 $((j_v - 1))); do
			jget r.json "$d_p.pstates[$s_i].pstate"
			agree_all "$d_p.pstates[$s_i]" \
			    "scope=pstate $d_run device=$d_i pstate=$j_v" <<<"$PSTATE_PAIRS"
		done
	done
}

# A counter, 1 s averaged readings and three P-states (demo.scn): every
# figure of the run, the device and each P-state agrees with the CSV.
test_counter_run_agrees() {
	need_json
	js_sim demo.scn -- "$JS_WORK" sleep 2500ms
	assert_rc 0
	json_ok r.json
	jlen r.json .runs
	assert_eq "$j_v" 1 "runs"
	agree_all .runs[0] scope=run <<<"$RUN_PAIRS"
	devices_agree
	jget r.json .runs[0].devices[0].energy_method
	assert_eq "$j_v" counter "energy_method"
	jtype r.json .runs[0].devices[0].energy_j
	assert_eq "$j_v" real "type of energy_j"
	jtype r.json .runs[0].devices[0].lost_readings
	assert_eq "$j_v" integer "type of lost_readings"
	jlen r.json .runs[0].devices[0].pstates
	assert_ge "$j_v" 3 "P-states of demo.scn seen"
}

# Two GPUs, one without an energy counter (two-gpus.scn): its counter
# energy is null where the CSV field is empty.
test_two_gpus_agree() {
	need_json
	js_sim two-gpus.scn -- "$JS_WORK" sleep 1s
	assert_rc 0
	json_ok r.json
	jlen r.json .runs[0].devices
	assert_eq "$j_v" 2 devices
	devices_agree
	jget r.json .runs[0].devices[1].energies_j.counter
	assert_eq "$j_v" null "energies_j.counter of the GPU without a counter"
}

# A shared GPU with a given idle power (attrib-shared.scn): the attribution
# and the workload process agree with the CSV, and the process is the one
# js-work reported.
test_attribution_agrees() {
	need_json
	js_sim attrib-shared.scn --idle-power=100 -- "$JS_WORK" -p w sleep 2s
	assert_rc 0
	json_ok r.json
	read -r wpid <w
	agree_all .runs[0].devices[0] "scope=device device=0" <<<"$ATTRIB_PAIRS"
	agree_all .runs[0].devices[0] "scope=device device=0" <<<"$DEVICE_PAIRS"
	jget r.json .runs[0].devices[0].attribution.method
	assert_eq "$j_v" estimate "attribution.method"
	jlen r.json .runs[0].devices[0].processes
	assert_eq "$j_v" "$("$CSVTOOL" count s.csv scope=process device=0)" "processes vs CSV"
	jget r.json .runs[0].devices[0].processes[0].pid
	assert_eq "$j_v" "$wpid" "pid of the workload process"
	agree_all .runs[0].devices[0].processes[0] "scope=process pid=$wpid" <<<"$PROCESS_PAIRS"
	jget r.json .runs[0].devices[0].other_processes.sm_pct
	assert_near "$j_v" 40 0.01 "other_processes.sm_pct"
}

# -r 2: two runs, each agreeing with its own CSV rows.
test_repeat() {
	need_json
	js_sim two-gpus.scn -r 2 -- "$JS_WORK" sleep 300ms
	[ "$rc" -ne 125 ] || skip "-r 2 is refused: $(head -n 1 err)"
	assert_rc 0
	json_ok r.json
	jlen r.json .runs
	assert_eq "$j_v" 2 runs
	for k in 0 1; do
		jget r.json ".runs[$k].run"
		assert_eq "$j_v" $((k + 1)) ".runs[$k].run"
		agree_all ".runs[$k]" "scope=run run=$((k + 1))" <<<"$RUN_PAIRS"
		devices_agree "$k"
	done
}

test_stdout() {
	need_json
	try "$JOULESTAT" --json=- -- "$JS_WORK" exit 0
	assert_rc 0
	json_ok out
	jget out .runs[0].exit_status
	assert_eq "$j_v" 0 exit_status
	assert_match err 'wall time'
}

# Without NVML (and with an empty sysfs, so no other backend finds a
# device): no devices, and the reason among the notes.
test_without_nvml() {
	need_json
	mkdir empty
	JOULESTAT_SYSFS_ROOT=$PWD/empty try "$JOULESTAT" \
	    --nvml-lib=/nonexistent/libnvidia-ml.so.1 --json=r.json -- "$JS_WORK" exit 7
	assert_rc 7
	json_ok r.json
	jtype r.json .runs[0].devices
	assert_eq "$j_v" array "type of devices"
	jlen r.json .runs[0].devices
	assert_eq "$j_v" 0 devices
	jget r.json .runs[0].notes[0]
	case $j_v in
	"nvml: not available: "*) ;;
	*) fail "first note: '$j_v'" ;;
	esac
	jget r.json .runs[0].exit_status
	assert_eq "$j_v" 7 exit_status
}

# An --json that cannot be created: one line naming the file, exit 125,
# before the workload runs; an earlier summary is left as it was.
test_unwritable() {
	need_json
	echo earlier >s.csv
	try "$JOULESTAT" --json=/nonexistent/dir/r.json --csv=s.csv -- "$JS_WORK" -p ran exit 0
	assert_rc 125
	[ ! -e ran ] || fail "the workload ran"
	assert_eq "$(cat s.csv)" earlier "the earlier s.csv"
	assert_eq "$(grep -c 'r\.json' err)" 1 "lines of stderr naming r.json"
	assert_match err '^joulestat: /nonexistent/dir/r\.json: No such file or directory$'
	try "$JOULESTAT" --json=/nonexistent/dir/r.json -- "$JS_WORK" exit 7
	assert_rc 125
}

# Attach mode (-p): no exit status of ours, CPU times sampled from /proc,
# no rusage RSS; the run still agrees with the CSV.
test_attached() {
	need_json
	timeout -k 5 $((60 * TIMEOUT_MULT)) "$JS_WORK" pidfile f $((1 * TIMEOUT_MULT))s \
	    </dev/null >/dev/null 2>&1 &
	t_kill_later TERM $!
	wait_file f
	t_kill_later KILL "$t_file_pid"
	try "$JOULESTAT" -i 20 --json=r.json --csv=s.csv -p "$t_file_pid"
	assert_rc 0
	json_ok r.json
	agree_all .runs[0] scope=run <<<"$RUN_PAIRS"
	jget r.json .runs[0].outcome
	assert_eq "$j_v" attached outcome
	jget r.json .runs[0].exit_status
	assert_eq "$j_v" null exit_status
	jget r.json .runs[0].max_rss_kib
	assert_eq "$j_v" null max_rss_kib
	jget r.json .runs[0].cpu_sampled
	assert_eq "$j_v" true cpu_sampled
	jget r.json .runs[0].attached_processes
	assert_eq "$j_v" 1 attached_processes
}

# Quotes, a newline and a byte that is not UTF-8 in the command: valid
# JSON, the text kept, the bad byte as U+FFFD.
test_command_strings() {
	need_json
	try "$JOULESTAT" --json=r.json -- "$JS_WORK" args 'say "hi"\' "$(printf 'two\nlines')" \
	    "$(printf 'caf\351')"
	assert_rc 0
	json_ok r.json
	jget r.json .runs[0].command
	assert_eq "$j_v" "$(printf '%s args say "hi"\\ two\nlines caf\357\277\275' "$JS_WORK")" \
	    command
	# A runtime's device mask from the environment, not UTF-8: the same, and
	# the other forms written too (before: "Cannot allocate memory", none of them).
	try env CUDA_VISIBLE_DEVICES="$(printf '\377')" "$JOULESTAT" -q --json=v.json \
	    --markdown=v.md -- true
	assert_rc 0
	json_ok v.json
	jget v.json .runs[0].visible_devices
	assert_eq "$j_v" "$(printf 'CUDA_VISIBLE_DEVICES=\357\277\275')" visible_devices
	[ -s v.md ] || fail "no Markdown"
}

test_outcomes() {
	need_json
	try "$JOULESTAT" --json=r.json --csv=s.csv -- "$JS_WORK" signal TERM
	assert_rc 143
	json_ok r.json
	agree_all .runs[0] scope=run <<<"$RUN_PAIRS"
	jget r.json .runs[0].outcome
	assert_eq "$j_v" signaled outcome
	jget r.json .runs[0].signal
	assert_eq "$j_v" 15 signal
	try "$JOULESTAT" --json=r.json --csv=s.csv -- "$TOP/nonexistent/command"
	assert_rc 127
	json_ok r.json
	agree .runs[0].outcome outcome scope=run
	jget r.json .runs[0].exec_errno
	assert_eq "$j_v" 2 "exec_errno (ENOENT)"
	jget r.json .runs[0].exit_status
	assert_eq "$j_v" 127 exit_status
}

# A locale with a decimal comma must not leak into the JSON.
test_comma_locale() {
	need_json
	command -v localedef >/dev/null || skip "no localedef"
	[ -e /usr/share/i18n/locales/de_DE ] || skip "no de_DE locale source"
	mkdir loc
	localedef -i de_DE -f UTF-8 loc/de_DE.UTF-8 >/dev/null 2>&1 ||
	    skip "localedef de_DE failed"
	LOCPATH=$PWD/loc LC_ALL=de_DE.UTF-8 js_sim demo.scn -- "$JS_WORK" spin 300ms
	assert_rc 0
	json_ok r.json
	agree_all .runs[0] scope=run <<<"$RUN_PAIRS"
	devices_agree
}

# Every key that a rich run writes is documented in the man page's JSON
# section (as a .Cm argument).
test_keys_documented() {
	need_json
	js_sim attrib-shared.scn --idle-power=100 -- "$JS_WORK" sleep 1s
	assert_rc 0
	"$JSONTOOL" keys r.json >keys || fail "jsontool keys failed"
	# The arguments of every Cm macro, up to the next macro.
	awk '/^\.Sh JSON$/ { on = 1; next } /^\.Sh / { on = 0 }
	    on {
		for (i = 1; i <= NF; i++) {
			if ($i != "Cm" && $i != ".Cm")
				continue
			for (k = i + 1; k <= NF && $k !~ /^[A-Z][a-z][a-z]?$/; k++)
				if ($k ~ /^[a-z0-9_]+$/)
					print $k
		}
	    }' "$TOP/man/joulestat.1" | sort -u >documented
	[ -s documented ] || fail "the man page has no JSON section"
	sed 's/.*\.//' keys | sort -u >used
	comm -23 used documented >undocumented
	[ ! -s undocumented ] || fail "keys missing from the man page: $(tr '\n' ' ' <undocumented)"
}

t_run "demo.scn: run, device and P-state figures agree with the CSV" test_counter_run_agrees
t_run "two GPUs, one without a counter: null where the CSV is empty" test_two_gpus_agree
t_run "shared GPU: attribution and process energy agree with the CSV" test_attribution_agrees
t_run "-r 2: one element of runs per run, each agreeing with the CSV" test_repeat
t_run "--json=- writes the JSON to stdout" test_stdout
t_run "without NVML the devices array is empty" test_without_nvml
t_run "an uncreatable --json path: one line, 125, before the workload runs" test_unwritable
t_run "attach mode: null exit status and RSS, sampled CPU times" test_attached
t_run "quotes, newlines and non-UTF-8 bytes in the command" test_command_strings
t_run "death by signal and exec failure are in the JSON" test_outcomes
t_run "numbers stay C-locale under a decimal-comma locale" test_comma_locale
t_run "every key is documented in the man page" test_keys_documented
t_done
