/*
 * The signalfd, and the one wait for "a deadline or a stopping signal"
 * (include/joulestat/signals.h).
 */
#include "joulestat/signals.h"

#include <sys/signalfd.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

void
signals_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	/* Taken too rather than left to kill joulestat: the report and the clock restore survive. */
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
	sigaddset(set, SIGALRM);
}

int
signals_take(struct sigstate *ss, struct errbuf *err)
{
	struct sigaction	ign = { .sa_handler = SIG_IGN };
	sigset_t		set;

	signals_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, &ss->old_mask) == -1 ||
	    (ss->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) == -1) {
		errbuf_set(err, "signalfd: %s", strerror(errno));
		return -1;
	}
	/* A closed report pipe must not kill us before the workload's status is out. */
	sigaction(SIGPIPE, &ign, &ss->old_pipe);
	return 0;
}

int
wait_for_signal(int sigfd, int64_t deadline_ns)
{
	struct pollfd		pfd = { .fd = sigfd, .events = POLLIN };
	struct signalfd_siginfo	si;
	int64_t			left;

	while ((left = deadline_ns - now_ns()) > 0) {
		/* Rounded up, so that the deadline has passed when poll times out. */
		if (poll(&pfd, 1, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC)) <= 0)
			continue;
		while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
			if (si.ssi_signo != SIGCHLD)
				return (int)si.ssi_signo;
		}
	}
	return 0;
}
