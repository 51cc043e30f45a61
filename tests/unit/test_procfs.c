/*
 * Unit tests of the /proc parsers in src/proc/procfs.c (HACKING.md, "Tests"): stat lines
 * with spaces and parentheses in comm, lines copied from a real 6.x
 * kernel (a user process, init and kernel threads), truncated text,
 * numbers that do not fit, and non-numbers; status text with exact "kB"
 * units and several NSpid values; children pid lists.  On failure the
 * output struct must be left untouched.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/procfs.h"
#include "joulestat/util.h"

/* Copied from this machine: cat /proc/self/stat (kernel 6.18). */
static const char STAT_CAT[] =
    "8589 (cat) R 8587 8587 7989 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 50712 3133440 389 "
    "18446744073709551615 93850179842048 93850179861929 140727819646592 0 0 0 0 0 0 0 0 0 "
    "17 1 0 0 0 0 0 93850179877936 93850179879552 93850998272000 140727819651722 "
    "140727819651742 140727819651742 140727819653099 0\n";

/* /proc/1/stat: ppid 0, several threads, real CPU times. */
static const char STAT_INIT[] =
    "1 (process_api) S 0 0 0 0 -1 4194560 58327 392297 0 209 49 206 1079 417 20 0 13 0 21 "
    "44720128 3532 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 0 0 0 0 0 0 0 0 0 "
    "0 0 0 0 0\n";

/* Kernel threads: state I, negative nice, no memory, '/' and '-' in comm. */
static const char STAT_KTHREAD[] =
    "13 (kworker/R-mm_percpu_wq) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 0 -20 1 0 21 0 0 "
    "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
static const char STAT_KTHREADD[] =
    "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 21 0 0 18446744073709551615 "
    "0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

/* Copied from cat /proc/self/status; the long Mems_allowed line is real too. */
static const char STATUS_CAT[] =
    "Name:\tcat\nUmask:\t0022\nState:\tR (running)\nTgid:\t8593\nNgid:\t0\nPid:\t8593\n"
    "PPid:\t8587\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t256\n"
    "Groups:\t \nNStgid:\t8593\nNSpid:\t8593\nNSpgid:\t8587\nNSsid:\t7989\nKthread:\t0\n"
    "VmPeak:\t    3060 kB\nVmSize:\t    3060 kB\nVmLck:\t       0 kB\nVmPin:\t       0 kB\n"
    "VmHWM:\t    1756 kB\nVmRSS:\t    1712 kB\nRssAnon:\t     112 kB\nRssFile:\t    1644 kB\n"
    "RssShmem:\t       0 kB\nVmData:\t     360 kB\nVmStk:\t     132 kB\nVmExe:\t      20 kB\n"
    "VmLib:\t    1528 kB\nVmPTE:\t      52 kB\nVmSwap:\t       0 kB\n"
    "HugetlbPages:\t       0 kB\nCoreDumping:\t0\nTHP_enabled:\t1\n"
    "untag_mask:\t0xffffffffffffffff\nThreads:\t1\nSigQ:\t0/96365\n"
    "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n"
    "SigIgn:\t0000000000000000\nSigCgt:\t0000000000000000\nCapInh:\t0000000000000000\n"
    "CapPrm:\t000001fffeffffff\nCapEff:\t000001fffeffffff\nCapBnd:\t000001fffeffffff\n"
    "CapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n"
    "Speculation_Store_Bypass:\tvulnerable\nSpeculationIndirectBranch:\talways enabled\n"
    "Cpus_allowed:\t3\nCpus_allowed_list:\t0-1\n"
    "Mems_allowed:\t00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
    "00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
    "00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
    "00000000,00000000,00000000,00000000,00000000,00000000,00000001\n"
    "Mems_allowed_list:\t0\nvoluntary_ctxt_switches:\t0\nnonvoluntary_ctxt_switches:\t0\n";

/* The head of /proc/2/status: a kernel thread has no Vm* lines. */
static const char STATUS_KTHREADD[] =
    "Name:\tkthreadd\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t2\nNgid:\t0\nPid:\t2\n"
    "PPid:\t0\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t \n"
    "NStgid:\t2\nNSpid:\t2\nNSpgid:\t0\nNSsid:\t0\nKthread:\t1\nThreads:\t1\n"
    "SigQ:\t3/96365\nvoluntary_ctxt_switches:\t59\nnonvoluntary_ctxt_switches:\t0\n";

/* The tail of a stat line after the comm: fields 3 to 24 and a few more. */
static const char STAT_TAIL[] =
    "S 1 1 1 0 -1 4194304 10 0 0 0 11 12 0 0 20 0 3 0 5000 3133440 77 0 0\n";

static void
poison_stat(struct proc_stat *st)
{
	memset(st, 0xa5, sizeof *st);
}

static void
assert_stat_untouched(const struct proc_stat *st)
{
	struct proc_stat	ref;

	poison_stat(&ref);
	assert_memory_equal(st, &ref, sizeof ref);
}

/* Parse "PID (COMM) TAIL" built from parts; returns the parser's result. */
static int
parse_parts(const char *pid, const char *comm, const char *tail, struct proc_stat *st)
{
	char	line[1024];
	int	n;

	n = snprintf(line, sizeof line, "%s (%s) %s", pid, comm, tail);
	assert_true(n > 0 && (size_t)n < sizeof line);
	poison_stat(st);
	return procfs_parse_stat(line, st);
}

static void
test_stat_real_user_process(void **state)
{
	struct proc_stat	st;

	(void)state;
	poison_stat(&st);
	assert_int_equal(procfs_parse_stat(STAT_CAT, &st), 0);
	assert_int_equal(st.pid, 8589);
	assert_string_equal(st.comm, "cat");
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, 8587);
	assert_true(st.utime_ticks == 0 && st.stime_ticks == 0);
	assert_true(st.num_threads == 1);
	assert_true(st.starttime_ticks == 50712);
	assert_true(st.rss_pages == 389);

	poison_stat(&st);
	assert_int_equal(procfs_parse_stat(STAT_INIT, &st), 0);
	assert_int_equal(st.pid, 1);
	assert_string_equal(st.comm, "process_api");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.ppid, 0);
	assert_true(st.utime_ticks == 49);
	assert_true(st.stime_ticks == 206);
	assert_true(st.num_threads == 13);
	assert_true(st.starttime_ticks == 21);
	assert_true(st.rss_pages == 3532);
}

static void
test_stat_real_kernel_thread(void **state)
{
	struct proc_stat	st;

	(void)state;
	poison_stat(&st);
	assert_int_equal(procfs_parse_stat(STAT_KTHREAD, &st), 0);
	assert_int_equal(st.pid, 13);
	assert_string_equal(st.comm, "kworker/R-mm_percpu_wq");
	assert_int_equal(st.state, 'I');
	assert_int_equal(st.ppid, 2);
	assert_true(st.num_threads == 1);
	assert_true(st.starttime_ticks == 21);
	assert_true(st.rss_pages == 0);

	poison_stat(&st);
	assert_int_equal(procfs_parse_stat(STAT_KTHREADD, &st), 0);
	assert_int_equal(st.pid, 2);
	assert_string_equal(st.comm, "kthreadd");
	assert_int_equal(st.ppid, 0);
}

static void
test_stat_comm_with_parens_and_spaces(void **state)
{
	static const struct {
		const char	*comm;
	} cases[] = {
		{ "a) b (c)" },
		{ "a) b (c" },
		{ ") S 1 2 3" },
		{ "((((" },
		{ "))))" },
		{ " " },
		{ "" },
		{ "x\ny" },
		{ "tab\there" },
		{ "1 (2) 3" },
	};
	struct proc_stat	st;
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(parse_parts("1234", cases[i].comm, STAT_TAIL, &st), 0);
		assert_string_equal(st.comm, cases[i].comm);
		assert_int_equal(st.pid, 1234);
		assert_int_equal(st.state, 'S');
		assert_int_equal(st.ppid, 1);
		assert_true(st.utime_ticks == 11 && st.stime_ticks == 12);
		assert_true(st.num_threads == 3);
		assert_true(st.starttime_ticks == 5000);
		assert_true(st.rss_pages == 77);
	}
	/* The example from the brief, written out in full. */
	poison_stat(&st);
	assert_int_equal(procfs_parse_stat("1234 (a) b (c)) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 "
	    "1 0 99 0 5\n", &st), 0);
	assert_string_equal(st.comm, "a) b (c)");
	assert_true(st.starttime_ticks == 99 && st.rss_pages == 5);
}

static void
test_stat_long_comm_truncated(void **state)
{
	char			comm[200];
	struct proc_stat	st;

	(void)state;
	memset(comm, 'n', sizeof comm - 1);
	comm[sizeof comm - 1] = '\0';
	comm[100] = ')';
	assert_int_equal(parse_parts("77", comm, STAT_TAIL, &st), 0);
	assert_int_equal(strlen(st.comm), PROCFS_COMM_MAX - 1);
	assert_memory_equal(st.comm, comm, PROCFS_COMM_MAX - 1);
	assert_true(st.starttime_ticks == 5000);
}

/*
 * Every prefix that stops before field 24 has begun must be refused.  A
 * cut inside field 24 still reads as a shorter number and is not checked.
 */
static void
check_prefixes(const char *line)
{
	char			 buf[1024];
	const char		*p, *start24 = NULL;
	struct proc_stat	 st;
	size_t			 n;
	int			 field;

	p = strrchr(line, ')') + 1;
	for (field = 3; field <= 24; field++) {
		p++;
		start24 = p;
		p += strcspn(p, " \n");
	}
	assert_true((size_t)(p - line) < sizeof buf);
	for (n = 0; n <= (size_t)(start24 - line); n++) {
		memcpy(buf, line, n);
		buf[n] = '\0';
		poison_stat(&st);
		if (procfs_parse_stat(buf, &st) != -EINVAL)
			print_error("prefix of %zu bytes not refused: \"%s\"\n", n, buf);
		assert_int_equal(procfs_parse_stat(buf, &st), -EINVAL);
		assert_stat_untouched(&st);
	}
	/* Field 24 followed by the end of the text is enough. */
	n = (size_t)(p - line);
	memcpy(buf, line, n);
	buf[n] = '\0';
	assert_int_equal(procfs_parse_stat(buf, &st), 0);
}

static void
test_stat_truncated(void **state)
{
	(void)state;
	check_prefixes(STAT_CAT);
	check_prefixes(STAT_INIT);
	check_prefixes(STAT_KTHREAD);
	check_prefixes("1234 (a) b (c)) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 99 0 5\n");
}

static void
test_stat_huge_values(void **state)
{
	static const char *const pid_tails[][2] = {
		{ "2147483648", STAT_TAIL },			/* pid above INT_MAX */
		{ "18446744073709551616", STAT_TAIL },		/* pid above 2^64 */
		{ "1", "S 2147483648 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n" },
		{ "1", "S 1 1 1 0 -1 0 0 0 0 0 18446744073709551616 2 0 0 20 0 1 0 9 0 5\n" },
		{ "1", "S 1 1 1 0 -1 0 0 0 0 0 1 99999999999999999999 0 0 20 0 1 0 9 0 5\n" },
		{ "1", "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 18446744073709551616 0 9 0 5\n" },
		{ "1", "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 18446744073709551616 0 5\n" },
		{ "1", "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 18446744073709551616\n" },
	};
	struct proc_stat	st;
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(pid_tails); i++) {
		if (parse_parts(pid_tails[i][0], "x", pid_tails[i][1], &st) != -ERANGE)
			print_error("case %zu not -ERANGE\n", i);
		assert_int_equal(parse_parts(pid_tails[i][0], "x", pid_tails[i][1], &st), -ERANGE);
		assert_stat_untouched(&st);
	}
	/* The largest values that fit are taken as they are. */
	assert_int_equal(parse_parts("2147483647", "x",
	    "S 2147483647 1 1 0 -1 0 0 0 0 0 18446744073709551615 0 0 0 20 0 1 0 "
	    "18446744073709551615 0 18446744073709551615\n", &st), 0);
	assert_int_equal(st.pid, 2147483647);
	assert_int_equal(st.ppid, 2147483647);
	assert_true(st.utime_ticks == UINT64_MAX);
	assert_true(st.starttime_ticks == UINT64_MAX);
	assert_true(st.rss_pages == UINT64_MAX);
}

/*
 * procfs.h: "-ERANGE when a number does not fit".  A number of 32 digits
 * or more is still a number that does not fit, not malformed text.
 */
static void
test_stat_overlong_number_is_erange(void **state)
{
	struct proc_stat	st;

	(void)state;
	assert_int_equal(parse_parts("1", "x", "S 1 1 1 0 -1 0 0 0 0 0 "
	    "1234567890123456789012345678901234567890 2 0 0 20 0 1 0 9 0 5\n", &st), -ERANGE);
	assert_stat_untouched(&st);
}

static void
test_stat_not_numbers(void **state)
{
	static const char *const lines[] = {
		"",
		"\n",
		"()",
		"1234",
		"1234 cat S 1",
		"abc (x) " "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"-5 (x) " "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"+5 (x) " "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		" 5 (x) " "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5  (x) " "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5(x) " "S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5 (x)S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5 x) (y S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5 (x) SS 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5 (x) S -1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5 (x) S abc 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 5\n",
		"5 (x) S 1 1 1 0 -1 0 0 0 0 0 abc 2 0 0 20 0 1 0 9 0 5\n",
		"5 (x) S 1 1 1 0 -1 0 0 0 0 0 12a 2 0 0 20 0 1 0 9 0 5\n",
		"5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 -2 0 0 20 0 1 0 9 0 5\n",
		"5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 +1 0 9 0 5\n",
		"5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 1.5 0 5\n",
		"5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 0x5\n",
		"5 (x) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 9 0 -5\n",
	};
	struct proc_stat	st;
	size_t			i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		poison_stat(&st);
		if (procfs_parse_stat(lines[i], &st) != -EINVAL)
			print_error("not refused: \"%s\"\n", lines[i]);
		assert_int_equal(procfs_parse_stat(lines[i], &st), -EINVAL);
		assert_stat_untouched(&st);
	}
	/* pid 0 is not a process. */
	assert_int_equal(parse_parts("0", "x", STAT_TAIL, &st), -ERANGE);
}

static void
poison_status(struct proc_status *st)
{
	memset(st, 0xa5, sizeof *st);
}

static void
test_status_real(void **state)
{
	struct proc_status	st;

	(void)state;
	poison_status(&st);
	assert_int_equal(procfs_parse_status(STATUS_CAT, &st), 0);
	assert_true(st.vmhwm_kib == 1756);
	assert_true(st.vmrss_kib == 1712);
	assert_int_equal(st.nnspid, 1);
	assert_int_equal(st.nspid[0], 8593);
	assert_int_equal(st.tgid, 8593);
	/* A thread's own status names the process it belongs to. */
	assert_int_equal(procfs_parse_status("Name:\tpython3\nTgid:\t1449\nPid:\t1558\n", &st), 0);
	assert_int_equal(st.tgid, 1449);
	assert_int_equal(procfs_parse_status("Tgid:\tx\n", &st), -EINVAL);

	/* A kernel thread: no Vm* lines reads as 0. */
	poison_status(&st);
	assert_int_equal(procfs_parse_status(STATUS_KTHREADD, &st), 0);
	assert_true(st.vmhwm_kib == 0 && st.vmrss_kib == 0);
	assert_int_equal(st.nnspid, 1);
	assert_int_equal(st.nspid[0], 2);
}

static void
test_status_nspid_several(void **state)
{
	struct proc_status	st;

	(void)state;
	poison_status(&st);
	assert_int_equal(procfs_parse_status("Name:\tsh\nNSpid:\t48211\t310\t1\n"
	    "VmRSS:\t 4 kB\n", &st), 0);
	assert_int_equal(st.nnspid, 3);
	assert_int_equal(st.nspid[0], 48211);
	assert_int_equal(st.nspid[1], 310);
	assert_int_equal(st.nspid[2], 1);
	assert_true(st.vmrss_kib == 4);

	/* As many levels as fit, and no trailing newline at the end of the text. */
	assert_int_equal(procfs_parse_status("NSpid:\t8\t7\t6\t5\t4\t3\t2\t1", &st), 0);
	assert_int_equal(st.nnspid, PROCFS_NSPID_MAX);
	assert_int_equal(st.nspid[0], 8);
	assert_int_equal(st.nspid[7], 1);

	/* One more level than fits, an empty list, and bad pids. */
	assert_int_equal(procfs_parse_status("NSpid:\t9\t8\t7\t6\t5\t4\t3\t2\t1\n", &st),
	    -ERANGE);
	assert_int_equal(procfs_parse_status("NSpid:\t\n", &st), -EINVAL);
	assert_int_equal(procfs_parse_status("NSpid:\n", &st), -EINVAL);
	assert_int_equal(procfs_parse_status("NSpid:\t12\tabc\n", &st), -EINVAL);
	assert_int_equal(procfs_parse_status("NSpid:\t12\t-1\n", &st), -EINVAL);
	assert_int_equal(procfs_parse_status("NSpid:\t12\t0\n", &st), -ERANGE);
	assert_int_equal(procfs_parse_status("NSpid:\t12,13\n", &st), -EINVAL);
	assert_int_equal(procfs_parse_status("NSpid:\t4294967297\n", &st), -ERANGE);
}

static void
test_status_kb_units(void **state)
{
	static const char *const bad[] = {
		"VmHWM:\t    1756 KB\n",
		"VmHWM:\t    1756 kb\n",
		"VmHWM:\t    1756 MB\n",
		"VmHWM:\t    1756 KiB\n",
		"VmHWM:\t    1756\n",
		"VmHWM:\t    1756kB\n",
		"VmHWM:\t    1756\tkB\n",
		"VmHWM:\t    1756 kB \n",
		"VmHWM:\t    1756 kBx\n",
		"VmHWM:\t    kB\n",
		"VmHWM:\t\n",
		"VmRSS:\t    -5 kB\n",
		"VmRSS:\t    +5 kB\n",
		"VmRSS:\t    1.5 kB\n",
		"VmRSS:\t    12x kB\n",
		"VmRSS:\t    0x10 kB\n",
	};
	struct proc_status	st;
	size_t			i;

	(void)state;
	assert_int_equal(procfs_parse_status("VmHWM:\t    1756 kB\nVmRSS:\t1 kB\n", &st), 0);
	assert_true(st.vmhwm_kib == 1756 && st.vmrss_kib == 1);
	assert_int_equal(procfs_parse_status("VmRSS: 18446744073709551615 kB", &st), 0);
	assert_true(st.vmrss_kib == UINT64_MAX);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (procfs_parse_status(bad[i], &st) != -EINVAL)
			print_error("not refused: \"%s\"\n", bad[i]);
		assert_int_equal(procfs_parse_status(bad[i], &st), -EINVAL);
	}
	assert_int_equal(procfs_parse_status("VmRSS:\t18446744073709551616 kB\n", &st),
	    -ERANGE);
}

static void
test_status_missing_and_unknown_keys(void **state)
{
	struct proc_status	st;
	char			text[1024];

	(void)state;
	poison_status(&st);
	assert_int_equal(procfs_parse_status("", &st), 0);
	assert_true(st.vmhwm_kib == 0 && st.vmrss_kib == 0 && st.nnspid == 0);

	/* Unknown keys, look-alike keys and lines without a colon are ignored. */
	poison_status(&st);
	assert_int_equal(procfs_parse_status("Name:\tx\nVmPeak:\tgarbage\nVmHWMx:\tnope\n"
	    "VmHW:\t1 MB\nvmrss:\tx\nNSpids:\tz\nno colon here\n\n", &st), 0);
	assert_true(st.vmhwm_kib == 0 && st.vmrss_kib == 0 && st.nnspid == 0);

	/* A known key after an over-long unknown line is still found. */
	memset(text, 'z', 500);
	memcpy(text, "Mems_allowed:\t", 14);
	strcpy(text + 500, "\nVmRSS:\t   42 kB\nNSpid:\t5\t1\n");
	assert_int_equal(procfs_parse_status(text, &st), 0);
	assert_true(st.vmrss_kib == 42);
	assert_int_equal(st.nnspid, 2);
}

struct pids {
	pid_t	v[16];
	size_t	n;
};

static void
collect(pid_t pid, void *arg)
{
	struct pids	*p = arg;

	if (p->n < ARRAY_SIZE(p->v))
		p->v[p->n] = pid;
	p->n++;
}

static void
test_pid_list(void **state)
{
	struct pids	p;

	(void)state;
	/* As the kernel writes it: a space after each pid and no newline. */
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_list("17440 17441 17442 ", collect, &p), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.v[0], 17440);
	assert_int_equal(p.v[1], 17441);
	assert_int_equal(p.v[2], 17442);

	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_list("1\n2147483647\n", collect, &p), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.v[1], 2147483647);
}

static void
test_pid_list_empty(void **state)
{
	static const char *const empty[] = { "", " ", "\n", "  \n  " };
	struct pids	p;
	size_t		i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(empty); i++) {
		memset(&p, 0, sizeof p);
		assert_int_equal(procfs_parse_pid_list(empty[i], collect, &p), 0);
		assert_int_equal(p.n, 0);
	}
}

static void
test_pid_list_garbage(void **state)
{
	static const char *const bad[] = {
		"x", "0", "-1", "+1", "12abc", "1\t2", "1,2", "2147483648",
		"18446744073709551616", "1234567890123456789012345678901234567890",
	};
	struct pids	p;
	size_t		i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&p, 0, sizeof p);
		if (procfs_parse_pid_list(bad[i], collect, &p) != -EINVAL)
			print_error("not refused: \"%s\"\n", bad[i]);
		assert_int_equal(procfs_parse_pid_list(bad[i], collect, &p), -EINVAL);
	}
	/* It stops at the first bad token, after the good ones before it. */
	memset(&p, 0, sizeof p);
	assert_int_equal(procfs_parse_pid_list("5 6 x 7", collect, &p), -EINVAL);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.v[0], 5);
	assert_int_equal(p.v[1], 6);
}

/* /proc/loadavg as proc_loadavg(5) shows it; the last field is the newest pid. */
static void
test_last_pid(void **state)
{
	pid_t	pid = -7;
	char	text[128];
	FILE	*f;

	(void)state;
	assert_int_equal(procfs_parse_last_pid("0.20 0.18 0.12 1/80 11206\n", &pid), 0);
	assert_int_equal(pid, 11206);
	assert_int_equal(procfs_parse_last_pid("12.51 9.03 4.17 7/1532 4194303\n", &pid), 0);
	assert_int_equal(pid, 4194303);
	pid = -7;
	assert_int_equal(procfs_parse_last_pid("0.20 0.18 0.12 1/80\n", &pid), -1);
	assert_int_equal(procfs_parse_last_pid("0.20 0.18 0.12 1/80 \n", &pid), -1);
	assert_int_equal(procfs_parse_last_pid("0.20 0.18 0.12 1/80 12x\n", &pid), -1);
	assert_int_equal(procfs_parse_last_pid("0.20 0.18 0.12 1/80 99999999999\n", &pid), -1);
	assert_int_equal(procfs_parse_last_pid("", &pid), -1);
	assert_int_equal(pid, -7);
	/* This machine's own file: the newest pid is at least ours. */
	f = fopen("/proc/loadavg", "r");
	assert_non_null(f);
	assert_non_null(fgets(text, sizeof text, f));
	fclose(f);
	assert_int_equal(procfs_parse_last_pid(text, &pid), 0);
	assert_true(pid > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat_real_user_process),
		cmocka_unit_test(test_stat_real_kernel_thread),
		cmocka_unit_test(test_stat_comm_with_parens_and_spaces),
		cmocka_unit_test(test_stat_long_comm_truncated),
		cmocka_unit_test(test_stat_truncated),
		cmocka_unit_test(test_stat_huge_values),
		cmocka_unit_test(test_stat_overlong_number_is_erange),
		cmocka_unit_test(test_stat_not_numbers),
		cmocka_unit_test(test_status_real),
		cmocka_unit_test(test_status_nspid_several),
		cmocka_unit_test(test_status_kb_units),
		cmocka_unit_test(test_status_missing_and_unknown_keys),
		cmocka_unit_test(test_pid_list),
		cmocka_unit_test(test_pid_list_empty),
		cmocka_unit_test(test_pid_list_garbage),
		cmocka_unit_test(test_last_pid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
