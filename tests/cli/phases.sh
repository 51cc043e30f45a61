#!/bin/bash
# Phases the workload marks (joulestat(1), PHASES): the FIFO in
# $JOULESTAT_MARK, each phase's energy against the simulator's ground truth
# between the mark times, P-states per phase, nesting, repeated names,
# marks from a grandchild after exec and setsid, a flood of marks, bad
# lines, "joulestat mark", gates per phase, and the FIFO gone at every way
# out.
. "$(dirname "$0")/lib.sh"

SCN=$TOP/tests/sim/scenarios

# A checked run (make check-valgrind) reads its devices far later after a
# mark arrives: more room for the time between a mark and its reading.
slack=1
[ -z "${WRAP:-}" ] || slack=10

# run_sim SCENARIO ARGS...: joulestat on the simulated GPU, summary in
# s.csv, JSON in s.json, ground truth in t.txt.
run_sim() {
	scn=$1
	shift
	NVSIM_TRUTH=$PWD/t.txt NVSIM_SCENARIO=$SCN/$scn try -t 60 "$JOULESTAT" \
	    --nvml-lib="$SIMLIB" --csv=s.csv --json=s.json "$@"
}

# truth_energy FROM_NS TO_NS: the scenario's energy in J between two
# CLOCK_MONOTONIC times, from its power table (phases.scn) and the
# simulator's time 0 in t.txt.
truth_energy() {
	awk -v from="$1" -v to="$2" '
	    $1 == "sim" { split($2, kv, "="); t0 = kv[2] }
	    END {
		n = split("0 700 1600 2200 1e12", at, " ")
		split("80 310 190 90", w, " ")
		a = (from - t0) / 1e6; b = (to - t0) / 1e6; e = 0
		for (i = 1; i < n; i++) {
			lo = a > at[i] ? a : at[i]; hi = b < at[i + 1] ? b : at[i + 1]
			if (hi > lo) e += w[i] * (hi - lo) / 1000
		}
		printf "%.6f\n", e
	    }' t.txt
}

# csv_sum FILE COLUMN [KEY=VALUE...]: the sum of COLUMN over the rows that
# match, read as CSV (libcsv quotes text cells); csv_count: how many rows.
csv_sum() {
	python3 - "$@" <<'PY'
import csv, sys
f, col, conds = sys.argv[1], sys.argv[2], [c.split("=", 1) for c in sys.argv[3:]]
rows = [r for r in csv.DictReader(open(f)) if all(r[k] == v for k, v in conds)]
print(len(rows) if col == "-" else sum(float(r[col]) for r in rows if r[col] != ""))
PY
}

csv_count() {
	csv_sum "$1" - "${@:2}"
}

# mark_ns N: the CLOCK_MONOTONIC time of the Nth mark in marks.log.
mark_ns() {
	awk -v n="$1" 'NR == n { print $1 }' marks.log
}

# Three phases marked at known times: each phase's counter energy is the
# truth between its marks, to within the power times the time between a
# mark's write and the reading it gets.
test_energy_per_phase_truth() {
	run_sim phases.scn -i 50 -- "$JS_WORK" marks marks.log 400ms phase:load 600ms \
	    phase:train 900ms phase:eval 500ms end 300ms
	assert_rc 0
	i=1
	for p in load train eval; do
		want=$(truth_energy "$(mark_ns $i)" "$(mark_ns $((i + 1)))")
		csv_get s.csv energy_j scope=phase phase=$p device=0
		got=$csv_v
		note "phase $p: $got J, truth between the marks $want J"
		# 310 W at most: 2 ms between a mark and its reading is 0.62 J.
		assert_near "$got" "$want" "$(calc "0.62 * $slack")" "phase $p energy"
		# A counter's phase energy is bounded by its quantum, the two readings' own
		# durations (the readings themselves are checked against the truth above),
		# and the 100 ms the driver may take to move an NVML counter, at the
		# peak power (310 W).
		csv_get s.csv energy_err_j scope=phase phase=$p device=0
		note "phase $p: bound ± $csv_v J"
		assert_ge "$csv_v" 0.0001 "phase $p energy bound (given, above 0)"
		assert_le "$csv_v" "$(calc "$got * 0.001 + 310 * 0.1")" "phase $p energy bound"
		csv_get s.csv energy_method scope=phase phase=$p device=0
		assert_eq "$csv_v" counter "phase $p energy method"
		i=$((i + 1))
	done
	# The phases tile part of the run: their sum is less than the device's.
	csv_get s.csv energy_j scope=device device=0
	dev=$csv_v
	sum=$(csv_sum s.csv energy_j scope=phase)
	assert_le "$sum" "$dev" "sum of phases vs the device"
	assert_ge "$sum" "$(calc "$dev * 0.6")" "the phases cover most of the run"
}

# The timeline names the innermost open phase of each reading.
test_timeline_phase_column() {
	run_sim phases.scn -q -i 20 --timeline=tl.csv -- "$JS_WORK" marks marks.log 200ms \
	    phase:a 300ms begin:b 200ms end:b 200ms end 200ms
	assert_rc 0
	python3 - <<'PY' || fail "timeline phases: $(cat py.err)"
import csv, sys
sys.stderr = open("py.err", "w")
seq = []
for r in csv.DictReader(open("tl.csv")):
    if not seq or seq[-1] != r["phase"]:
        seq.append(r["phase"])
assert seq == ["", "a", "b", "a", ""], seq
PY
}

# The P-state split of a phase: train (1.6 s .. 2.5 s into the scenario
# here) spends time in P0 and P2 only, and its P-state times add up to its
# wall time.
test_pstates_per_phase() {
	run_sim phases.scn -i 20 -- "$JS_WORK" marks marks.log 900ms phase:train 1200ms end 200ms
	assert_rc 0
	csv_get s.csv wall_s scope=phase phase=train device=0
	wall=$csv_v
	sum=$(csv_sum s.csv time_s scope=phase_pstate phase=train)
	# A device's readings are stamped when it answers, a mark's reading when it is asked.
	assert_near "$sum" "$wall" "$(calc "0.005 * $slack")" \
	    "P-state times of train add up to its wall time"
	sum=$(csv_sum s.csv time_share scope=phase_pstate phase=train)
	assert_near "$sum" 1 0.00001 "P-state shares of train"
	csv_get s.csv time_s scope=phase_pstate phase=train pstate=P0
	assert_ge "$csv_v" 0.5 "train's time in P0"
	csv_get s.csv time_s scope=phase_pstate phase=train pstate=P2
	assert_ge "$csv_v" 0.3 "train's time in P2"
}

# A phase's window follows the run's rule: on a GPU without a counter
# whose power fails from 0.8 to 1.3 s, a phase marked at 0.9 s begins with
# the first power reading after that (its readings_s), its P-states share
# out that window alone, and none of it is unknown: the P-state was read.
test_phase_window_valid_readings() {
	sed -e 's/^energy_counter yes$/energy_counter no/' -e '/^pciid/a sample_ms none' \
	    "$SCN/phases.scn" >pw.scn
	printf '%s\n' 'fail nvmlDeviceGetFieldValues 15 800 1300' \
	    'fail nvmlDeviceGetPowerUsage 15 800 1300' >>pw.scn
	NVSIM_SCENARIO=$PWD/pw.scn try -t 60 "$JOULESTAT" --nvml-lib="$SIMLIB" --csv=s.csv \
	    --json=s.json -i 20 -- "$JS_WORK" marks marks.log 900ms phase:train 1200ms end 200ms
	assert_rc 0
	csv_get s.csv energy_method scope=device device=0
	assert_eq "$csv_v" readings "energy method without a counter"
	"$JSONTOOL" get s.json '.runs[0].phases[0].occurrences[0].devices[0].readings_s[0]' >v ||
	    fail "no readings_s"
	from=$(cat v)
	"$JSONTOOL" get s.json '.runs[0].phases[0].occurrences[0].begin_s' >v || fail "no begin_s"
	begin=$(cat v)
	"$JSONTOOL" get s.json '.runs[0].phases[0].occurrences[0].devices[0].readings_s[1]' >v ||
	    fail "no readings_s"
	to=$(cat v)
	note "train begins at $begin s, its first power reading at $from s, last at $to s"
	# The mark at 0.9 s, power back from 1.3 s: at least 0.3 s later (under a
	# checker the mark itself may come late).
	assert_ge "$(calc "$from - $begin")" "$([ -z "${WRAP:-}" ] && echo 0.3 || echo 0.2)" \
	    "the phase's window starts with power"
	sum=$(csv_sum s.csv time_s scope=phase_pstate phase=train)
	assert_near "$sum" "$(calc "$to - $from")" 0.00001 "P-state times of train: its window"
	sum=$(csv_sum s.csv time_share scope=phase_pstate phase=train)
	assert_near "$sum" 1 0.00001 "P-state shares of train"
	assert_eq "$(csv_count s.csv scope=phase_pstate phase=train pstate=unknown)" 0 \
	    "train's unknown P-state rows"
}

# begin/end nest inside a phase; a name that recurs is one phase with its
# occurrences counted, and each occurrence is kept.
test_nested_and_repeated() {
	run_sim phases.scn -i 50 -- "$JS_WORK" marks marks.log phase:train 200ms \
	    begin:epoch 200ms end:epoch begin:epoch 200ms end:epoch begin:epoch 200ms \
	    end:epoch phase:eval 200ms
	assert_rc 0
	csv_get s.csv phase_count scope=phase phase=epoch device=0
	assert_eq "$csv_v" 3 "epoch occurrences"
	n=$(csv_count s.csv scope=phase_occurrence)
	# train, eval and three epochs, one row each for the one device.
	assert_eq "$n" 5 "occurrence rows"
	python3 - <<'PY' || fail "JSON phases: $(cat py.err)"
import json, sys
sys.stderr = open("py.err", "w")
run = json.load(open("s.json"))["runs"][0]
by = {p["phase"]: p for p in run["phases"]}
assert [p["phase"] for p in run["phases"]] == ["train", "epoch", "eval"], list(by)
assert by["epoch"]["depth"] == 1 and by["train"]["depth"] == 0
assert by["epoch"]["count"] == 3 and len(by["epoch"]["occurrences"]) == 3
e = by["epoch"]["devices"][0]
assert abs(sum(o["devices"][0]["energy_j"] for o in by["epoch"]["occurrences"])
           - e["energy_j"]) < 1e-3
assert e["energy_per_occurrence_j"]["stddev"] >= 0
assert by["train"]["wall_s"] >= by["epoch"]["wall_s"]
PY
}

# The mark channel is a path: a grandchild that exec'd and left the
# session still finds it.
test_grandchild_after_setsid() {
	cat >grandchild.sh <<EOS
#!/bin/sh
setsid sh -c 'exec "\$0" marks marks.log phase:deep 300ms end' "$JS_WORK"
sleep 0.2
EOS
	chmod +x grandchild.sh
	run_sim phases.scn -i 50 -- ./grandchild.sh
	assert_rc 0
	csv_get s.csv phase_count scope=phase phase=deep device=0
	assert_eq "$csv_v" 1 "the grandchild's phase"
}

# 100,000 marks as fast as they can be written: every line is read, the
# sampler keeps ticking, and the occurrences past the limit are counted.
test_mark_flood() {
	run_sim phases.scn -q -i 50 -- "$JS_WORK" marks marks.log 300ms flood:100000 300ms
	assert_rc 0
	python3 - <<'PY' || fail "flood: $(cat py.err)"
import json, sys
sys.stderr = open("py.err", "w")
run = json.load(open("s.json"))["runs"][0]
m = run["phase_marks"]
assert m["lines"] == 100000 and m["bad"] == 0, m
kept = sum(p["count"] for p in run["phases"])
assert kept + m["dropped"] == 50000, (kept, m["dropped"])
# At least one tick for every 100 ms of the run: sampling went on.
ticks = run["sampler"]["ticks"]
assert ticks * 0.1 >= run["wall_s"] * 0.5, (ticks, run["wall_s"])
PY
}

# Bad lines are counted and said, never fatal; an over-long line too.
test_bad_lines() {
	long=$(printf 'x%.0s' $(seq 300))
	run_sim phases.scn -i 50 -- "$JS_WORK" marks marks.log "raw:hello" "raw:phase" \
	    "raw:phase a,b" "raw:end nothing" "raw:phase $long" phase:ok 100ms
	assert_rc 0
	assert_match err '5 mark lines ignored \(the first: not phase, begin or end\)'
	csv_get s.csv phase_count scope=phase phase=ok device=0
	assert_eq "$csv_v" 1 "the good phase after the bad lines"
}

# joulestat mark: the shell's way to mark; outside joulestat it does nothing.
test_mark_command() {
	run_sim phases.scn -i 50 -- sh -c '"$0" mark warm; sleep 0.2; "$0" mark --begin inner;
	    sleep 0.1; "$0" mark --end inner; "$0" mark --end' "$JOULESTAT"
	assert_rc 0
	csv_get s.csv phase_count scope=phase phase=warm device=0
	assert_eq "$csv_v" 1 "phase from joulestat mark"
	csv_get s.csv phase_count scope=phase phase=inner device=0
	assert_eq "$csv_v" 1 "begin/end from joulestat mark"
	try env -u JOULESTAT_MARK "$JOULESTAT" mark warm
	assert_rc 0
	[ ! -s err ] || fail "mark outside joulestat said: $(cat err)"
	try "$JOULESTAT" mark 'a:b'
	assert_rc 125
	assert_match err 'mark: a phase name is'
	try "$JOULESTAT" mark
	assert_rc 125
	# A file that is not joulestat's FIFO is left as it is (before: "phase warm" written over it).
	printf 'IMPORTANT\n' >f
	try env JOULESTAT_MARK="$PWD/f" "$JOULESTAT" mark warm
	assert_rc 125
	assert_match err 'is not a FIFO, so no joulestat is reading it'
	assert_eq "$(cat f)" IMPORTANT "the file named by JOULESTAT_MARK"
}

# The man page's Python and C examples mark a phase as they say.
test_man_examples_mark() {
	command -v groff >/dev/null || skip "no groff"
	groff -mdoc -Tascii -P-bcou -rLL=78n "$TOP/man/joulestat.1" 2>/dev/null |
	    sed -n '/^PHASES/,/^PROGRESS/p' > phases.txt
	sed -n '/In Python:/,/In C:/p' phases.txt | sed -n '/^      /p' | sed 's/^           //' \
	    > mark.py
	{
		printf '#include <fcntl.h>\n#include <stdlib.h>\n#include <unistd.h>\n'
		printf 'int main(void) {\n'
		sed -n '/In C:/,/The text report/p' phases.txt | sed -n '/^      /p' |
		    sed 's/^           //'
		printf 'return 0;\n}\n'
	} > mark.c
	grep -q 'phase train' mark.py || fail "no Python example found: $(cat phases.txt)"
	cc -o mark_c mark.c || fail "the C example does not compile: $(cat mark.c)"
	run_sim phases.scn -q -i 50 -- sh -c 'python3 mark.py; sleep 0.1; ./mark_c; sleep 0.1'
	assert_rc 0
	csv_get s.csv phase_count scope=phase phase=train device=0
	assert_eq "$csv_v" 2 "train marked by the Python and the C example"
	python3 mark.py || fail "the Python example fails outside joulestat"
}

# Gates scoped to a phase pass and fail on that phase's figure; a phase
# that never occurred fails with a line that says so.
test_phase_gates() {
	run_sim phases.scn -i 50 --max-energy=phase:train:1000 --max-time=phase:train:0.1 \
	    -- "$JS_WORK" marks marks.log phase:train 400ms end
	assert_rc 3
	assert_match err 'energy, all devices, phase train .* pass'
	assert_match err 'wall time, phase train .* FAIL'
	run_sim phases.scn -i 50 --max-energy=phase:never:1000 -- "$JS_WORK" sleep 0.2s
	assert_rc 3
	assert_match err 'phase never never occurred'
	try "$JOULESTAT" --max-energy=phase:a,b:3 -- true
	assert_rc 125
	assert_match err 'invalid --max-energy'
}

# --max-regression compares each phase both sides have, as well as the run.
test_regression_per_phase() {
	cat >flat.scn <<'EOS'
device 0
name NVIDIA H100 80GB HBM3
uuid GPU-9a5e0002-7c2d-4e8f-9a1b-2c3d4e5f6071
busid 00000000:19:00.0
pciid 0x233010DE 0x16C110DE
energy_counter yes
power instant
phase at=0 power=200 pstate=0 gfx=1980 sm=1980 util=80 memutil=30 temp=50
EOS
	NVSIM_SCENARIO=$PWD/flat.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -q -i 50 \
	    --csv=base.csv -- "$JS_WORK" marks m.log phase:train 300ms phase:eval 600ms end
	assert_rc 0
	NVSIM_SCENARIO=$PWD/flat.scn try "$JOULESTAT" --nvml-lib="$SIMLIB" -i 50 \
	    --baseline=base.csv --max-regression=50 -- "$JS_WORK" marks m.log phase:train 600ms \
	    phase:eval 300ms end
	assert_rc 3
	assert_match err 'energy growth over the baseline   .* pass'
	assert_match err 'energy growth over the baseline, phase train .* FAIL'
	assert_match err 'energy growth over the baseline, phase eval .* pass'
}

# joulestat merge: a phase name is one phase over the ranks; each rank's
# GPU counts once; ranks that lack a phase are not counted for it.
test_merge_sums_phases() {
	for r in 0 1; do
		if [ $r = 0 ]; then steps="phase:train 400ms end"; else
			steps="phase:train 300ms phase:eval 200ms end"; fi
		NVSIM_SCENARIO=$SCN/two-gpus.scn SLURM_PROCID=$r SLURM_JOB_ID=77 \
		    CUDA_VISIBLE_DEVICES=$r try "$JOULESTAT" --nvml-lib="$SIMLIB" -q -i 50 \
		    --csv="r$r.csv" -- "$JS_WORK" marks "m$r.log" $steps
		assert_rc 0
	done
	try "$JOULESTAT" merge -q --csv=m.csv --json=m.json r0.csv r1.csv
	assert_rc 0
	csv_get r0.csv energy_j scope=phase phase=train
	a=$csv_v
	csv_get r1.csv energy_j scope=phase phase=train
	b=$csv_v
	csv_get m.csv energy_j scope=phase phase=train
	assert_near "$csv_v" "$(calc "$a + $b")" 0.000002 "merged train energy"
	csv_get m.csv ranks scope=phase phase=train
	assert_eq "$csv_v" 2 "ranks with train"
	csv_get m.csv ranks scope=phase phase=eval
	assert_eq "$csv_v" 1 "ranks with eval"
	csv_get r1.csv energy_j scope=phase phase=eval
	b=$csv_v
	csv_get m.csv energy_j scope=phase phase=eval
	assert_near "$csv_v" "$b" 0.000002 "merged eval energy"
	python3 -c 'import json; d = json.load(open("m.json"))
assert [p["phase"] for p in d["phases"]] == ["train", "eval"], d["phases"]' ||
	    fail "merged JSON phases"
}

# No FIFO of joulestat's is left behind, however the run ends: the workload
# says where it was given one, and that path is gone after the run.
test_fifo_removed() {
	local p mode dir before
	try "$JOULESTAT" -q -- sh -c 'test -p "$JOULESTAT_MARK" &&
	    echo "$JOULESTAT_MARK $(stat -c %a "$JOULESTAT_MARK")"'
	assert_rc 0
	read -r p mode <out
	assert_eq "$mode" 600 "the FIFO's mode"
	[ ! -e "$p" ] || fail "$p left after a normal run"
	dir=${p%/*}
	before=$(ls "$dir" | grep -c '^joulestat-.*\.mark$')
	try "$JOULESTAT" -q -- /nonexistent/command
	assert_rc 127
	assert_le "$(ls "$dir" | grep -c '^joulestat-.*\.mark$')" "$before" "FIFOs in $dir after a failed exec"
	try "$JOULESTAT" -q -- sh -c 'echo "$JOULESTAT_MARK" >path; exec "$1" signal TERM' sh "$JS_WORK"
	p=$(cat path)
	[ -n "$p" ] && [ ! -e "$p" ] || fail "'$p' left after the workload died of a signal"
	rm -f path
	"$JOULESTAT" -q -- sh -c 'echo "$JOULESTAT_MARK" >path.tmp; mv path.tmp path; exec "$1" sleep 5s' \
	    sh "$JS_WORK" &
	js=$!
	wait_for test -s path
	p=$(cat path)
	[ -p "$p" ] || fail "no FIFO at '$p' while the run goes on"
	kill -TERM $js
	wait $js
	[ ! -e "$p" ] || fail "$p left after SIGTERM to joulestat"
}

# mark_dir: the directory of the FIFO the workload is given.
mark_dir() {
	try "$JOULESTAT" -q -- sh -c 'test -p "$JOULESTAT_MARK" && echo "${JOULESTAT_MARK%/*}"'
	assert_rc 0
	cat out
}

# /dev/shm when it is a tmpfs; else an $XDG_RUNTIME_DIR of the user's alone
# (the XDG Base Directory Specification); else the temporary directory.
# Where /dev/shm is not a tmpfs, or cannot take the FIFO, is made in a mount
# namespace of the test's own (as root, with unshare(1)).
test_fifo_place() {
	local shm=/dev/shm
	export TMPDIR=$PWD/tmp
	mkdir -p "$TMPDIR"
	mkdir -m 700 own
	mkdir -m 777 open
	export XDG_RUNTIME_DIR=$PWD/own
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
		assert_eq "$(mark_dir)" /dev/shm "/dev/shm before an own \$XDG_RUNTIME_DIR"
	fi
	[ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null || skip "not root, or no unshare(1)"
	unshare -m true 2>/dev/null || skip "no mount namespace to be had"
	mkdir plain
	# shm_as WHAT: mark_dir with /dev/shm a plain directory, or a read-only tmpfs.
	shm_as() {
		unshare -m sh -c 'mount --make-rprivate / 2>/dev/null
		    if [ "$1" = plain ]; then mount --bind "$PWD/plain" /dev/shm
		    else mount -t tmpfs -o ro tmpfs /dev/shm; fi || exit 9
		    exec "$2" -q -- sh -c "test -p \"\$JOULESTAT_MARK\" && echo \"\${JOULESTAT_MARK%/*}\""' \
		    sh "$1" "$JOULESTAT" 2>err
	}
	assert_eq "$(shm_as plain)" "$PWD/own" "an own \$XDG_RUNTIME_DIR, /dev/shm no tmpfs"
	assert_eq "$(shm_as ro)" "$PWD/own" "an own \$XDG_RUNTIME_DIR, /dev/shm refusing the FIFO"
	XDG_RUNTIME_DIR=$PWD/open
	assert_eq "$(shm_as plain)" "$TMPDIR" "a \$XDG_RUNTIME_DIR others may write"
	XDG_RUNTIME_DIR=$PWD/missing
	assert_eq "$(shm_as plain)" "$TMPDIR" "a \$XDG_RUNTIME_DIR that is not there"
	XDG_RUNTIME_DIR=own
	assert_eq "$(shm_as plain)" "$TMPDIR" "a relative \$XDG_RUNTIME_DIR"
	unset XDG_RUNTIME_DIR
	assert_eq "$(shm_as ro)" "$TMPDIR" "no \$XDG_RUNTIME_DIR, /dev/shm refusing the FIFO"
	assert_eq "$(ls own open tmp plain | grep -c joulestat-)" 0 "FIFOs left behind"
}

t_run "each phase's energy is the truth between its marks" test_energy_per_phase_truth
t_run "P-state split per phase" test_pstates_per_phase
t_run "a phase's window: its first to last valid reading" test_phase_window_valid_readings
t_run "the timeline's phase column" test_timeline_phase_column
t_run "nested begin/end and repeated names" test_nested_and_repeated
t_run "a grandchild after exec and setsid marks phases" test_grandchild_after_setsid
t_run "a flood of 100,000 marks is read and sampling goes on" test_mark_flood
t_run "bad and over-long lines are counted, not fatal" test_bad_lines
t_run "joulestat mark" test_mark_command
t_run "the man page's Python and C examples work" test_man_examples_mark
t_run "gates scoped to a phase" test_phase_gates
t_run "--max-regression per phase" test_regression_per_phase
t_run "joulestat merge adds up phases over the ranks" test_merge_sums_phases
t_run "the FIFO is removed at every way out" test_fifo_removed
t_run "where the FIFO is made" test_fifo_place
t_done
