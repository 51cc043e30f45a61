#!/bin/bash
# The CI-native forms, each checked by the tool that consumes it: the
# Markdown summary rendered by cmark-gfm (GitHub's own CommonMark fork),
# JUnit XML validated by xmllint against tests/junit/JUnit.xsd, the metrics
# text checked by promtool (Prometheus); `joulestat report` drawing the same
# text from a --json file; GitHub annotations; the run metadata in CSV and
# JSON; the CSV totals, series rows and long form; unit suffixes; the
# P-state names of the timeline; --list-devices --require and --json.
# gate.scn is a steady 100 W, so a run's energy is 100 J per second.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios
XSD=$TOP/tests/junit/JUnit.xsd

sim() {
	scn=$1
	shift
	NVSIM_SCENARIO=$SCN/$scn try env -u GITHUB_ACTIONS -u GITHUB_STEP_SUMMARY \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" "$@"
}

# A run with one gate that passes and one that fails, in every form.
gated_run() {
	sim gate.scn -q --json=j.json --csv=s.csv --markdown=m.md --junit=j.xml \
	    --openmetrics=m.prom --max-energy=10kJ --max-time=100ms "$@" -- "$JS_WORK" sleep 0.5s
	assert_rc 3
}

jget() {
	j_v=$("$JSONTOOL" get "${2:-j.json}" "$1") || fail "no $1 in ${2:-j.json}"
}

# html_cell FILE XPATH: the text of a node of the HTML cmark-gfm made, in $h_v.
html_cell() {
	{ echo '<html><head><meta charset="utf-8"></head><body>'; cat "$1"
	    echo '</body></html>'; } >"$1.html"
	h_v=$(xmllint --html --xpath "normalize-space($2)" "$1.html" 2>/dev/null) ||
	    fail "xmllint --xpath $2 on $1"
}

test_markdown_renders_as_tables() {
	gated_run
	cmark-gfm -e table m.md >m.html || fail "cmark-gfm refused m.md"
	[ "$(grep -c '<table>' m.html)" -eq 3 ] || fail "expected 3 tables: runs, devices, gates"
	jget '.runs[0].devices[0].energy_j'
	e=$(printf '%.3f' "$j_v")
	jget '.runs[0].devices[0].energy_err_j'
	err=$(printf '%.3f' "$j_v")
	html_cell m.html '(//table)[2]/tbody/tr[1]/td[4]'
	assert_eq "$h_v" "$e ± $err J" "device energy cell, with its bound"
	html_cell m.html '(//table)[2]/tbody/tr[1]/td[3]'
	assert_eq "$h_v" "NVIDIA H100 80GB HBM3" "device name cell"
	html_cell m.html '(//table)[3]/tbody/tr[1]/td[5]'
	assert_eq "$h_v" "pass" "--max-energy verdict"
	html_cell m.html '(//table)[3]/tbody/tr[2]/td[1]'
	assert_eq "$h_v" "--max-time" "second gate"
	html_cell m.html '(//table)[3]/tbody/tr[2]/td[5]'
	assert_eq "$h_v" "FAIL" "--max-time verdict"
	assert_match m.html '<strong>FAIL</strong>'
	html_cell m.html '(//table)[3]/tbody/tr[2]/td[4]'
	assert_eq "$h_v" "<= 0.100 s" "--max-time limit"
	html_cell m.html '(//table)[2]/tbody/tr[1]/td[7]'
	printf '%s\n' "$h_v" | grep -Eqx '(P[02] [0-9.]+ %, ){1}P[02] [0-9.]+ %' ||
	    fail "P-states cell: $h_v"
}

# Text from the run cannot break a cell or turn into markup.
test_markdown_escapes_command() {
	sim gate.scn -q --markdown=m.md -- "$JS_WORK" args '|*x*|' '<b>' '`c`'
	assert_rc 0
	cmark-gfm -e table m.md >m.html || fail "cmark-gfm refused m.md"
	assert_no_match m.html '<em>|<b>|<code>'
	html_cell m.html '//h3'
	assert_eq "$h_v" "joulestat: $JS_WORK args |*x*| <b> \`c\`" "heading"
	[ "$(grep -c '<td' m.html)" -gt 0 ] || fail "no cells"
	html_cell m.html 'count((//table)[1]/tbody/tr[1]/td)'
	assert_eq "$h_v" 5 "cells of the run row"
}

test_markdown_github_appends() {
	printf 'earlier step\n' >summary.md
	NVSIM_SCENARIO=$SCN/gate.scn try env GITHUB_STEP_SUMMARY="$PWD/summary.md" \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" -q --markdown=github -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	assert_eq "$(head -n 1 summary.md)" "earlier step" "what was there stays"
	assert_match summary.md '^### joulestat: '
	assert_match summary.md '^\| run \| exit status'
	# Unset: no summary and no complaint, so one command line works off CI too.
	NVSIM_SCENARIO=$SCN/gate.scn try env -u GITHUB_STEP_SUMMARY \
	    "$JOULESTAT" --nvml-lib="$SIMLIB" -q --markdown=github -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	[ ! -e github ] || fail "wrote a file named github"
	[ ! -s err ] || fail "said something: $(cat err)"
}

test_junit_validates() {
	gated_run
	xmllint --noout --schema "$XSD" j.xml 2>x.err || fail "JUnit.xsd: $(cat x.err)"
	if [ -n "${JOULESTAT_JUNIT_XSD:-}" ]; then
		xmllint --noout --schema "$JOULESTAT_JUNIT_XSD" j.xml 2>x.err ||
		    fail "$JOULESTAT_JUNIT_XSD: $(cat x.err)"
	fi
	x() { xmllint --xpath "$1" j.xml; }
	assert_eq "$(x 'string(//testsuite/@tests)')" 2 "tests"
	assert_eq "$(x 'string(//testsuite/@failures)')" 1 "failures"
	assert_eq "$(x 'count(//testcase[failure])')" 1 "failed cases"
	assert_eq "$(x 'string(//testcase[failure]/@name)')" "--max-time wall time" "failed case"
	x 'string(//failure/@message)' >msg
	assert_match msg '^wall time: 0\.[0-9]{3} s \(limit <= 0\.100 s\)$'
	jget '.runs[0].devices[0].energy_j'
	assert_near "$(x 'string(//property[@name="run.1.device.0.energy_j"]/@value)')" "$j_v" \
	    0.000001 "energy property"
	# The schema bites: the same file without its required system-out is refused.
	grep -v 'system-out' j.xml >bad.xml
	! xmllint --noout --schema "$XSD" bad.xml 2>/dev/null || fail "schema accepted bad.xml"
}

test_openmetrics_promtool() {
	gated_run
	promtool check metrics <m.prom >p.out 2>&1 || fail "promtool: $(cat p.out)"
	jget '.runs[0].devices[0].energy_j'
	grep '^joulestat_energy_joules_total{run="1",device="0",uuid="GPU-9a7e0001-' m.prom >line ||
	    fail "no energy sample"
	assert_near "$(awk '{ print $NF }' line)" "$j_v" 0.000001 "energy sample"
	assert_match m.prom '^# UNIT joulestat_energy_joules_total joules$'
	assert_match m.prom '^# TYPE joulestat_energy_joules_total counter$'
	assert_match m.prom '^joulestat_gate_passed\{gate="--max-time",figure="wall time",unit="s"\} 0$'
	assert_match m.prom '^joulestat_gate_passed\{gate="--max-energy",figure="energy, all devices",unit="J"\} 1$'
	assert_match m.prom '^joulestat_info\{version="[0-9.]+",host="[^"]+",command="[^"]*sleep 0\.5s"'
	# An unknown figure has no sample: no idle power given, none seen at rest.
	assert_no_match m.prom '^joulestat_[a-z_]+\{[^}]*\} (nan|NaN)'
}

# Phases the workload marked: a phase label, the JSON's figures, still valid for promtool.
test_openmetrics_phases() {
	sim gate.scn -q --json=j.json --openmetrics=m.prom -- sh -c "\"$JOULESTAT\" mark warm &&
	    \"$JS_WORK\" sleep 0.2s && \"$JOULESTAT\" mark --begin eval &&
	    \"$JS_WORK\" sleep 0.2s && \"$JOULESTAT\" mark --end eval"
	assert_rc 0
	promtool check metrics <m.prom >p.out 2>&1 || fail "promtool: $(cat p.out)"
	for k in 0 1; do
		jget ".runs[0].phases[$k].phase"
		ph=$j_v
		jget ".runs[0].phases[$k].devices[0].energy_j"
		grep "^joulestat_phase_energy_joules_total{run=\"1\",device=\"0\",.*,phase=\"$ph\"}" \
		    m.prom >line || fail "no energy sample of phase $ph"
		assert_near "$(awk '{ print $NF }' line)" "$j_v" 0.000001 "energy of phase $ph"
		jget ".runs[0].phases[$k].wall_s"
		grep "^joulestat_phase_wall_seconds_total{run=\"1\",phase=\"$ph\"}" m.prom >line ||
		    fail "no wall sample of phase $ph"
		assert_near "$(awk '{ print $NF }' line)" "$j_v" 0.000001 "wall time of phase $ph"
	done
}

test_report_redraws_from_json() {
	gated_run
	try "$JOULESTAT" report --markdown=r.md --junit=r.xml --openmetrics=r.prom j.json
	assert_rc 0
	cmp -s m.md r.md || fail "report --markdown differs from the run's"
	cmp -s j.xml r.xml || fail "report --junit differs from the run's"
	cmp -s m.prom r.prom || fail "report --openmetrics differs from the run's"
	try_in j.json "$JOULESTAT" report --markdown=- -
	assert_rc 0
	cmp -s m.md out || fail "report from standard input differs"
	# The run annotated its failed gate; drawing its forms again does not.
	try env GITHUB_ACTIONS=true "$JOULESTAT" report --junit=r2.xml j.json
	assert_rc 0
	assert_no_match err '^::'
	cmp -s j.xml r2.xml || fail "report --junit differs on GitHub"
	echo '{"schema_version": 99, "runs": []}' >bad.json
	try "$JOULESTAT" report --markdown=x.md bad.json
	assert_rc 125
	assert_match err '^joulestat: bad\.json: not a joulestat JSON report of schema_version 1$'
	[ ! -e x.md ] || fail "wrote x.md from a bad report"
	printf '{"runs": [' >cut.json
	try "$JOULESTAT" report --markdown=x.md cut.json
	assert_rc 125
	[ "$(wc -l <err)" -eq 1 ] || fail "more than one line: $(cat err)"
	try "$JOULESTAT" report
	assert_rc 125
	assert_match err 'no JSON report given'
	# The file's own error (before: "line -1: unable to open", "'[' expected").
	try "$JOULESTAT" report nothere.json
	assert_rc 125
	assert_match err '^joulestat: nothere\.json: No such file or directory$'
	mkdir adir
	try "$JOULESTAT" report adir
	assert_rc 125
	assert_match err '^joulestat: adir: Is a directory$'
}

test_github_annotations() {
	NVSIM_SCENARIO=$SCN/gate.scn try env GITHUB_ACTIONS=true "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" -q --max-energy=10kJ --max-time=100ms -- "$JS_WORK" sleep 0.3s
	assert_rc 3
	assert_match err '^::error title=joulestat gate --max-time::gate failed: wall time: 0\.[0-9]+ s, limit <= 0\.100 s'
	[ "$(grep -c '^::error' err)" -eq 1 ] || fail "one annotation for the one failed gate"
	# -q still names the failed gate: the plain form stays beside it.
	assert_match err '^joulestat: gate failed: wall time \(--max-time\)'
	sim gate.scn -q --max-time=100ms -- "$JS_WORK" sleep 0.3s
	assert_rc 3
	assert_no_match err '^::'
	assert_match err '^joulestat: gate failed: wall time'
	# Escaping of the workflow command: a '%' and a newline cannot end it.
	NVSIM_SCENARIO=$SCN/gate.scn try env GITHUB_ACTIONS=true "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" -q --json=j.json -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	assert_no_match err '^::'
}

test_metadata_csv_and_json() {
	NVSIM_SCENARIO=$SCN/two-gpus.scn try env CUDA_VISIBLE_DEVICES=0,1 "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" -q --json=j.json --csv=s.csv -- "$JS_WORK" sleep 0.2s
	assert_rc 0
	for k in joulestat_version start_time tracker visible_devices host command; do
		csv_get s.csv "$k" scope=run
		jget ".runs[0].$k"
		assert_eq "$csv_v" "$j_v" "$k in CSV and JSON"
		[ -n "$csv_v" ] || fail "$k is empty"
	done
	csv_get s.csv start_unix_s scope=run
	jget .runs[0].start_unix_s
	assert_near "$csv_v" "$j_v" 0.00001 "start_unix_s in CSV and JSON (15 digits in JSON)"
	csv_get s.csv visible_devices scope=run
	assert_eq "$csv_v" "CUDA_VISIBLE_DEVICES=0,1" "visible-device mask"
	csv_get s.csv start_time scope=run
	printf '%s\n' "$csv_v" | grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{2}:[0-9]{2}' ||
	    fail "start_time '$csv_v' is not RFC 3339 with a zone"
	t=$(date -d "$csv_v" +%s) || fail "date cannot read $csv_v"
	csv_get s.csv start_unix_s scope=run
	assert_near "$t" "$csv_v" 1 "start_time and start_unix_s"
	"$JOULESTAT" --version >v.out
	assert_match v.out "^joulestat $(jget .runs[0].joulestat_version; echo "$j_v")\$"
	for d in 0 1; do
		csv_get s.csv device_bus_id scope=device device=$d
		jget ".runs[0].devices[$d].bus_id"
		assert_eq "$csv_v" "$j_v" "bus id of device $d"
		csv_get s.csv device_versions scope=device device=$d
		jget ".runs[0].devices[$d].versions"
		assert_eq "$csv_v" "$j_v" "versions of device $d"
		printf '%s\n' "$csv_v" | grep -Eqx 'driver [0-9.]+, NVML [0-9.]+' ||
		    fail "versions: $csv_v"
	done
}

# The architecture comes from nvmlDeviceGetArchitecture, and is unknown without it.
test_architecture() {
	sim ci.scn -q --json=j.json --csv=s.csv --openmetrics=m.prom -- "$JS_WORK" sleep 0.1s
	assert_rc 0
	csv_get s.csv device_architecture scope=device device=0
	assert_eq "$csv_v" Hopper "architecture in the CSV"
	jget '.runs[0].devices[0].architecture'
	assert_eq "$j_v" Hopper "architecture in the JSON"
	assert_match m.prom '^joulestat_device_info\{.*,architecture="Hopper",'
	sim gate.scn -q --json=j.json -- "$JS_WORK" sleep 0.1s
	jget '.runs[0].devices[0].architecture'
	assert_eq "$j_v" null "no architecture call: unknown"
	sim ci.scn --list-devices --json=-
	assert_eq "$("$JSONTOOL" get out '.devices[0].architecture')" Hopper "in the list"
}

test_csv_totals_series_long() {
	sim two-gpus.scn -q --csv=s.csv -r 3 -- "$JS_WORK" sleep 0.2s
	assert_rc 0
	"$CSVTOOL" check s.csv >/dev/null || fail "rows of differing lengths"
	csv_get s.csv energy_j scope=device run=2 device=0
	e0=$csv_v
	csv_get s.csv energy_j scope=device run=2 device=1
	e1=$csv_v
	csv_get s.csv total_energy_j scope=run run=2
	assert_near "$csv_v" "$(calc "$e0 + $e1")" 0.000002 "run total"
	csv_get s.csv total_energy_devices scope=run run=2
	assert_eq "$csv_v" 2 "devices in the total"
	for r in median min max; do
		csv_get s.csv energy_j scope=device run=$r device=0
		eval "$r=\$csv_v"
	done
	csv_get s.csv energy_j scope=device run=n device=0
	assert_eq "$csv_v" 3 "n"
	assert_le "$min" "$median" "min <= median"
	assert_le "$median" "$max" "median <= max"
	csv_get s.csv energy_j scope=device run=1 device=0
	assert_ge "$csv_v" "$min" "run 1 within min"
	assert_le "$csv_v" "$max" "run 1 within max"
	sim two-gpus.scn -q --csv=l.csv --csv-format=long -- "$JS_WORK" sleep 0.2s
	assert_rc 0
	"$CSVTOOL" check l.csv >/dev/null || fail "long rows of differing lengths"
	assert_eq "$(head -n 1 l.csv)" "schema_version,scope,run,host,device,pstate,phase,pid,gate_figure,figure,value,unit" "long header"
	csv_get l.csv unit scope=device device=0 figure=energy_j
	assert_eq "$csv_v" J "unit of energy_j"
	csv_get l.csv unit scope=run figure=wall_s
	assert_eq "$csv_v" s "unit of wall_s"
	n=$("$CSVTOOL" count l.csv figure=energy_j value=)
	assert_eq "$n" 0 "a long row without a value"
	sim gate.scn -q --csv=s.csv --csv-format=bad -- true
	assert_rc 125
	assert_match err "invalid --csv-format 'bad': expected wide or long"
}

# Every figure of the wide form is in the long form, with its unit: two
# runs of a scenario with bounds and clocks-event reasons give the same
# columns, so each scope's non-empty wide columns, bar those that name
# what the row is about, are each scope's long figures.
test_long_has_every_figure() {
	sim bounds-reasons.scn -q -r 2 --csv=w.csv -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	sim bounds-reasons.scn -q -r 2 --csv=l.csv --csv-format=long -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	"$CSVTOOL" filled w.csv scope | grep -v "	\(schema_version\|run\|host\|rank\|job\|command\|device\|device_id\|device_name\|backend\|within_device\|pstate\|pid\|process\|gate\|gate_figure\|phase\)$" |
	    sort -u >wide.txt
	"$CSVTOOL" values l.csv scope figure | sort -u >long.txt
	grep -q '	energy_err_j$' wide.txt || fail "no bound in the wide form: the scenario changed"
	grep -q '	reason_sw_power_cap_s$' wide.txt || fail "no reason in the wide form: the scenario changed"
	comm -23 wide.txt long.txt | tr '\t' : >missing.txt
	[ ! -s missing.txt ] || fail "figures missing from the long form: $(tr '\n' ' ' <missing.txt)"
	for f in energy_err_j:J time_err_s:s reason_sw_power_cap_s:s reason_sw_power_cap_err_s:s \
	    avg_gfx_mhz:MHz avg_mem_mhz:MHz total_energy_err_j:J; do
		n=$("$CSVTOOL" count l.csv figure="${f%%:*}")
		[ "$n" -gt 0 ] || continue
		n=$("$CSVTOOL" count l.csv figure="${f%%:*}" unit="${f#*:}")
		[ "$n" -gt 0 ] || fail "${f%%:*} is not in ${f#*:}"
	done
}

test_unit_suffixes() {
	check() {
		sim gate.scn -q --csv=s.csv "$1" -- "$JS_WORK" sleep 0.05s
		[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "$1: exit $rc: $(cat err)"
		csv_get s.csv "$2" ${4:+$4}
		assert_near "$csv_v" "$3" 0.000001 "$1"
	}
	check --max-energy=0.5kJ gate_limit 500 scope=gate
	check --max-energy=0.5Wh gate_limit 1800 scope=gate
	check --max-energy=2500mJ gate_limit 2.5 scope=gate
	check --max-time=2m gate_limit 120 scope=gate
	check --max-time=250ms gate_limit 0.25 scope=gate
	check --max-avg-power=0.3kW gate_limit 300 scope=gate
	check -i100ms interval_ms 100 scope=run
	check -i0.05s interval_ms 50 scope=run
	check -i20 interval_ms 20 scope=run
	for bad in --max-energy=10kj --max-energy='10 kJ' --max-energy=10kW --max-time=2d \
	    -i0.5ms -i100us --idle-power=5J; do
		sim gate.scn -q "$bad" -- true
		assert_rc 125
		[ "$(grep -c '^joulestat: ' err)" -eq 1 ] || fail "$bad: not one line: $(cat err)"
	done
}

test_timeline_pstate_names() {
	sim gate.scn -q --csv=s.csv --timeline=t.csv -- "$JS_WORK" sleep 0.8s
	assert_rc 0
	"$CSVTOOL" check t.csv >/dev/null || fail "timeline rows of differing lengths"
	[ "$("$CSVTOOL" count t.csv pstate=P0)" -gt 0 ] || fail "no P0 row"
	[ "$("$CSVTOOL" count t.csv pstate=P2)" -gt 0 ] || fail "no P2 row"
	[ "$("$CSVTOOL" count t.csv pstate=0)" -eq 0 ] || fail "a bare number"
	csv_get s.csv pstate scope=pstate device=0
	printf '%s\n' "$csv_v" | grep -Eqx 'P[02]' || fail "summary state $csv_v"
	csv_get t.csv schema_version
	assert_eq "$csv_v" 2 "timeline schema_version"
}

test_list_devices_require() {
	lst() { sim "$@"; }
	lst two-gpus.scn --list-devices --require=nvidia
	assert_rc 0
	lst two-gpus.scn --list-devices --require=gpu
	assert_rc 0
	lst two-gpus.scn --list-devices --require=2
	assert_rc 0
	lst two-gpus.scn --list-devices --require=3
	assert_rc 2
	assert_match err '^joulestat: --require 3: 2 devices found$'
	lst two-gpus.scn --list-devices --require=amd
	assert_rc 2
	assert_match err '^joulestat: --require: no device of that kind found$'
	lst two-gpus.scn --list-devices --require=cuda
	assert_rc 125
	assert_match err "invalid --require 'cuda'"
	lst two-gpus.scn --require=gpu -- true
	assert_rc 125
	assert_match err -- '--require needs --list-devices'
	lst two-gpus.scn --list-devices --json=- --require=nvidia
	assert_rc 0
	"$JSONTOOL" check out || fail "not JSON"
	assert_eq "$("$JSONTOOL" len out .devices)" 2 "devices"
	assert_eq "$("$JSONTOOL" get out '.devices[1].name')" "Tesla P100-PCIE-16GB" "name"
	assert_eq "$("$JSONTOOL" get out '.devices[0].backend')" nvml "backend"
	assert_eq "$("$JSONTOOL" get out '.devices[0].power_kind')" instant "power kind"
}

test_list_devices_require_drm() {
	. "$TOP/tests/fixtures/writer.sh"
	fx_copy drm-amdgpu-avg || fail "no fixture"
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_NVML_LIB=/nonexistent \
	    "$JOULESTAT" --list-devices --require=amd
	assert_rc 0
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_NVML_LIB=/nonexistent \
	    "$JOULESTAT" --list-devices --require=intel
	assert_rc 2
	try env JOULESTAT_SYSFS_ROOT="$FX/sys" JOULESTAT_NVML_LIB=/nonexistent \
	    "$JOULESTAT" --list-devices --require=nvidia
	assert_rc 2
}

t_run "Markdown renders as GFM tables with the run's figures" test_markdown_renders_as_tables
t_run "Markdown: the command cannot break a cell" test_markdown_escapes_command
t_run "--markdown=github appends to GITHUB_STEP_SUMMARY" test_markdown_github_appends
t_run "JUnit XML validates against JUnit.xsd" test_junit_validates
t_run "metrics text passes promtool check metrics" test_openmetrics_promtool
t_run "metrics text: phases the workload marked" test_openmetrics_phases
t_run "joulestat report redraws every form from --json" test_report_redraws_from_json
t_run "GitHub annotations for failed gates only" test_github_annotations
t_run "run metadata, the same in CSV and JSON" test_metadata_csv_and_json
t_run "device architecture from the driver" test_architecture
t_run "CSV: run totals, series rows, long form" test_csv_totals_series_long
t_run "the long form has every figure of the wide form" test_long_has_every_figure
t_run "unit suffixes on input" test_unit_suffixes
t_run "timeline P-states use the summary's names" test_timeline_pstate_names
t_run "--list-devices --require and --json" test_list_devices_require
t_run "--list-devices --require on DRM fixtures" test_list_devices_require_drm
t_done
