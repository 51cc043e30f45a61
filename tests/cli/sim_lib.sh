# The simulated NVML itself (tests/sim/README): that it is as strict
# as the real library, that its energy counter and its ground truth are
# the exact integral of the scenario's power, and that its faults (lost
# GPU, slow calls, resets) happen when the scenario says.  It drives the
# library through tests/sim/client/nvsim_client.c, compiled here, which
# prints one "cmd=NAME rc=N b=NS a=NS key=value..." line per call (b and a
# are CLOCK_MONOTONIC around the call).  Timing checks only assert what a
# call's own [b, a] bracket proves, with windows of a second or more.
. "$(dirname "$0")/lib.sh"
: "${SIMLIB:?}" "${TOP:?}"

SCN=$TOP/tests/sim/scenarios
CDIR=$(mktemp -d "${TMPDIR:-/tmp}/nvsim-client.XXXXXX")
trap 'rm -rf "$CDIR"' EXIT
CLIENT=$CDIR/nvsim_client

# An instrumented library can only be loaded by an instrumented program.
build_client() {
	san=
	if ldd "$SIMLIB" 2>/dev/null | grep -q libasan; then
		san="-fsanitize=address,undefined"
	fi
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g $san -Wall -Wextra -Wformat=2 -Wshadow \
	    -Wstrict-prototypes -Wmissing-prototypes -Wwrite-strings -Wpointer-arith \
	    -Wundef -Werror -o "$CLIENT" "$TOP/tests/sim/client/nvsim_client.c" -ldl \
	    >"$CDIR/cc.log" 2>&1
}
build_client

# sim SCENARIO CMD...: run the client on a scenario; truth goes to ./truth.
sim() {
	scn=$1
	shift
	try env NVSIM_SCENARIO="$scn" NVSIM_TRUTH="$PWD/truth" NVSIM_CALLS="$PWD/calls" \
	    "$CLIENT" "$SIMLIB" "$@"
	[ "$rc" -eq 0 ] || fail "client exited with $rc"
}

# val CMD N KEY: KEY's value on the Nth "cmd=CMD" line of ./out.
val() {
	awk -v c="cmd=$1" -v n="$2" -v k="$3" '
	    $1 == c && ++i == n {
		for (f = 2; f <= NF; f++)
			if (index($f, k "=") == 1) {
				print substr($f, length(k) + 2)
				exit
			}
	    }' out
}

# expect CMD N KEY VALUE
expect() {
	assert_eq "$(val "$1" "$2" "$3")" "$4" "$1 #$2 $3"
}

# tval RECORD MATCH KEY: KEY of the truth record RECORD that has field MATCH.
tval() {
	awk -v r="$1" -v m="$2" -v k="$3" '
	    $1 == r && (m == "" || index($0, " " m " ") > 0 || $0 ~ (" " m "$")) {
		for (f = 2; f <= NF; f++)
			if (index($f, k "=") == 1) {
				print substr($f, length(k) + 2)
				exit
			}
	    }' truth
}

# ms_after CMD N KEY: ms from the first init's b to the call's KEY (b or a).
ms_after() {
	echo $((($(val "$1" "$2" "$3") - $(val init 1 b)) / 1000000))
}

# A scenario with one plain device; extra lines come from stdin.
one_gpu() {
	cat >"$1" <<-EOF
	device 0
	name Test GPU
	uuid GPU-00000000-1111-2222-3333-444444444444
	busid 00000000:01:00.0
	EOF
	cat >>"$1"
}

t_client_builds() {
	[ -x "$CLIENT" ] || fail "nvsim_client did not compile: $(cat "$CDIR/cc.log")"
}

t_exports() {
	nm -D --defined-only "$SIMLIB" | awk '$2 == "T" || $2 == "W" { print $3 }' |
	    sort >exported
	nm -D --defined-only "$SIMLIB" | awk '$2 ~ /^[A-Z]$/ && $3 !~ /^nvml/' >stray
	sed -n '/^Exported symbols/,/^Strictness/p' "$TOP/tests/sim/README" |
	    grep -o 'nvml[A-Za-z0-9_]*' | sort -u >documented
	[ -s exported ] || fail "no symbols exported"
	[ ! -s stray ] || fail "non-NVML symbols exported: $(cat stray)"
	diff documented exported >diff.out || fail "README list differs: $(cat diff.out)"
}

t_uninitialized() {
	sim "$SCN/demo.scn" count handle:0 badhandle shutdown errstr:1 init init count \
	    handle:0 power:0 shutdown count shutdown count power:0 shutdown
	expect count 1 rc 1
	expect handle 1 rc 1
	expect badhandle 1 rc 1
	expect shutdown 1 rc 1
	assert_match out "^cmd=errstr rc=0 .* value='Uninitialized'\$"
	expect init 1 rc 0
	expect init 2 rc 0
	expect count 2 rc 0
	expect power 1 rc 0
	expect count 3 rc 0
	expect count 4 rc 1
	expect power 2 rc 1
	expect shutdown 4 rc 1
}

t_no_scenario() {
	try env -u NVSIM_SCENARIO "$CLIENT" "$SIMLIB" init count
	assert_rc 0
	expect init 1 rc 9
	expect count 1 rc 1
	assert_match err 'NVSIM_SCENARIO is not set'
	sim "$PWD/missing.scn" init
	expect init 1 rc 9
	assert_match err 'missing.scn: No such file'
}

# Each case: a broken scenario, the line the message must name, a word of it.
t_bad_scenario() {
	while IFS='|' read -r body line word; do
		printf "$body\n" >bad.scn
		sim "$PWD/bad.scn" init count
		expect init 1 rc 999
		expect count 1 rc 1
		assert_match err "nvsim: .*bad\\.scn:$line: .*$word"
	done <<-'EOF'
	driver 1\ndevice 0\nphase at=0 power=12x pstate=0|3|power
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=0\ncolour red|6|unknown keyword
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=0\ndriver 2|6|before the first device
	device 1|1|in order
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=10 power=1 pstate=0|5|start at 0
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=0\nphase dur=5|6|no dur
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1..5 pstate=0|5|ramp
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=17|5|pstate
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=0\nslow nvmlNope 5 0 9|6|nvmlNope
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=0\nlost 9 3|6|FROM
	# comment\n\ndevice 0\nname a\nbusid 0:1:0.0|3|needs name, uuid
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=0\nbase_clock 0|6|base_clock
	device 0\nname a\nuuid GPU-1\nbusid 0:1:0.0\nphase at=0 power=1 pstate=0\nlock_clocks maybe|6|lock_clocks
	EOF
}

t_shipped_scenarios() {
	for s in "$SCN"/*.scn; do
		sim "$s" init count handle:0 name:0:96 pci:0 shutdown
		expect init 1 rc 0
		expect count 1 rc 0
		expect name 1 rc 0
		expect pci 1 rc 0
		[ "$(val count 1 value)" -ge 1 ] || fail "$s: no device"
	done
}

t_identity() {
	sim "$SCN/two-gpus.scn" init handle:0 handle:1 handle:2 name:1:96 name:0:21 \
	    name:0:22 uuid:1:96 pci:1
	expect handle 3 rc 2
	assert_match out "^cmd=name rc=0 .* value='Tesla P100-PCIE-16GB'\$"
	expect name 2 rc 7
	expect name 3 rc 0
	assert_match out "^cmd=uuid rc=0 .* value='GPU-d3f1a9b8-2c7e-4a16-8f03-7b6e5d4c3b21'\$"
	expect pci 1 busid 00000000:86:00.0
	expect pci 1 legacy 0000:86:00.0
	expect pci 1 devid 0x15F810DE
}

t_version_words() {
	sim "$SCN/foreign.scn" init handle:0 mem2:0:0x02000028 mem2:0:0x02000018 \
	    mem2:0:0x01000028 mem2:0:0 procinfo:0:8:0x01000018 procinfo:0:8:0x02000018 \
	    procinfo:0:8:0x01000020 procinfo:0:8:0
	expect mem2 1 rc 0
	[ "$(val mem2 1 total)" -gt 0 ] || fail "mem2 total is 0"
	expect mem2 2 rc 25
	expect mem2 3 rc 25
	expect mem2 4 rc 25
	expect procinfo 1 rc 0
	expect procinfo 2 rc 25
	expect procinfo 3 rc 25
	expect procinfo 4 rc 25
}

t_insufficient_size() {
	sim "$SCN/many-procs.scn" init handle:0 running:0:-1 running:0:4999 running:0:5000 \
	    procutil:0:-1:0 procutil:0:100:0 procutil:0:5000:0 procinfo:0:-1:0x01000018 \
	    procinfo:0:4999:0x01000018 procinfo:0:5000:0x01000018
	expect running 1 rc 7
	expect running 1 count 5000
	expect running 2 rc 7
	expect running 2 count 5000
	expect running 3 rc 0
	expect running 3 first 5000000
	expect procutil 1 rc 7
	expect procutil 1 count 5000
	expect procutil 2 rc 7
	expect procutil 2 count 5000
	expect procutil 3 rc 0
	expect procinfo 1 rc 7
	expect procinfo 1 count 5000
	expect procinfo 2 rc 7
	expect procinfo 3 rc 0
	expect procinfo 3 count 5000
}

# The counter is the integral of the scenario's power: constant 250 W here.
t_energy_counter() {
	one_gpu gpu.scn <<-'EOF'
	energy_offset 1000000
	phase at=0 power=250 pstate=0
	EOF
	sim "$PWD/gpu.scn" init handle:0 energy:0 sleep:700 energy:0 shutdown
	e1=$(val energy 1 value) e2=$(val energy 2 value)
	lo=$((($(val energy 2 b) - $(val energy 1 a)) / 4000 - 1))
	hi=$((($(val energy 2 a) - $(val energy 1 b)) / 4000 + 2))
	d=$((e2 - e1))
	[ "$d" -ge "$lo" ] && [ "$d" -le "$hi" ] ||
	    fail "250 W over the calls' bracket: $d mJ not in [$lo, $hi]"
	[ "$e1" -ge 1000000 ] || fail "offset missing: $e1"
	assert_near "$d" "$(tval device index=0 energy_mj)" 1 "delta vs truth"
	assert_eq "$(tval device index=0 reads)" 2 "reads"
}

# Across ramps and phase changes the delta still matches the truth exactly.
t_energy_truth() {
	sim "$SCN/demo.scn" init handle:0 until:300 energy:0 until:2300 energy:0 shutdown
	d=$(($(val energy 2 value) - $(val energy 1 value)))
	assert_near "$d" "$(tval device index=0 energy_mj)" 1 "delta vs truth"
	[ "$(tval device index=0 first_ns)" -ge "$(val energy 1 b)" ] &&
	    [ "$(tval device index=0 last_ns)" -le "$(val energy 2 a)" ] ||
	    fail "truth window is not inside the two calls"
}

t_pstate_truth() {
	sim "$SCN/demo.scn" init handle:0 until:100 pstate:0 until:1000 pstate:0 \
	    until:2500 power:0 until:3800 pstate:0 shutdown
	[ "$(ms_after pstate 1 a)" -ge 480 ] || expect pstate 1 value 8
	expect pstate 2 value 0
	expect pstate 3 value 8
	first=$(tval device index=0 first_ns) last=$(tval device index=0 last_ns)
	sum=$(awk '$1 == "pstate" { split($4, a, "="); s += a[2] } END { printf "%.0f", s }' truth)
	assert_eq "$sum" "$((last - first))" "sum of P-state times"
	esum=$(awk '$1 == "pstate" { split($5, a, "="); s += a[2] } END { printf "%.3f", s }' truth)
	assert_near "$esum" "$(tval device index=0 energy_mj)" 0.01 "sum of P-state energy"
	# P2 lies wholly inside the window: exactly 1 s at 420 W.
	assert_eq "$(tval pstate pstate=2 time_ns)" 1000000000 "P2 time"
	assert_eq "$(tval pstate pstate=2 energy_mj)" 420000.000 "P2 energy"
	assert_eq "$(tval device index=0 reads)" 4 "reads"
}

t_truth_without_shutdown() {
	sim "$SCN/two-gpus.scn" init handle:1 power:1 sleep:100 power:1
	[ -s truth ] || fail "no truth written at exit"
	assert_eq "$(tval device index=1 reads)" 2 "reads"
	assert_eq "$(tval device index=0 reads)" 0 "device 0 reads"
}

t_gpu_lost() {
	sim "$SCN/lost.scn" init handle:0 until:200 energy:0 until:1200 power:0 energy:0 \
	    handle:0 name:0:96 until:2800 power:0 energy:0
	[ "$(ms_after energy 1 a)" -lt 480 ] || skip "machine too slow for the lost window"
	[ "$(ms_after power 1 a)" -lt 2400 ] || skip "machine too slow for the lost window"
	expect energy 1 rc 0
	expect power 1 rc 15
	expect energy 2 rc 15
	expect handle 2 rc 15
	expect name 1 rc 15
	expect power 2 rc 0
	expect energy 3 rc 0
	# 300 W for most of the window: the counter ran on while the GPU was lost.
	[ $(($(val energy 3 value) - $(val energy 1 value))) -gt 600000 ] ||
	    fail "counter stopped during the lost window"
}

# The 1 s mean around a 100 W -> 400 W step at 300 ms, in mW, at t ms.
avg1s() {
	awk -v t="$1" 'BEGIN {
		if (t <= 300) p = 100; else if (t >= 1300) p = 400;
		else p = (100 * (1300 - t) + 400 * (t - 300)) / 1000;
		printf "%d", p * 1000 }'
}

t_average1s() {
	sim "$SCN/average1s.scn" init handle:0 until:800 power:0 fields:0:185,186 shutdown
	t0=$(tval sim "" t0_ns)
	b=$((($(val power 1 b) - t0) / 1000)) a=$((($(val power 1 a) - t0) / 1000))
	lo=$(avg1s "$(awk -v x="$b" 'BEGIN { print x / 1000 }')")
	hi=$(avg1s "$(awk -v x="$a" 'BEGIN { print x / 1000 }')")
	p=$(val power 1 value)
	[ "$p" -ge $((lo - 2)) ] && [ "$p" -le $((hi + 2)) ] ||
	    fail "power $p mW is not the 1 s mean [$lo, $hi]"
	[ "$a" -ge 1250000 ] || [ "$p" -lt 399000 ] || fail "power $p mW does not lag the step"
	expect fields 1 rc 0
	[ "$(val fields 1 f186)" = "3/0" ] || fail "INSTANT field on average1s: $(val fields 1 f186)"
	case $(val fields 1 f185) in
	0/*) ;;
	*) fail "AVERAGE field: $(val fields 1 f185)" ;;
	esac
}

t_instant() {
	sim "$SCN/two-gpus.scn" init handle:0 until:900 power:0 fields:0:186
	expect power 1 value 310000
	expect fields 1 f186 0/310000
}

t_field_values() {
	sim "$SCN/two-gpus.scn" init handle:0 handle:1 fields:0:83,185,186,191,9999,190 \
	    fields:1:83,186,191 energy:1
	expect fields 1 rc 0
	f83=$(val fields 1 f83)
	[ "${f83%%/*}" = 0 ] && [ "${f83#*/}" -ge 41000000 ] || fail "f83: $f83"
	expect fields 1 f185 3/0
	case $(val fields 1 f186) in 0/*) ;; *) fail "f186: $(val fields 1 f186)" ;; esac
	assert_eq "$(val fields 1 f191)" "$f83" "f191 is the same counter"
	expect fields 1 f9999 3/0
	expect fields 1 f190 0/400000
	expect fields 2 rc 0
	expect fields 2 f83 3/0
	expect fields 2 f191 3/0
	case $(val fields 2 f186) in 0/*) ;; *) fail "GPU 1 f186: $(val fields 2 f186)" ;; esac
	expect energy 1 rc 3
}

t_bad_handle() {
	sim "$SCN/demo.scn" init badhandle handle:0 power:0
	expect badhandle 1 rc 2
	expect power 1 rc 0
}

t_tree_and_foreign() {
	sim "$SCN/foreign.scn" init handle:0 fork:2 until:800 procutil:0:64:0 \
	    procutil:0:64:18446744073709551615 running:0:16
	kid1=$(val fork 1 pid) kid2=$(val fork 2 pid)
	# Every sample the driver keeps, each process in each sample it was
	# busy in, each with its sample's own time: 4242 in every sample since
	# init, the two children (from 500 ms) in the later ones.
	expect procutil 1 rc 0
	line=$(grep '^cmd=procutil' out | head -n 1 | tr ' ' '\n')
	ts=$(echo "$line" | sed -n 's/^p4242=.*\///p' | sort -u | wc -l)
	n1=$(echo "$line" | grep -c "^p$kid1=")
	n2=$(echo "$line" | grep -c "^p$kid2=")
	[ "$ts" -ge 5 ] || fail "pid 4242 in only $ts distinct samples by 800 ms"
	assert_eq "$n1" "$n2" "samples of the two children"
	[ "$n1" -ge 1 ] && [ "$n1" -lt "$ts" ] || fail "children in $n1 of $ts samples"
	expect procutil 1 count $((ts + n1 + n2))
	case "$(val procutil 1 "p$kid1")" in 50/25/*) ;; *) fail "child $kid1 missing" ;; esac
	case "$(val procutil 1 "p$kid2")" in 50/25/*) ;; *) fail "child $kid2 missing" ;; esac
	case "$(val procutil 1 p4242)" in 30/10/*) ;; *) fail "foreign 4242 missing" ;; esac
	assert_no_match out "cmd=procutil .* p$(val fork 1 self)="
	expect procutil 2 rc 6
	expect running 1 count 3
}

t_slow() {
	sim "$SCN/slow.scn" init handle:0 until:1000 power:0 clock:0:0
	[ "$(ms_after power 1 b)" -lt 2400 ] || skip "machine too slow for the slow window"
	[ $(($(val power 1 a) - $(val power 1 b))) -ge 150000000 ] ||
	    fail "GetPowerUsage did not take 150 ms"
	expect power 1 rc 0
	expect clock 1 rc 0
}

t_reset() {
	sim "$SCN/reset.scn" init handle:0 until:500 energy:0 until:2500 energy:0
	[ "$(val energy 1 value)" -ge 9876543210 ] || fail "offset missing"
	[ "$(ms_after energy 2 b)" -ge 1500 ] || fail "until did not wait"
	[ "$(val energy 2 value)" -lt 9876543210 ] || fail "counter did not reset"
}

t_vgpu_guest() {
	sim "$SCN/vgpu-guest.scn" init handle:0 virt:0 power:0 energy:0 fields:0:186,83 \
	    limit:0 samples:0:-1:0 pstate:0
	expect virt 1 value 2
	expect power 1 rc 3
	expect energy 1 rc 3
	expect fields 1 f186 3/0
	expect fields 1 f83 3/0
	expect limit 1 rc 3
	expect samples 1 rc 3
	expect pstate 1 rc 0
}

t_mig() {
	sim "$SCN/mig.scn" init handle:0 procutil:0:8:0 running:0:-1 mem2:0:0x02000028 power:0
	expect procutil 1 rc 3
	expect running 1 rc 4
	expect mem2 1 rc 4
	expect power 1 rc 0
}

t_samples() {
	sim "$SCN/two-gpus.scn" init handle:1 until:300 samples:1:-1:0 samples:1:200:0 \
	    samples:1:3:0 samples:1:8:18446744073709551615
	expect samples 1 rc 0
	expect samples 1 type 1
	n=$(val samples 1 count)
	[ "$n" -ge 1 ] && [ "$n" -le 120 ] || fail "sample count $n"
	expect samples 2 rc 0
	expect samples 3 count 3
	expect samples 4 rc 6
}

t_violation() {
	sim "$SCN/demo.scn" init handle:0 until:3800 viol:0:0 viol:0:1 viol:0:99
	expect viol 1 rc 0
	expect viol 1 ns 600000000
	expect viol 2 ns 0
	expect viol 3 rc 2
}

t_accounting() {
	sim "$SCN/foreign.scn" init handle:0 fork:1 until:1800 acctpids:0:-1 acctpids:0:1 \
	    acctpids:0:16 acctstats:0:4242 acctstats:0:99999 until:2700 acctstats:0:5150
	kid=$(val fork 1 pid)
	expect acctpids 1 rc 7
	expect acctpids 1 count 4
	expect acctpids 2 rc 7
	expect acctpids 3 rc 0
	expect acctpids 3 count 4
	expect acctstats 1 rc 0
	expect acctstats 1 gpu 30
	expect acctstats 1 running 1
	expect acctstats 1 time 0
	expect acctstats 2 rc 6
	# 5150 lived from 1500 to 2500 ms.
	expect acctstats 3 rc 0
	expect acctstats 3 running 0
	expect acctstats 3 time 1000
	assert_match out "cmd=acctpids rc=0 .*count=4"
	[ -n "$kid" ] || fail "no child"
}

t_vgpu_host() {
	sim "$SCN/vgpu-host.scn" init handle:0 virt:0 vgpus:0:-1 vgpus:0:8 vgpuutil:0:-1:0 \
	    vgpuutil:0:8:0 vgpuutil:0:8:18446744073709551615 acctpids:0:-1
	expect virt 1 value 3
	expect vgpus 1 rc 7
	expect vgpus 1 count 3
	expect vgpus 2 first 3251634191
	expect vgpuutil 1 rc 7
	expect vgpuutil 1 count 3
	expect vgpuutil 2 rc 0
	expect vgpuutil 2 type 1
	expect vgpuutil 2 sm 40
	expect vgpuutil 3 rc 6
	expect acctpids 1 rc 3
}

t_locked_clocks() {
	sim "$SCN/demo.scn" init handle:0 lockgpu:0:1200:1400
	expect lockgpu 1 rc 4
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=1200 max=1400 rc=4$'
	{ echo "root yes"; cat "$SCN/demo.scn"; } >root.scn
	sim "$PWD/root.scn" init handle:0 until:1000 lockgpu:0:1200:1400 clock:0:0 \
	    lockgpu:0:1500:1400
	expect lockgpu 1 rc 0
	expect clock 1 value 1400
	expect lockgpu 2 rc 2
}

# The header's words: TDP is base_clock, UNLIMITED an open bound, both
# UNLIMITED a reset; mixed pairs, unknown words and words in the memory
# call are INVALID_ARGUMENT and leave the previous range in force.
t_locked_clock_words() {
	one_gpu words.scn <<-'EOF'
	max_clocks 1980 1980 2619
	base_clock 1590
	phase at=0 power=100 pstate=0 gfx=1755 sm=1755 mem=1593
	EOF
	sed -i '1i root yes' words.scn
	sim "$PWD/words.scn" init handle:0 \
	    lockgpu:0:0xffffff01:0xffffff01 clock:0:0 clock:0:1 \
	    lockgpu:0:0xffffff02:0xffffff01 clock:0:0 \
	    lockgpu:0:0xffffff01:0xffffff02 clock:0:0 \
	    lockgpu:0:1800:0xffffff01 lockgpu:0:0xffffff03:0xffffff01 clock:0:0 \
	    lockgpu:0:0xffffff02:0xffffff02 clock:0:0 \
	    lockmem:0:0xffffff01:0xffffff01 lockmem:0:2619:2619 clock:0:2 \
	    resetmem:0 clock:0:2
	expect lockgpu 1 rc 0
	expect clock 1 value 1590
	expect clock 2 value 1590
	expect lockgpu 2 rc 0
	expect clock 3 value 1590
	expect lockgpu 3 rc 0
	expect clock 4 value 1755
	expect lockgpu 4 rc 2
	expect lockgpu 5 rc 2
	expect clock 5 value 1755
	expect lockgpu 6 rc 0
	expect clock 6 value 1755
	expect lockmem 1 rc 2
	expect lockmem 2 rc 0
	expect clock 7 value 2619
	expect resetmem 1 rc 0
	expect clock 8 value 1593
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=tdp max=tdp rc=0$'
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=unlimited max=tdp rc=0$'
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=1800 max=tdp rc=2$'
	assert_match calls '^nvmlDeviceSetGpuLockedClocks index=0 min=4294967043 max=tdp rc=2$'
}

# Without base_clock, TDP is 60 % of the highest graphics clock (1980 -> 1188).
t_locked_clock_base_default() {
	{ echo "root yes"; cat "$SCN/demo.scn"; } >root.scn
	sim "$PWD/root.scn" init handle:0 until:1000 lockgpu:0:0xffffff01:0xffffff01 clock:0:0
	expect lockgpu 1 rc 0
	expect clock 1 value 1188
}

# lock_clocks gpuonly: the memory calls are NOT_SUPPORTED; notsupported:
# all four are, root or not; a lost GPU's reset is logged with its index.
t_locked_clock_support() {
	sim "$SCN/lock-partial.scn" init handle:0 handle:1 handle:2 \
	    lockgpu:1:1000:1000 lockmem:1:5001:5001 resetmem:1 resetgpu:1 \
	    lockgpu:2:1000:1000 resetgpu:2 lockmem:0:1215:1215 resetmem:0
	expect lockgpu 1 rc 0
	expect lockmem 1 rc 3
	expect resetmem 1 rc 3
	expect resetgpu 1 rc 0
	expect lockgpu 2 rc 3
	expect resetgpu 2 rc 3
	expect lockmem 2 rc 0
	expect resetmem 2 rc 0
	grep -v '^root ' "$SCN/lock-partial.scn" >noroot.scn
	sim "$PWD/noroot.scn" init handle:1 handle:2 lockgpu:1:1000:1000 lockgpu:2:1000:1000
	expect lockgpu 1 rc 4
	expect lockgpu 2 rc 3
	{ echo "root yes"; cat "$SCN/lost.scn"; } >lost.scn
	rm -f calls
	sim "$PWD/lost.scn" init handle:0 lockgpu:0:1000:1000 until:1000 resetgpu:0
	expect resetgpu 1 rc 15
	assert_match calls '^nvmlDeviceResetGpuLockedClocks index=0 rc=15$'
}

t_run "client compiles" t_client_builds
t_run "exported symbols match the README" t_exports
t_run "calls before init or after shutdown are UNINITIALIZED" t_uninitialized
t_run "no scenario: init fails with DRIVER_NOT_LOADED" t_no_scenario
t_run "bad scenario: init fails naming file:line" t_bad_scenario
t_run "every shipped scenario loads" t_shipped_scenarios
t_run "identity and short string buffers" t_identity
t_run "wrong version words: ARGUMENT_VERSION_MISMATCH" t_version_words
t_run "short buffers: INSUFFICIENT_SIZE with the needed count" t_insufficient_size
t_run "energy counter is the integral of power" t_energy_counter
t_run "energy counter matches the truth across ramps" t_energy_truth
t_run "truth per P-state adds up to the window" t_pstate_truth
t_run "truth is written at exit without shutdown" t_truth_without_shutdown
t_run "GPU_IS_LOST inside the lost window only" t_gpu_lost
t_run "average1s: GetPowerUsage is the trailing 1 s mean" t_average1s
t_run "instant: GetPowerUsage and the INSTANT field agree" t_instant
t_run "field values: per-field return codes" t_field_values
t_run "bad handle: INVALID_ARGUMENT" t_bad_handle
t_run "process utilization: tree and foreign pids" t_tree_and_foreign
t_run "slow call sleeps inside its window" t_slow
t_run "energy counter reset" t_reset
t_run "vGPU guest: no power or energy" t_vgpu_guest
t_run "MIG parent handle restrictions" t_mig
t_run "driver power samples" t_samples
t_run "violation time from throttle reasons" t_violation
t_run "accounting buffer" t_accounting
t_run "vGPU host: instances and their utilization" t_vgpu_host
t_run "locked clocks need root and are logged" t_locked_clocks
t_run "locked clocks: TDP and UNLIMITED words, mixed pairs refused" t_locked_clock_words
t_run "locked clocks: TDP defaults to 60 % of the max clock" t_locked_clock_base_default
t_run "locked clocks: lock_clocks gpuonly/notsupported, lost GPU" t_locked_clock_support
t_done
