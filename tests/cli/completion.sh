#!/bin/bash
# The bash completion (completion/joulestat), driven as readline drives it:
# COMP_WORDS split at blanks, "=" and ":", COMP_CWORD, COMP_LINE and
# COMP_POINT set, then the function that `complete -p joulestat` names is
# called with bash-completion's own library loaded.  Its option lists must
# be those of --help and merge --help, so that a new option cannot be left
# out of it.
. "$(dirname "$0")/lib.sh"

COMPL=$TOP/completion/joulestat
LIBBC=/usr/share/bash-completion/bash_completion
SCN=$TOP/tests/sim/scenarios/two-gpus.scn

have_bc() {
	[ -r "$LIBBC" ] || skip "bash-completion is not installed ($LIBBC)"
}

# comp LINE: what the completion offers for LINE, the cursor at its end, one
# per line, in file out.  A command "fakecmd" has a completion of its own
# that answers "fake|CWORD|WORD0|CUR", to see what the completion hands on.
comp() {
	NVSIM_SCENARIO=$SCN LINE=$1 JS=$JOULESTAT bash -c '
		. "$0" || exit 1
		. "$1" || exit 1
		# Only readline may call compopt; it changes no reply.
		compopt() { :; }
		_fake() { COMPREPLY=("fake|$COMP_CWORD|${COMP_WORDS[0]}|${COMP_WORDS[COMP_CWORD]}"); }
		complete -F _fake fakecmd
		COMP_WORDS=()
		for w in $LINE; do
			while [ -n "$w" ]; do
				case $w in
				[=:]*) t=${w%%[!=:]*} ;;
				*) t=${w%%[=:]*} ;;
				esac
				COMP_WORDS+=("$t")
				w=${w#"$t"}
			done
		done
		case $LINE in *" ") COMP_WORDS+=("") ;; esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$LINE COMP_POINT=${#LINE}
		spec=$(complete -p "${COMP_WORDS[0]}") || exit 1
		f=${spec#*-F }
		COMPREPLY=()
		${f%% *} "$JS" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' "$LIBBC" "$COMPL" >out 2>err
	[ $? -eq 0 ] || fail "completing [$1] failed: $(head -n 3 err)"
	[ ! -s err ] || fail "completing [$1] wrote to stderr: $(head -n 3 err)"
}

# offers LINE WORD...: the completion of LINE offers exactly WORD...
offers() {
	line=$1
	shift
	comp "$line"
	got=$(sort -u out | head -n 12 | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort -u | tr '\n' ' ')
	assert_eq "$got" "$want" "completion of [$line]"
}

# help_opts HELPFILE: the options --help lists, one per line, "=" after
# those that take a value: "--csv=", "-x=", "--quiet".
help_opts() {
	sed -n -E 's/^ {1,8}(-[^ ].*)$/\1/p' "$1" | sed -E 's/   .*//' |
	    tr ',' '\n' | awk '
		{ sub(/^ +/, "") }
		/^-/ {
			n = $0; sub(/[= ].*/, "", n)
			print n (index($0, "=") || index($0, " ") ? "=" : "")
		}' | sort -u
}

# compl_opts MODE: the same from the completion's lists for MODE (run, merge, mark or report).
compl_opts() {
	bash -c '. "$0"; a=_joulestat_$1_args f=_joulestat_$1_flags
		for o in ${!a}; do printf "%s=\n" "$o"; done
		for o in ${!f}; do printf "%s\n" "$o"; done' \
	    "$COMPL" "$1" | sort -u
}

# A short option takes a value when its long form, on the same help line,
# does: "-d, --devices=all|LIST" is "-d=" and "--devices=".
test_lists_match_help() {
	try "$JOULESTAT" --help
	assert_rc 0
	sed -E 's/^( +-[A-Za-z]), (--[^= ]+)=/\1=, \2=/' out >help
	help_opts help >from-help
	[ "$(wc -l <from-help)" -ge 20 ] || fail "too few options read from --help: $(cat from-help)"
	compl_opts run >from-compl
	diff from-help from-compl >d || fail "--help (<) and completion/joulestat (>) differ: $(cat d)"
	for mode in merge mark report; do
		try "$JOULESTAT" $mode --help
		assert_rc 0
		sed -E 's/^( +-[A-Za-z]), (--[^= ]+)=/\1=, \2=/' out >help
		help_opts help >from-help
		compl_opts $mode >from-compl
		diff from-help from-compl >d ||
		    fail "$mode --help (<) and completion/joulestat (>) differ: $(cat d)"
	done
}

test_options() {
	have_bc
	offers "joulestat --desc" --descendants=
	offers "joulestat --lock-clocks" --lock-clocks= --lock-clocks-required
	offers "joulestat merge --" --csv= --json= --output= --help --quiet
	offers "joulestat mark --" --begin --end --help
}

test_option_values() {
	have_bc
	offers "joulestat --descendants=" leave wait kill
	offers "joulestat -q --descendants " leave wait kill
	offers "joulestat --regression-metric=e" energy energy-above-idle
	offers "joulestat --gate-partial " fail measured
	offers "joulestat --lock-clocks=" base max
	# A number is not guessed.
	offers "joulestat -i "
	touch run1.csv run2.json
	offers "joulestat --csv=run" run1.csv run2.json
}

# The devices are those --list-devices shows, through the --nvml-lib given
# on the line: the simulated NVML with two GPUs.
test_devices() {
	have_bc
	[ -r "$SIMLIB" ] || skip "no simulated NVML ($SIMLIB)"
	try env NVSIM_SCENARIO="$SCN" "$JOULESTAT" --nvml-lib="$SIMLIB" --list-devices
	assert_rc 0
	u0=$(awk '/^0: / { print $NF }' out)
	u1=$(awk '/^1: / { print $NF }' out)
	case "$u0 $u1" in GPU-?*" "GPU-?*) ;; *) fail "no two UUIDs listed: $(cat out)" ;; esac
	offers "joulestat --nvml-lib=$SIMLIB -d " all 0 1 "$u0" "$u1"
	offers "joulestat --nvml-lib $SIMLIB --devices=GPU-" "$u0" "$u1"
	offers "joulestat --nvml-lib $SIMLIB -d 1,${u0:0:6}" "1,$u0"
	offers "joulestat --nvml-lib $SIMLIB -d 1," 1,0 1,1 "1,$u0" "1,$u1"
	# Without NVML nothing but "all" (the machine has no devices).
	comp "joulestat --nvml-lib=/nonexistent/libnvidia-ml.so.1 -d "
	assert_match out '^all$'
	assert_no_match out 'GPU-'
	assert_eq "$(wc -l <out)" 1 "answers without NVML"
}

# The command is completed by its own completion, whatever came before it:
# options with "=" values, values with ":", values as separate words.
test_command_after_options() {
	have_bc
	offers "joulestat -q -- fakecmd x" "fake|1|fakecmd|x"
	offers "joulestat --csv=a.csv -d nvml:0 -- fakecmd a b" "fake|2|fakecmd|b"
	offers "joulestat -o out.txt -i 50 fakecmd " "fake|1|fakecmd|"
	offers "joulestat --idle-power=0:55,1:60 fakecmd y" "fake|1|fakecmd|y"
	# Options of the command are the command's, not joulestat's.
	offers "joulestat -q fakecmd --desc" "fake|1|fakecmd|--desc"
	comp "joulestat -q -- tru"
	assert_match out '^true$'
	assert_no_match out '^-'
	comp "joulestat mer"
	assert_match out '^merge$'
	comp "joulestat -q mer"
	assert_no_match out '^merge$' 
}

# joulestat-plot: its options (those its usage line shows) and files.
test_plot() {
	have_bc
	try "$TOP/scripts/joulestat-plot" --help
	assert_rc 0
	want=$(head -n 1 out | grep -oE '\[-[-a-z]+' | tr -d '[' | sort | tr '\n' ' ')
	have=$(bash -c '. "$0"; printf "%s\n" $_joulestat_plot_opts' "$COMPL" | grep -vx -- --help |
	    sort | tr '\n' ' ')
	[ -n "$want" ] || fail "no options in joulestat-plot's usage line: $(head -n 1 out)"
	assert_eq "$have" "$want" "joulestat-plot's options: its usage line against the completion"
	touch t1.csv t2.csv run.png run.svg notes.txt
	offers "joulestat-plot t" t1.csv t2.csv
	offers "joulestat-plot t1.csv -o r" run.png run.svg
	offers "joulestat-plot t1.csv --" --run --title --help
}

test_merge_files() {
	have_bc
	mkdir sub
	touch rank-0.csv rank-1.csv notes.txt
	offers "joulestat merge -q rank" rank-0.csv rank-1.csv
	offers "joulestat merge rank-0.csv " rank-0.csv rank-1.csv sub
}

t_run "completion lists every option of --help, and no other" test_lists_match_help
t_run "options, long forms with '=' for a value" test_options
t_run "values of --descendants, --regression-metric, ..." test_option_values
t_run "devices and UUIDs from --list-devices" test_devices
t_run "the command after the options, by its own completion" test_command_after_options
t_run "merge: summary CSV files" test_merge_files
t_run "joulestat-plot: options and files" test_plot
t_done
