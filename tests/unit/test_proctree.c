/*
 * Unit tests of the cgroup tracker's members in src/proc/proctree_walk.c
 * (HACKING.md, "The process tree"): while no device reads the members
 * (is_bare_ok), a new one is recorded by its pid and pidfd alone, and it
 * is read in full (start time, name, state) once a refresh wants it so or
 * its name is asked for.  The cgroup's list is a plain file here, written
 * by the test, of real processes it forks: cgroup.procs is read the same
 * way, and no cgroup v2 is needed.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "joulestat/cgroup.h"
#include "joulestat/procfs.h"
#include "joulestat/proctree.h"
#include "joulestat/util.h"

struct fixture {
	pid_t		 kids[2];
	char		 list[64];	/* the stand-in for cgroup.procs */
	struct cgroup	 cg;
	struct proctree	 tree;
};

/* A child named name that sleeps until killed. */
static pid_t
sleeper(const char *name)
{
	pid_t	pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		pause();
		_exit(0);
	}
	return pid;
}

/* Write the members' list: the pids of kids[0..n). */
static void
write_list(struct fixture *fx, size_t n)
{
	FILE	*f = fopen(fx->list, "w");
	size_t	 i;

	assert_non_null(f);
	for (i = 0; i < n; i++)
		fprintf(f, "%d\n", (int)fx->kids[i]);
	fclose(f);
}

/* The start time of pid, read here, as the tree should have it. */
static uint64_t
starttime_of(pid_t pid)
{
	char			path[64], text[4096];
	struct proc_stat	st;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	assert_true(read_file(AT_FDCWD, path, text, sizeof text) > 0);
	assert_int_equal(procfs_parse_stat(text, &st), 0);
	return st.starttime_ticks;
}

/* The child's name has been set once /proc says so. */
static void
wait_named(pid_t pid, const char *name)
{
	char	path[64], text[64];
	int	i;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	for (i = 0; i < 1000; i++) {
		if (read_file(AT_FDCWD, path, text, sizeof text) > 0 &&
		    strncmp(text, name, strlen(name)) == 0)
			return;
		usleep(1000);
	}
	fail_msg("child %d never took the name %s", (int)pid, name);
}

/* Bare members need pidfds (Linux 5.3; a seccomp filter can refuse them). */
static bool
has_pidfds(void)
{
	int	fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int
setup(void **state)
{
	struct fixture	*fx = calloc(1, sizeof *fx);
	struct errbuf	 err = { "" };
	pid_t		 self = getpid();
	int		 fd;

	assert_non_null(fx);
	*state = fx;
	if (!has_pidfds())
		return 0;
	fx->kids[0] = sleeper("js-bare-a");
	fx->kids[1] = sleeper("js-bare-b");
	wait_named(fx->kids[0], "js-bare-a");
	wait_named(fx->kids[1], "js-bare-b");
	snprintf(fx->list, sizeof fx->list, "/tmp/js-procs-XXXXXX");
	assert_true((fd = mkstemp(fx->list)) >= 0);
	close(fd);
	write_list(fx, 2);
	fx->cg.parentfd = fx->cg.dirfd = fx->cg.events_fd = fx->cg.cpu_fd = -1;
	fx->cg.peak_fd = -1;
	fx->cg.procs_fd = open(fx->list, O_RDONLY | O_CLOEXEC);
	assert_true(fx->cg.procs_fd >= 0);
	assert_int_equal(proctree_init(&fx->tree, "/proc", &self, 1, false, &err), 0);
	assert_int_equal(proctree_use_cgroup(&fx->tree, &fx->cg, &err), 0);
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;
	size_t		 i;

	if (fx->kids[0] == 0) {
		free(fx);
		return 0;
	}
	for (i = 0; i < 2; i++) {
		kill(fx->kids[i], SIGKILL);
		waitpid(fx->kids[i], NULL, 0);
	}
	proctree_free(&fx->tree);
	close(fx->cg.procs_fd);
	free(fx->cg.buf);
	unlink(fx->list);
	free(fx);
	return 0;
}

/* The fixture, or the test skipped where setup found no pidfds. */
static struct fixture *
fixture_of(void **state)
{
	struct fixture	*fx = *state;

	if (fx->kids[0] == 0)
		skip();
	return fx;
}

/* While no device reads them: pid and pidfd alone, nothing read from /proc. */
static void
test_bare_members(void **state)
{
	struct fixture		*fx = fixture_of(state);
	const struct proc	*p;
	size_t			 i;

	fx->tree.is_bare_ok = true;
	assert_int_equal(proctree_refresh(&fx->tree, 1000), 2);
	assert_true(fx->tree.has_running);
	for (i = 0; i < 2; i++) {
		assert_non_null(p = proctree_find_live(&fx->tree, fx->kids[i]));
		assert_true(p->is_bare);
		assert_true(p->pidfd >= 0);
		assert_string_equal(p->comm, "");
		assert_int_equal(p->starttime_ticks, 0);
	}
	/* The same members at the next refresh: the same records, none new. */
	assert_int_equal(proctree_refresh(&fx->tree, 2000), 2);
	assert_int_equal(fx->tree.nproc, 2);
}

/* A refresh that wants them in full reads the bare members it keeps. */
static void
test_bare_read_when_wanted(void **state)
{
	struct fixture		*fx = fixture_of(state);
	const struct proc	*p;

	fx->tree.is_bare_ok = true;
	proctree_refresh(&fx->tree, 1000);
	fx->tree.is_bare_ok = false;
	assert_int_equal(proctree_refresh(&fx->tree, 2000), 2);
	assert_int_equal(fx->tree.nproc, 2);
	assert_non_null(p = proctree_find_live(&fx->tree, fx->kids[0]));
	assert_false(p->is_bare);
	assert_string_equal(p->comm, "js-bare-a");
	assert_int_equal(p->starttime_ticks, starttime_of(fx->kids[0]));
	assert_int_equal(p->state, 'S');
	assert_non_null(p = proctree_find_live(&fx->tree, fx->kids[1]));
	assert_string_equal(p->comm, "js-bare-b");
	assert_int_equal(p->starttime_ticks, starttime_of(fx->kids[1]));
}

/* Asking for a bare member's name reads its identity too. */
static void
test_bare_named(void **state)
{
	struct fixture		*fx = fixture_of(state);
	const struct proc	*p;

	fx->tree.is_bare_ok = true;
	proctree_refresh(&fx->tree, 1000);
	proctree_fresh_name(&fx->tree, fx->kids[1], 1500, 0);
	assert_non_null(p = proctree_find_live(&fx->tree, fx->kids[1]));
	assert_false(p->is_bare);
	assert_string_equal(p->comm, "js-bare-b");
	assert_int_equal(p->starttime_ticks, starttime_of(fx->kids[1]));
	assert_non_null(p = proctree_find_live(&fx->tree, fx->kids[0]));
	assert_true(p->is_bare);
}

/* A bare member that ended leaves the live set, and stays counted. */
static void
test_bare_member_ends(void **state)
{
	struct fixture	*fx = fixture_of(state);

	fx->tree.is_bare_ok = true;
	proctree_refresh(&fx->tree, 1000);
	kill(fx->kids[1], SIGKILL);
	waitpid(fx->kids[1], NULL, 0);
	write_list(fx, 1);
	assert_int_equal(proctree_refresh(&fx->tree, 2000), 1);
	assert_null(proctree_find_live(&fx->tree, fx->kids[1]));
	assert_non_null(proctree_find(&fx->tree, fx->kids[1]));
	assert_int_equal(fx->tree.nproc, 2);
	assert_int_equal(fx->tree.max_concurrent, 2);
}

/*
 * The first refresh of a fresh cgroup holding only the launched child:
 * recorded bare from the pid and pidfd clone3 gave.  A process started
 * after it (its pid newer) is read from the list at the next refresh.
 */
static void
test_start_launched(void **state)
{
	struct fixture		*fx = fixture_of(state);
	const struct proc	*p;
	int			 pidfd = (int)syscall(SYS_pidfd_open, fx->kids[0], 0);

	assert_true(pidfd >= 0);
	fx->tree.is_bare_ok = true;
	assert_true(proctree_start_launched(&fx->tree, fx->kids[0], pidfd, 1000));
	assert_int_equal(fx->tree.nlive, 1);
	assert_non_null(p = proctree_find_live(&fx->tree, fx->kids[0]));
	assert_true(p->is_bare);
	assert_int_equal(p->pidfd, pidfd);
	assert_int_equal(fx->tree.max_concurrent, 1);
	assert_true(fx->tree.has_running);
	assert_int_equal(proctree_refresh(&fx->tree, 2000), 2);
	assert_non_null(proctree_find_live(&fx->tree, fx->kids[1]));
	assert_int_equal(fx->tree.nproc, 2);
	/* The launched child ends: its pidfd says so, and it stays counted. */
	kill(fx->kids[0], SIGKILL);
	waitpid(fx->kids[0], NULL, 0);
	fx->kids[0] = fx->kids[1];
	write_list(fx, 1);
	assert_int_equal(proctree_refresh(&fx->tree, 3000), 1);
	assert_int_equal(fx->tree.nproc, 2);
}

/* Where members are read in full, or the tree was refreshed, a normal refresh must be made. */
static void
test_start_launched_refused(void **state)
{
	struct fixture	*fx = fixture_of(state);
	int		 pidfd = (int)syscall(SYS_pidfd_open, fx->kids[0], 0);

	assert_true(pidfd >= 0);
	fx->tree.is_bare_ok = false;
	assert_false(proctree_start_launched(&fx->tree, fx->kids[0], pidfd, 1000));
	assert_int_equal(fx->tree.nproc, 0);
	fx->tree.is_bare_ok = true;
	proctree_refresh(&fx->tree, 1000);
	assert_false(proctree_start_launched(&fx->tree, fx->kids[0], pidfd, 2000));
	assert_true(fcntl(pidfd, F_GETFD) != -1);	/* still the caller's */
	close(pidfd);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_setup_teardown(test_bare_members, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bare_read_when_wanted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bare_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bare_member_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_launched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_launched_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
