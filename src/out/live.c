/*
 * Progress while the workload runs (joulestat(1), PROGRESS).  -I MS: one
 * line per device every MS, like perf stat -I, at the first reading of
 * each period, with the reading's own time since the start of the run.
 * On a terminal, unless -q: one status line, rewritten in place with a
 * carriage return and padded with blanks (no escape sequences, so a dumb
 * terminal shows it too), cut to the terminal's width so that it never
 * wraps, and erased before any other line is printed.  Figures come from
 * the accounting as it stands; what is not known is said, never 0.
 */
#include "joulestat/live.h"

#include <sys/ioctl.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/account.h"
#include "joulestat/schema.h"
#include "joulestat/text.h"
#include "joulestat/util.h"

/* A line being built; what does not fit is cut. */
struct line {
	char	buf[512];
	size_t	len;
};

static void
add(struct line *l, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (l->len >= sizeof l->buf - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n < sizeof l->buf - l->len ? (size_t)n : sizeof l->buf - 1 - l->len;
}

void
live_init(struct live *lv, int fd, unsigned every_ms, bool is_status, unsigned runs)
{
	memset(lv, 0, sizeof *lv);
	lv->fd = fd;
	lv->every_ns = (int64_t)every_ms * NSEC_PER_MSEC;
	lv->is_status = is_status;
	lv->runs = runs;
}

bool
live_is_on(const struct live *lv)
{
	return lv->every_ns > 0 || lv->is_status;
}

/* "run 2/5 " with -r, "warm-up " before the measured runs, else nothing. */
static void
add_run(struct line *l, const struct live *lv, const struct run *run)
{
	if (run->index == 0)
		add(l, "warm-up ");
	else if (lv->runs > 1)
		add(l, "run %u/%u ", run->index, lv->runs);
}

void
live_clear(struct live *lv)
{
	char	blank[512];
	size_t	n = lv->shown < sizeof blank - 2 ? lv->shown : sizeof blank - 2;

	if (lv->shown == 0)
		return;
	blank[0] = '\r';
	memset(blank + 1, ' ', n);
	blank[n + 1] = '\r';
	(void)write_all(lv->fd, blank, n + 2);
	lv->shown = 0;
}

/* The terminal's width, 80 when it does not say. */
static size_t
columns(int fd)
{
	struct winsize	ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* The workload's share of the device's load, as the last per-process data gave it. */
static void
add_load(struct line *l, const struct device *dev, const struct dev_acct *a)
{
	if (dev->is_use_unseen)
		add(l, ", workload load unknown (/dev/kfd)");
	else if (account_share_known(a, dev)) {
		add(l, ", workload SM %.0f%% mem %.0f%%", a->last_tree_sm_pct,
		    a->last_tree_mem_pct);
		if (!a->is_other_unknown)
			add(l, ", others SM %.0f%% mem %.0f%%", a->last_other_sm_pct,
			    a->last_other_mem_pct);
	} else if ((dev->measures & M_PID_UTIL) && !dev->is_pid_hidden)
		add(l, ", workload load not known yet");
	else
		add(l, ", no per-process data");
}

/* One -I line: the device's reading s and its accounting a so far. */
static void
print_device(struct live *lv, const struct run *run, const struct device *dev,
    const struct sample *s, const struct dev_acct *a)
{
	struct line		l = { .len = 0 };
	enum energy_method	m;
	double			e = account_energy_mj(a, &m);
	char			state[32];

	add(&l, "%s: ", PROGNAME);
	add_run(&l, lv, run);
	add(&l, "%8.3f s device %u", (double)(s->t_ns - run->t0_ns) / 1e9, dev->number);
	if (dev->name[0] != '\0')
		add(&l, " (%s)", dev->name);
	if (s->is_lost)
		add(&l, ": no answer");
	else if (s->valid & M_POWER)
		add(&l, ": %.1f W", s->power_mw / 1e3);
	else
		add(&l, ": power unknown");
	if (m != ENERGY_NONE && account_energy_is_held(a, m))
		add(&l, ", %.3f J before reads failed (%s)", e / 1e3, text_method_name(m));
	else if (m != ENERGY_NONE)
		add(&l, ", %.3f J so far (%s)", e / 1e3, text_method_name(m));
	else
		add(&l, ", energy unknown");
	if (!s->is_lost && (s->valid & M_PSTATE) && s->pstate != PSTATE_UNKNOWN)
		add(&l, ", %s", schema_state_name(dev, s->pstate, state, sizeof state));
	else if (dev->measures & M_PSTATE)
		add(&l, ", state unknown");
	add_load(&l, dev, a);
	add(&l, "\n");
	(void)write_all(lv->fd, l.buf, l.len);
}

/* -I: the devices of b whose period has come since their last line. */
static void
print_due(struct live *lv, const struct run *run, const struct backend *b, size_t dev_base)
{
	uint64_t	k;
	size_t		i;

	if (lv->run_t0_ns != run->t0_ns) {
		lv->run_t0_ns = run->t0_ns;
		if (lv->nperiod > 0)
			memset(lv->period, 0, lv->nperiod * sizeof *lv->period);
	}
	if (dev_base + b->ndev > lv->nperiod) {
		lv->period = xreallocarray(lv->period, dev_base + b->ndev, sizeof *lv->period);
		memset(lv->period + lv->nperiod, 0,
		    (dev_base + b->ndev - lv->nperiod) * sizeof *lv->period);
		lv->nperiod = dev_base + b->ndev;
	}
	for (i = 0; i < b->ndev; i++) {
		k = (uint64_t)((b->cur[i].t_ns - run->t0_ns) / lv->every_ns);
		if (k <= lv->period[dev_base + i])
			continue;
		lv->period[dev_base + i] = k;
		live_clear(lv);		/* drawn again below the lines */
		print_device(lv, run, &b->devs[i], &b->cur[i], &b->acct[i]);
	}
}

/* The status line: elapsed time, the run, the energy of every device so far. */
static void
draw_status(struct live *lv, const struct run *run, int64_t t_ns)
{
	struct line		 l = { .len = 0 };
	const struct backend	*b;
	enum energy_method	 m;
	double			 e, sum = 0;
	size_t			 i, k, ndev = 0, nknown = 0, width = columns(lv->fd) - 1;

	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		for (k = 0; k < b->ndev; k++) {
			e = account_energy_mj(&b->acct[k], &m);
			ndev++;
			if (m != ENERGY_NONE) {
				sum += e;
				nknown++;
			}
		}
	}
	add(&l, "\r%s: ", PROGNAME);
	add_run(&l, lv, run);
	add(&l, "%.1f s", (double)(t_ns - run->t0_ns) / 1e9);
	if (nknown == 0)
		add(&l, ", energy unknown");
	else if (nknown == ndev)
		add(&l, ", %.1f J so far on %zu device%s", sum / 1e3, ndev, ndev == 1 ? "" : "s");
	else
		add(&l, ", %.1f J so far on %zu of %zu devices (the others unknown)", sum / 1e3,
		    nknown, ndev);
	/* The carriage return takes no column. */
	if (l.len - 1 > width)
		l.len = width + 1;
	/* Blanks over what is left of a longer line before it. */
	while (l.len - 1 < lv->shown && l.len < sizeof l.buf)
		l.buf[l.len++] = ' ';
	(void)write_all(lv->fd, l.buf, l.len);
	lv->shown = l.len - 1;
	lv->status_ns = t_ns;
}

void
live_reading(struct live *lv, const struct run *run, const struct backend *b, size_t dev_base)
{
	int64_t	t;

	if (b->ndev == 0)
		return;
	t = b->cur[0].t_ns;
	if (lv->every_ns > 0 && run->index > 0)
		print_due(lv, run, b, dev_base);
	/* Not before the workload has run a while: a short run shows none. */
	if (lv->is_status && t - run->t0_ns >= LIVE_STATUS_EVERY_NS &&
	    (lv->shown == 0 || t - lv->status_ns >= LIVE_STATUS_EVERY_NS))
		draw_status(lv, run, t);
}

void
live_free(struct live *lv)
{
	live_clear(lv);
	free(lv->period);
	lv->period = NULL;
	lv->nperiod = 0;
}
