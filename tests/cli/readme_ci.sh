#!/bin/bash
# The CI jobs of README.md ("In GitHub Actions and GitLab CI"): the shell
# commands of each YAML block (GitHub's run:, GitLab's script: and
# after_script:) pass shellcheck, and run as written on the simulated GPU,
# with ./bench a short workload, leaving the files the jobs publish.
. "$(dirname "$0")/lib.sh"

README=$TOP/README.md

# extract N: the commands of the Nth yaml block of README.md, one script.
extract() {
	awk -v want="$1" '
	/^```yaml$/ { n++; inblock = (n == want); next }
	/^```$/ { inblock = 0; next }
	!inblock { next }
	{
		match($0, /^ */)
		ind = RLENGTH
		line = substr($0, ind + 1)
		if (mode == "block" && (ind > bind || line == "")) { print substr($0, bind + 3); next }
		if (mode == "list" && ind > lind && line ~ /^- /) { print substr(line, 3); next }
		mode = ""
		if (line ~ /^(- )?run: \|$/) { mode = "block"; bind = ind + (line ~ /^- / ? 2 : 0); next }
		if (line ~ /^(- )?run: /) { sub(/^(- )?run: /, "", line); print line; next }
		if (line ~ /^(before_script|script|after_script):$/) { mode = "list"; lind = ind; next }
	}' "$README"
}

# The commands as a script for shellcheck and bash.
script_of() {
	{ echo '#!/bin/bash'; echo 'set -e'; extract "$1"; } >"job$1.sh"
	[ "$(grep -c joulestat "job$1.sh")" -ge 2 ] || fail "block $1: no joulestat commands"
}

test_shellcheck() {
	[ "$(grep -c '^```yaml$' "$README")" -eq 2 ] || fail "expected two yaml blocks in README.md"
	for n in 1 2; do
		script_of $n
		shellcheck -s bash "job$n.sh" >sc.out 2>&1 || fail "block $n: $(cat sc.out)"
	done
	grep -q -- '--markdown=github' job1.sh || fail "the GitHub job lost its summary"
	grep -q -- '--junit=energy.xml' job2.sh || fail "the GitLab job lost its test report"
}

# Run a job's commands with joulestat on the simulated GPU.
run_job() {
	mkdir -p bin
	cat >bin/joulestat <<EOS
#!/bin/sh
exec env NVSIM_SCENARIO="$TOP/tests/sim/scenarios/gate.scn" JOULESTAT_NVML_LIB="$SIMLIB" \
    JOULESTAT_SYSFS_ROOT="$PWD/nosys" "$JOULESTAT" "\$@"
EOS
	printf '#!/bin/sh\nexec "%s" sleep 0.1s\n' "$JS_WORK" >bench
	chmod +x bin/joulestat bench
	mkdir -p nosys
	try env PATH="$PWD/bin:$PATH" "$@" bash "job$n.sh"
}

test_jobs_run() {
	n=1
	script_of 1
	: >summary.md
	run_job GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$PWD/summary.md"
	assert_rc 0
	assert_match summary.md '^### joulestat: '
	xmllint --noout --schema "$TOP/tests/junit/JUnit.xsd" energy.xml 2>x.err ||
	    fail "energy.xml: $(cat x.err)"
	promtool check metrics <energy.prom >p.out 2>&1 || fail "promtool: $(cat p.out)"
	"$CSVTOOL" check energy.csv >/dev/null || fail "energy.csv"
	rm -f energy.*
	n=2
	script_of 2
	run_job
	assert_rc 0
	for f in energy.json energy.xml energy.md; do
		[ -s $f ] || fail "the GitLab job left no $f"
	done
}

t_run "README CI jobs pass shellcheck" test_shellcheck
t_run "README CI jobs run on the simulated GPU" test_jobs_run
t_done
