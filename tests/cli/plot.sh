#!/bin/bash
# scripts/joulestat-plot and joulestat --plot: a timeline of a simulated run
# drawn with gnuplot into a PNG or SVG that is valid, sized by its devices,
# and drawn from the data: titles with the device's name and energy and the
# command, one colour per P-state name whatever the plot, clocks in a panel
# of their own, phases as named bands; usage errors; a machine without
# gnuplot.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios
PLOT=$TOP/scripts/joulestat-plot

need_gnuplot() {
	command -v gnuplot >/dev/null 2>&1 || skip "gnuplot is not installed"
}

# timeline SCENARIO SECONDS: a simulated run's timeline in t.csv.
timeline() {
	NVSIM_SCENARIO=$SCN/$1 try "$JOULESTAT" --nvml-lib="$SIMLIB" -q --timeline=t.csv \
	    -- "$JS_WORK" sleep "$2"
	assert_rc 0
}

# png_ok FILE: a PNG by its signature, with an IHDR; its size in $png_w x $png_h.
png_ok() {
	[ -s "$1" ] || fail "$1 is missing or empty"
	sig=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
	assert_eq "$sig" 89504e470d0a1a0a "PNG signature of $1"
	assert_eq "$(dd if="$1" bs=1 skip=12 count=4 2>/dev/null)" IHDR "first chunk of $1"
	set -- $(od -An -tu1 -j16 -N8 "$1")
	png_w=$(($1 << 24 | $2 << 16 | $3 << 8 | $4))
	png_h=$(($5 << 24 | $6 << 16 | $7 << 8 | $8))
}

test_plot_of_a_run() {
	need_gnuplot
	timeline e2e-pstates.scn 3s
	try "$PLOT" t.csv -o one.png
	assert_rc 0
	png_ok one.png
	one_h=$png_h
	note "one device: ${png_w}x$png_h, $(wc -c <one.png) bytes"
	assert_ge "$png_w" 200 width
	assert_ge "$png_h" 200 height
	assert_ge "$(wc -c <one.png)" 5000 "bytes of a drawing, not an empty canvas"
	mv t.csv one.csv
	timeline two-gpus.scn 1s
	try "$PLOT" t.csv -o two.png
	assert_rc 0
	png_ok two.png
	note "two devices: ${png_w}x$png_h"
	assert_ge "$png_h" $((one_h + 200)) "a panel per device"
	# The drawing comes from the data: the same run without its P-states
	# (and without its power for a stretch) draws differently.
	awk -F, 'BEGIN { OFS = "," } NR > 1 { $10 = "" } { print }' one.csv >nostates.csv
	try "$PLOT" nostates.csv -o nostates.png
	assert_rc 0
	png_ok nostates.png
	cmp -s one.png nostates.png && fail "the P-state band does not change the drawing"
	return 0
}

test_default_name_and_run() {
	need_gnuplot
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q -r 2 \
	    --timeline=series.csv -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	try "$PLOT" series.csv
	assert_rc 0
	png_ok series.png
	try "$PLOT" --run 2 series.csv -o run2.png
	assert_rc 0
	png_ok run2.png
	try "$PLOT" --run 3 series.csv -o run3.png
	assert_rc 2
	assert_match err '^joulestat-plot: series.csv: no readings of run 3$'
	[ ! -e run3.png ] || fail "a PNG for a run that is not there"
}

# Unknown power (a lost GPU, a backend without power) is a gap, not a crash or a 0.
test_unknown_fields() {
	need_gnuplot
	timeline gate.scn 1s
	awk -F, 'BEGIN { OFS = "," } NR > 1 && NR % 3 == 0 { $7 = ""; $12 = "" } { print }' \
	    t.csv >gaps.csv
	try "$PLOT" gaps.csv -o gaps.png
	assert_rc 0
	png_ok gaps.png
}

# dark_pixels PNG: how many pixels are near black (the power curve, the
# text and the frame), read back through gnuplot's own PNG reader.
dark_pixels() {
	gnuplot -e "set table 'px.txt'; plot '$1' binary filetype=png with rgbimage" ||
	    fail "gnuplot cannot read $1 back"
	awk 'NF >= 5 && $3 + $4 + $5 < 150 { n++ } END { print n + 0 }' px.txt
}

# flat_timeline GAP: 3 s of one device at a flat 100 W in P0, no clocks;
# with GAP 1 the readings from 1.1 s to 1.9 s are lost.  The device id has
# a comma and quotes, as libcsv quotes them.
flat_timeline() {
	awk -v gap="$1" 'BEGIN {
		print "schema_version,run,t_s,device,device_id,status,power_w,energy_j," \
		    "energy_method,pstate,gfx_mhz,sm_mhz,mem_mhz,util_pct,mem_util_pct,temp_c," \
		    "tree_sm_pct,tree_mem_pct,other_sm_pct,other_mem_pct"
		for (i = 0; i <= 30; i++) {
			lost = gap && i > 10 && i < 20
			printf "1,1,%.1f,0,\"GPU-0, \"\"q\"\"\",%s,%s,,,0,,,,,,,,,,\n", i / 10,
			    lost ? "lost" : "ok", lost ? "" : "100.000"
		}
	}'
}

# A second of unknown power in a flat run is a gap in the (black) power
# curve: fewer dark pixels than the same run fully known.  A curve drawn
# straight across the unknown stretch would be the very same line.
test_unknown_is_a_gap() {
	need_gnuplot
	flat_timeline 0 >known.csv
	flat_timeline 1 >gap.csv
	try "$PLOT" known.csv -o known.png
	assert_rc 0
	png_ok known.png
	try "$PLOT" gap.csv -o gap.png
	assert_rc 0
	png_ok gap.png
	known=$(dark_pixels known.png)
	gap=$(dark_pixels gap.png)
	note "dark pixels: $known known, $gap with a second unknown"
	assert_ge "$known" $((gap + 100)) "dark pixels of the fully known run"
}

# RAPL packages have no power readings, P-state or clocks, only energy: a
# panel each all the same, with no axis left for gnuplot to guess.
test_devices_without_clocks() {
	need_gnuplot
	try env JOULESTAT_SYSFS_ROOT="$TOP/tests/fixtures/rapl-2pkg/sys" "$JOULESTAT" -q -i 100 \
	    --timeline=t.csv -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	assert_ge "$("$CSVTOOL" count t.csv device=3)" 1 "readings of the fourth package zone"
	try "$PLOT" t.csv -o rapl.png
	assert_rc 0
	png_ok rapl.png
	assert_ge "$png_h" 1000 "height of four panels"
}

# A gnuplot that fails half way: its message is shown, the status is 1, and
# the picture it had begun does not replace an earlier plot.
test_gnuplot_fails() {
	timeline gate.scn 0.3s
	mkdir bin
	cat >bin/gnuplot <<'EOF'
#!/bin/sh
[ "$1" = -e ] && exit 0
sed -n 's/^set output "\(.*\)"$/\1/p' "$1" | while read -r f; do echo half >"$f"; done
echo 'line 9: no more memory for the plot' >&2
exit 1
EOF
	chmod +x bin/gnuplot
	echo "an earlier plot" >p.png
	try env PATH="$PWD/bin:$PATH" "$PLOT" t.csv -o p.png
	assert_rc 1
	assert_match err '^line 9: no more memory for the plot$'
	assert_match err '^joulestat-plot: gnuplot failed: no plot in p.png$'
	assert_eq "$(cat p.png)" "an earlier plot" "the earlier plot"
}

# svg_ok FILE: an SVG document, not PNG bytes under an .svg name.
svg_ok() {
	[ -s "$1" ] || fail "$1 is missing or empty"
	assert_eq "$(head -c 5 "$1")" "<?xml" "start of $1"
	grep -q '^<svg' "$1" || fail "$1: no <svg> element"
	grep -q '</svg>' "$1" || fail "$1: the <svg> element is not closed"
}

# texts FILE: the text elements of an SVG, one a line, as a reader sees them.
texts() {
	sed -n 's/.*<text>\(.*\)<\/text>.*/\1/p' "$1" | sed 's/&quot;/"/g; s/&amp;/\&/g'
}

# state_colour SVG NAME: the fill of the key entry of state NAME.
state_colour() {
	awk -v name="$2" '
	/<g id="gnuplot_plot_/ { in_entry = 0 }
	index($0, "<text>" name "</text>") { in_entry = 1 }
	in_entry && /polygon fill/ { sub(/.*fill = .rgb\(/, ""); sub(/\).*/, ""); gsub(/ /, ""); print; exit }
	' "$1"
}

# last_energy CSV DEVICE: the device's last energy_j in run 1 of a timeline.
last_energy() {
	awk -F, -v d="$2" 'NR > 1 && $2 == 1 && $4 == d && $8 != "" { e = $8 } END { printf "%.1f", e }' "$1"
}

# Titles from the timeline: each device's name, id, last energy and how it
# was obtained; the command given with --title and the total of the devices.
test_titles() {
	need_gnuplot
	timeline two-gpus.scn 1s
	try "$PLOT" t.csv -o two.svg --title "js-work sleep 1s"
	assert_rc 0
	svg_ok two.svg
	texts two.svg >texts.txt
	e0=$(last_energy t.csv 0)
	e1=$(last_energy t.csv 1)
	total=$(awk -F, 'NR > 1 && $2 == 1 && $8 != "" { e[$4] = $8 } END { printf "%.1f", e[0] + e[1] }' t.csv)
	note "device 0 $e0 J, device 1 $e1 J"
	grep -Fqx "device 0: NVIDIA A100-SXM4-40GB (GPU-0b7e3c2a-6d41-4f8e-9a55-1e2d3c4b5a60), $e0 J (counter)" texts.txt ||
	    fail "no title of device 0 with $e0 J: $(grep device texts.txt)"
	grep -Fqx "device 1: Tesla P100-PCIE-16GB (GPU-d3f1a9b8-2c7e-4a16-8f03-7b6e5d4c3b21), $e1 J (integrated from driver samples)" texts.txt ||
	    fail "no title of device 1 with $e1 J: $(grep device texts.txt)"
	grep -Fqx "js-work sleep 1s: $total J in total on 2 devices" texts.txt ||
	    fail "no plot title with the total $total J: $(head -n 3 texts.txt)"
	# Power and clocks in panels of their own: one axis each per device.
	assert_eq "$(grep -cx 'power (W)' texts.txt)" 4 "power axis labels and keys"
	assert_eq "$(grep -cx 'clock (MHz)' texts.txt)" 2 "clock axes"
}

# A device's energy unknown at the end: the title says "at least", not the
# last figure as if it were the whole run; a device without energy says so.
test_titles_partial() {
	need_gnuplot
	states_timeline 0 | awk -F, 'BEGIN { OFS = "," } NR > 4 { $8 = ""; $9 = "" } { print }' >part.csv
	try "$PLOT" part.csv -o part.svg
	assert_rc 0
	texts part.svg >texts.txt
	grep -Fqx 'device 0: G (GPU-1), at least 20.0 J (counter; unknown at the end)' texts.txt ||
	    fail "no 'at least' in: $(grep device texts.txt)"
	states_timeline 0 | awk -F, 'BEGIN { OFS = "," } NR > 1 { $8 = ""; $9 = "" } { print }' >none.csv
	try "$PLOT" none.csv -o none.svg
	assert_rc 0
	texts none.svg >texts.txt
	grep -Fqx 'device 0: G (GPU-1), energy unknown' texts.txt || fail "no 'energy unknown' in: $(grep device texts.txt)"
}

# states_timeline STATE...: one device at 100 W, 0.5 s in each state given
# (numbers as joulestat writes them, or names), with clocks.
states_timeline() {
	awk -v list="$*" 'BEGIN {
		print "schema_version,run,t_s,device,device_id,status,power_w,energy_j," \
		    "energy_method,pstate,gfx_mhz,sm_mhz,mem_mhz,util_pct,mem_util_pct,temp_c," \
		    "tree_sm_pct,tree_mem_pct,other_sm_pct,other_mem_pct,device_name"
		n = split(list, st, " ")
		for (i = 0; i <= n * 5; i++) {
			s = st[int(i / 5) + 1 > n ? n : int(i / 5) + 1]
			printf "1,1,%.1f,0,\"GPU-1\",ok,100.000,%.3f,counter,%s,1000,1000,800,,,,,,,,\"G\"\n",
			    i / 10, i * 10, s
		}
	}'
}

# P0 has one colour in every plot, whichever state came first; states
# written as names (P8) or numbers (0) are the same states.
test_fixed_state_colours() {
	need_gnuplot
	states_timeline 0 8 >a.csv
	states_timeline P8 P2 P0 >b.csv
	try "$PLOT" a.csv -o a.svg
	assert_rc 0
	try "$PLOT" b.csv -o b.svg
	assert_rc 0
	a0=$(state_colour a.svg P0)
	b0=$(state_colour b.svg P0)
	a8=$(state_colour a.svg P8)
	b8=$(state_colour b.svg P8)
	note "P0 rgb($a0), P8 rgb($a8), P2 rgb($(state_colour b.svg P2))"
	[ -n "$a0" ] && [ -n "$a8" ] || fail "no key entries for P0 and P8 in a.svg"
	assert_eq "$b0" "$a0" "colour of P0 when it comes last"
	assert_eq "$b8" "$a8" "colour of P8 when it comes first"
	[ "$a0" != "$a8" ] || fail "P0 and P8 have the same colour"
	[ "$(state_colour b.svg P2)" != "$a0" ] || fail "P2 has P0's colour"
}

# phase_timeline: the e2e-pstates run with a phase column, as the workload
# marks phases: a name, empty outside any phase.
test_phases() {
	need_gnuplot
	timeline e2e-pstates.scn 2s
	awk -F, 'NR == 1 { print $0 ",phase"; next }
	{ t = $3; p = t < 0.5 ? "load" : t < 1.2 ? "compute \"A\", step 1" : t < 1.5 ? "" : "write"
	  if (p != "") { gsub(/"/, "\"\"", p); p = "\"" p "\"" }
	  print $0 "," p }' t.csv >ph.csv
	try "$PLOT" ph.csv -o ph.svg
	assert_rc 0
	texts ph.svg >texts.txt
	for name in load 'compute "A", step 1' write; do
		assert_eq "$(grep -cFx "$name" texts.txt)" 1 "labels of phase '$name'"
	done
	try "$PLOT" t.csv -o noph.svg
	assert_rc 0
	texts noph.svg >texts.txt
	assert_eq "$(grep -cx 'load\|write' texts.txt)" 0 "phase labels without phases"
	# The bands are drawn: the PNG of the same rows differs with its phases.
	try "$PLOT" ph.csv -o ph.png
	assert_rc 0
	png_ok ph.png
	try "$PLOT" t.csv -o noph.png
	assert_rc 0
	cmp -s ph.png noph.png && fail "the phases do not change the drawing"
	return 0
}

# The format is the output's name: .png, .svg (any case); others refused.
test_formats_by_name() {
	need_gnuplot
	timeline gate.scn 0.3s
	try "$PLOT" t.csv -o up.SVG
	assert_rc 0
	svg_ok up.SVG
	for o in x.jpg x.pdf x plot.png.txt; do
		try "$PLOT" t.csv -o "$o"
		assert_rc 2
		assert_match err "^joulestat-plot: $o: the plot is PNG or SVG by its name: give it .png or .svg$"
		[ ! -e "$o" ] || fail "$o was written"
	done
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q --plot=run.jpg \
	    -- sh -c 'touch ran'
	assert_rc 125
	assert_match err '^joulestat: --plot run.jpg: the plot is PNG or SVG by its name: give it .png or .svg$'
	[ ! -e ran ] || fail "the workload ran"
}

test_usage_errors() {
	try "$PLOT"
	assert_rc 2
	assert_match err '^joulestat-plot: no timeline given'
	try "$PLOT" missing.csv
	assert_rc 2
	assert_match err '^joulestat-plot: missing.csv: cannot read the file$'
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q --csv=s.csv \
	    -- "$JS_WORK" sleep 0.1s
	try "$PLOT" s.csv
	assert_rc 2
	assert_match err '^joulestat-plot: s.csv: not a joulestat timeline'
	[ ! -e s.png ] || fail "a PNG from a summary"
	try "$PLOT" --run x s.csv
	assert_rc 2
	assert_match err "not a run number"
	try "$PLOT" --bogus s.csv
	assert_rc 2
	try "$PLOT" --help
	assert_rc 0
	assert_match out '^usage: joulestat-plot'
}

# PATH with the tools the script needs, gnuplot left out.
path_without_gnuplot() {
	mkdir bin
	for t in sh awk head mktemp rm wc sed cat od tr; do
		ln -s "$(command -v "$t")" bin/"$t"
	done
	# make check-valgrind's wrapper runs joulestat through valgrind by name.
	if [ -n "${WRAP:-}" ] && command -v valgrind >/dev/null; then
		printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v valgrind)" >bin/valgrind
		chmod +x bin/valgrind
	fi
}

test_without_gnuplot() {
	timeline gate.scn 0.3s
	path_without_gnuplot
	try env PATH="$PWD/bin" "$PLOT" t.csv -o p.png
	assert_rc 3
	assert_match err '^joulestat-plot: gnuplot is not installed \(apt-get install gnuplot-nox\)$'
	[ ! -e p.png ] || fail "a PNG without gnuplot"
}

# joulestat --plot: the PNG at the end; the temporary timeline is removed.
test_joulestat_plot_option() {
	need_gnuplot
	mkdir tmp
	TMPDIR=$PWD/tmp NVSIM_SCENARIO=$SCN/two-gpus.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" \
	    -q --plot=run.png -- "$JS_WORK" sleep 0.5s
	assert_rc 0
	png_ok run.png
	assert_eq "$(ls tmp)" "" "temporary files left behind"
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q --plot=p-%r.png \
	    --timeline=kept.csv -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	png_ok p-0.png
	[ -s kept.csv ] || fail "the --timeline file was not kept"
	# SVG by the name, titled with the command.
	NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q --plot=run.svg \
	    -- "$JS_WORK" sleep 0.3s
	assert_rc 0
	svg_ok run.svg
	texts run.svg | grep -q "js-work sleep 0.3s" || fail "no command in the title of run.svg"
	try "$JOULESTAT" -q --plot=x.png --timeline=- -- true
	assert_rc 125
	assert_match err '^joulestat: --plot draws the timeline from a file'
}

# A --plot path that cannot take a file fails before the run, with or without gnuplot.
test_joulestat_plot_bad_path() {
	mkdir adir
	touch afile
	for p in . adir adir/ /nonexistent/x.png afile/x.png; do
		NVSIM_SCENARIO=$SCN/gate.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q --plot="$p" \
		    -- sh -c 'touch ran'
		assert_rc 125
		[ ! -e ran ] || fail "--plot=$p: the workload ran"
		[ "$(wc -l <err)" -eq 1 ] || fail "--plot=$p: not one line"
		case $p in
		.|adir*) assert_match err "^joulestat: --plot $p: is a directory" ;;
		/nonexistent/*) assert_match err "^joulestat: --plot $p: /nonexistent: No such file" ;;
		*) assert_match err "^joulestat: --plot $p: afile: Not a directory" ;;
		esac
	done
	[ ! -e plot.png ] && [ ! -e adir/plot.png ] || fail "a PNG in the directory"
}

# Without gnuplot joulestat says so at the start and the run goes on.
test_joulestat_plot_without_gnuplot() {
	path_without_gnuplot
	NVSIM_SCENARIO=$SCN/gate.scn try env PATH="$PWD/bin" "$JOULESTAT" --nvml-lib="$SIMLIB" -q \
	    --plot=run.png -- "$JS_WORK" exit 4
	assert_rc 4
	assert_match err '^joulestat: --plot: gnuplot is not installed \(apt-get install gnuplot-nox\): no plot$'
	[ ! -e run.png ] || fail "a PNG without gnuplot"
}

t_run "a simulated run drawn: valid PNG, a panel per device, from the data" test_plot_of_a_run
t_run "default output name and --run" test_default_name_and_run
t_run "unknown power and clocks are gaps" test_unknown_fields
t_run "unknown power is a gap in the curve, not a line across" test_unknown_is_a_gap
t_run "devices without power, P-state or clocks (RAPL) plot" test_devices_without_clocks
t_run "gnuplot failing: exit 1, its message, no half-drawn PNG" test_gnuplot_fails
t_run "titles: device names, energies, the command and the total" test_titles
t_run "titles: energy unknown at the end or throughout" test_titles_partial
t_run "one colour per P-state name in every plot" test_fixed_state_colours
t_run "phases shaded and named when the timeline has them" test_phases
t_run "PNG or SVG by the output's name, others refused" test_formats_by_name
t_run "usage errors exit 2 with a message" test_usage_errors
t_run "without gnuplot: exit 3 and why" test_without_gnuplot
t_run "joulestat --plot draws at the end" test_joulestat_plot_option
t_run "joulestat --plot without gnuplot: a warning, the run goes on" test_joulestat_plot_without_gnuplot
t_run "joulestat --plot to a directory or a missing one: 125 before the run" test_joulestat_plot_bad_path
t_done
