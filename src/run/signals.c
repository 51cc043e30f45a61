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

/*
 * Every catchable signal whose default action ends a process and that
 * another process sends (signal(7)), taken rather than left to kill
 * joulestat: the workload is not orphaned, the report and the clock
 * restore survive.  Faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
 * SIGABRT) are joulestat's own and keep their default action.
 */
static const int stop_signals[] = {
	SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGPROF, SIGVTALRM,
	SIGIO, SIGPWR, SIGSYS, SIGXCPU, SIGXFSZ, SIGSTKFLT,
};

void
signals_set(sigset_t *set)
{
	size_t	i;
	int	sig;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++)
		sigaddset(set, stop_signals[i]);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(set, sig);
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

	/* At least one look, so that a deadline already past still sees a pending signal. */
	for (;;) {
		left = deadline_ns - now_ns();
		/* Rounded up, so that the deadline has passed when poll times out. */
		if (poll(&pfd, 1, left > 0 ? (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC) :
		    0) > 0) {
			while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
				if (si.ssi_signo != SIGCHLD)
					return (int)si.ssi_signo;
			}
		}
		if (left <= 0)
			return 0;
	}
}
