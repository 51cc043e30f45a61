/*
 * Unit tests of the cgroup v2 parsers in src/proc/cgroup.c (HACKING.md,
 * "Tests"): flat keyed files (cpu.stat, cgroup.events) as a 6.18 kernel
 * writes them, the mount table of a hybrid machine (cgroup v2 at
 * /sys/fs/cgroup/unified beside the v1 controllers) and of a unified one,
 * and /proc/self/cgroup with and without a v2 line.  Values absent or not
 * numbers are errors, never 0.  A run's cgroup name gives its joulestat's
 * pid, and nothing else is taken for one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "joulestat/cgroup.h"

/* Copied from this machine: cat /sys/fs/cgroup/unified/cpu.stat (kernel 6.18). */
static const char CPU_STAT[] =
    "usage_usec 8091588649\n"
    "user_usec 5363653286\n"
    "system_usec 2727935362\n"
    "nice_usec 4000\n";

/* cgroup.events of a cgroup whose last process has ended. */
static const char EVENTS_EMPTY[] = "populated 0\nfrozen 0\n";

/* A hybrid hierarchy (this machine's lines): v1 controllers, v2 at .../unified. */
static const char MOUNTINFO_HYBRID[] =
    "23 1 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

/* A unified system (systemd's default): optional fields before " - ". */
static const char MOUNTINFO_UNIFIED[] =
    "25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "33 25 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 "
    "cgroup2 rw,nsdelegate,memory_recursiveprot\n";

/* A v1-only system: no cgroup2 line. */
static const char MOUNTINFO_V1[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n";

/* /proc/self/cgroup of this machine, and of a systemd user scope. */
static const char SELF_HYBRID[] =
    "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/ac63\n1:cpu:/\n0::/\n";
static const char SELF_SCOPE[] =
    "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope\n";

static void
test_keyed_cpu_stat(void **state)
{
	uint64_t	v = 7;

	(void)state;
	assert_int_equal(cgroup_parse_keyed(CPU_STAT, "user_usec", &v), 0);
	assert_true(v == 5363653286ULL);
	assert_int_equal(cgroup_parse_keyed(CPU_STAT, "system_usec", &v), 0);
	assert_true(v == 2727935362ULL);
	assert_int_equal(cgroup_parse_keyed(CPU_STAT, "usage_usec", &v), 0);
	assert_true(v == 8091588649ULL);
}

/* "usage" is a prefix of "usage_usec": only a whole key matches. */
static void
test_keyed_whole_key(void **state)
{
	uint64_t	v = 7;

	(void)state;
	assert_int_equal(cgroup_parse_keyed(CPU_STAT, "usage", &v), -ENOENT);
	assert_int_equal(cgroup_parse_keyed(CPU_STAT, "sec", &v), -ENOENT);
	assert_true(v == 7);
}

static void
test_keyed_events(void **state)
{
	uint64_t	v = 7;

	(void)state;
	assert_int_equal(cgroup_parse_keyed(EVENTS_EMPTY, "populated", &v), 0);
	assert_true(v == 0);
	assert_int_equal(cgroup_parse_keyed("populated 1\nfrozen 0\n", "populated", &v), 0);
	assert_true(v == 1);
}

static void
test_keyed_bad(void **state)
{
	uint64_t	v = 7;

	(void)state;
	assert_int_equal(cgroup_parse_keyed("", "populated", &v), -ENOENT);
	assert_int_equal(cgroup_parse_keyed("populated \n", "populated", &v), -EINVAL);
	assert_int_equal(cgroup_parse_keyed("populated x\n", "populated", &v), -EINVAL);
	assert_int_equal(cgroup_parse_keyed("populated -1\n", "populated", &v), -EINVAL);
	assert_int_equal(cgroup_parse_keyed("populated 99999999999999999999999\n", "populated",
	    &v), -EINVAL);
	/* No newline at the end: still read. */
	assert_int_equal(cgroup_parse_keyed("frozen 0\npopulated 1", "populated", &v), 0);
	assert_true(v == 1);
}

static void
test_mountinfo(void **state)
{
	char	buf[64];

	(void)state;
	assert_int_equal(cgroup_parse_mountinfo(MOUNTINFO_HYBRID, buf, sizeof buf), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/unified");
	assert_int_equal(cgroup_parse_mountinfo(MOUNTINFO_UNIFIED, buf, sizeof buf), 0);
	assert_string_equal(buf, "/sys/fs/cgroup");
	assert_int_equal(cgroup_parse_mountinfo(MOUNTINFO_V1, buf, sizeof buf), -ENOENT);
	assert_int_equal(cgroup_parse_mountinfo("", buf, sizeof buf), -ENOENT);
	/* A mount point longer than the buffer is not cut short. */
	assert_int_equal(cgroup_parse_mountinfo(MOUNTINFO_HYBRID, buf, 8), -ENOENT);
}

static void
test_self(void **state)
{
	char	buf[128];

	(void)state;
	assert_int_equal(cgroup_parse_self(SELF_HYBRID, buf, sizeof buf), 0);
	assert_string_equal(buf, "/");
	assert_int_equal(cgroup_parse_self(SELF_SCOPE, buf, sizeof buf), 0);
	assert_string_equal(buf,
	    "/user.slice/user-1000.slice/user@1000.service/app.slice/run-r1.scope");
	assert_int_equal(cgroup_parse_self("4:memory:/a\n1:cpu:/\n", buf, sizeof buf), -ENOENT);
	assert_int_equal(cgroup_parse_self(SELF_SCOPE, buf, 10), -ENOENT);
}

static void
test_name(void **state)
{
	static const char *const	bad[] = {
		"joulestat-", "joulestat--0", "joulestat-12", "joulestat-12-", "joulestat-12-x",
		"joulestat-x-0", "joulestat-0-0", "joulestat-+12-0", "joulestat-12-0 ",
		"joulestat-4294967308-0", "joulestat-99999999999999999999-0", "joulestat",
		"system.slice", "Joulestat-12-0", "xjoulestat-12-0", "cgroup.procs",
	};
	pid_t				pid = 7;
	size_t				i;

	(void)state;
	assert_int_equal(cgroup_parse_name("joulestat-4242-0", &pid), 0);
	assert_int_equal(pid, 4242);
	assert_int_equal(cgroup_parse_name("joulestat-1-17", &pid), 0);
	assert_int_equal(pid, 1);
	assert_int_equal(cgroup_parse_name("joulestat-2147483647-100", &pid), 0);
	assert_int_equal(pid, 2147483647);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pid = 7;
		if (cgroup_parse_name(bad[i], &pid) != -EINVAL || pid != 7)
			fail_msg("'%s' taken for a run's cgroup", bad[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyed_cpu_stat),
		cmocka_unit_test(test_keyed_whole_key),
		cmocka_unit_test(test_keyed_events),
		cmocka_unit_test(test_keyed_bad),
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
