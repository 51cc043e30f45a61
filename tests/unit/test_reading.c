/*
 * Unit tests of the tree's schedule in src/run/reading.c (HACKING.md,
 * "Trackers"): a tick walks the tree at most every READING_TREE_GAP_NS,
 * and when no device reads the members, every READING_TREE_GAP_NS per
 * hundred of them, whichever tracker walks it.  The tree is real: 150
 * sleeping children of the test, walked in /proc as the proc tracker does.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "joulestat/proctree.h"
#include "joulestat/reading.h"
#include "joulestat/run.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#define NKIDS	150

struct fixture {
	pid_t		kids[NKIDS];
	struct run	run;
	struct device	dev;
};

/* A backend whose sample reads nothing: the schedule is what is tested. */
static int
quiet_sample(struct device *devs, size_t ndev, const struct proctree *tree,
    struct sample *out, struct pid_usage_set *pids, struct errbuf *err)
{
	(void)devs, (void)ndev, (void)tree, (void)out, (void)pids, (void)err;
	return 0;
}

static const struct source_ops	reads_tree_ops = {
	.name = "test", .reads_tree = true, .sample = quiet_sample,
};

static int
setup(void **state)
{
	struct fixture	*fx = calloc(1, sizeof *fx);
	struct errbuf	 err = { "" };
	pid_t		 self = getpid();
	size_t		 i;

	assert_non_null(fx);
	for (i = 0; i < NKIDS; i++) {
		if ((fx->kids[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
		assert_true(fx->kids[i] > 0);
	}
	assert_int_equal(proctree_init(&fx->run.tree, "/proc", &self, 1, false, &err), 0);
	*state = fx;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;
	size_t		 i;

	for (i = 0; i < NKIDS; i++) {
		kill(fx->kids[i], SIGKILL);
		waitpid(fx->kids[i], NULL, 0);
	}
	proctree_free(&fx->run.tree);
	free(fx->run.backends);
	free(fx->run.pids.v);
	free(fx);
	return 0;
}

/* Give the run one device whose backend reads the tree's members. */
static void
add_member_reader(struct fixture *fx)
{
	struct backend	*b;

	fx->run.backends = b = xcalloc(1, sizeof *b);
	fx->run.nbackends = 1;
	b->ops = &reads_tree_ops;
	b->devs = &fx->dev;
	b->ndev = 1;
	b->cur = xcalloc(1, sizeof *b->cur);
	b->acct = xcalloc(1, sizeof *b->acct);
	b->span_ns = xcalloc(1, sizeof *b->span_ns);
}

static void
free_member_reader(struct fixture *fx)
{
	free(fx->run.backends[0].cur);
	free(fx->run.backends[0].acct);
	free(fx->run.backends[0].span_ns);
}

/*
 * After the first reading, a tick still_ms later does not walk the tree,
 * and one walk_ms later does.
 */
static void
assert_next_walk(struct fixture *fx, int64_t still_ms, int64_t walk_ms)
{
	int64_t	t0 = now_ns();

	reading_take(&fx->run, t0);
	assert_int_equal(fx->run.tree.nlive, NKIDS);
	reading_tick(&fx->run, t0 + still_ms * NSEC_PER_MSEC);
	assert_int_equal(fx->run.tree_walk_ns, t0);
	reading_tick(&fx->run, t0 + walk_ms * NSEC_PER_MSEC);
	assert_int_equal(fx->run.tree_walk_ns, t0 + walk_ms * NSEC_PER_MSEC);
}

/* No device reads the members: 150 of them are walked every 200 ms. */
static void
test_gap_grows_with_the_tree(void **state)
{
	struct fixture	*fx = *state;

	assert_next_walk(fx, 150, 210);
	assert_true(fx->run.tree.is_bare_ok);
}

/* A device that reads the members has them every 100 ms, whatever their number. */
static void
test_gap_for_a_member_reader(void **state)
{
	struct fixture	*fx = *state;

	add_member_reader(fx);
	assert_next_walk(fx, 50, 110);
	assert_false(fx->run.tree.is_bare_ok);
	free_member_reader(fx);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_setup_teardown(test_gap_grows_with_the_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gap_for_a_member_reader, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
