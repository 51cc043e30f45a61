/*
 * timerfloor MS N: wake up N times every MS milliseconds (a timerfd in an
 * epoll set, as joulestat's loop waits) and do nothing else, then print
 *
 *	us_a_tick share_of_a_core
 *
 * by the kernel's own accounting (getrusage, which make bench also reads
 * for joulestat): the floor under any sampler's cost at that rate on this
 * machine.  For make bench.
 */
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/timerfd.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct itimerspec	it = { { 0, 0 }, { 0, 0 } };
	struct epoll_event	ev = { .events = EPOLLIN }, got;
	struct rusage		ru;
	uint64_t		expirations;
	double			cpu;
	long			ms, n, i;
	int			tfd, ep;

	if (argc != 3 || (ms = atol(argv[1])) <= 0 || (n = atol(argv[2])) <= 0) {
		fputs("usage: timerfloor MS N\n", stderr);
		return 2;
	}
	it.it_interval.tv_sec = it.it_value.tv_sec = ms / 1000;
	it.it_interval.tv_nsec = it.it_value.tv_nsec = ms % 1000 * 1000000;
	if ((tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) == -1 ||
	    (ep = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) == -1 ||
	    timerfd_settime(tfd, 0, &it, NULL) == -1) {
		perror("timerfloor");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (epoll_wait(ep, &got, 1, -1) == 1 &&
		    read(tfd, &expirations, sizeof expirations) == -1)
			perror("timerfloor: read");
	}
	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	printf("%.1f %.3f\n", 1e6 * cpu / (double)n, 100 * cpu / ((double)n * (double)ms / 1e3));
	return 0;
}
