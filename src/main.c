/*
 * joulestat: parse options into struct config, set up the devices and the
 * workload, run the tick loop, write the report, and map the outcome to an
 * exit status.  This is the only place that decides the exit status
 * (STYLE §6 rule 1), using the values of exitcode.h (DESIGN §1).
 */
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/account.h"
#include "joulestat/config.h"
#include "joulestat/csvout.h"
#include "joulestat/devsel.h"
#include "joulestat/exitcode.h"
#include "joulestat/launch.h"
#include "joulestat/loop.h"
#include "joulestat/proctree.h"
#include "joulestat/report.h"
#include "joulestat/run.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

/* Signal state saved before the loop takes signals over, restored in the child. */
struct sigstate {
	sigset_t		old_mask;
	struct sigaction	old_pipe;
	int			sigfd;
};

static int
usage_error(const char *msg)
{
	warnmsg("%s", msg);
	fprintf(stderr, "%s\n", config_usage());
	return EXIT_TOOL;
}

/* A run-level line of the report: "BACKEND: WHAT MSG". */
static void
add_note(struct run *run, const char *backend, const char *what, const char *msg)
{
	if (run->nnotes < ARRAY_SIZE(run->notes))
		snprintf(run->notes[run->nnotes++], sizeof run->notes[0], "%s: %s%s", backend,
		    what, msg);
}

/* Probe every backend of the table; one that fails becomes a note, not an error. */
static void
probe_all(struct run *run)
{
	const struct source_ops *const	*ops;
	struct backend			*b;
	struct errbuf			 err;

	for (ops = sources; *ops != NULL; ops++) {
		run->backends = xreallocarray(run->backends, run->nbackends + 1, sizeof *b);
		b = &run->backends[run->nbackends];
		memset(b, 0, sizeof *b);
		memset(&err, 0, sizeof err);
		b->ops = *ops;
		if ((*ops)->probe(run->cfg, &b->devs, &b->ndev, &err) != 0) {
			add_note(run, (*ops)->name, "", err.msg);
			continue;
		}
		if (err.msg[0] != '\0')
			add_note(run, (*ops)->name, "", err.msg);
		b->cur = xcalloc(b->ndev, sizeof *b->cur);
		b->acct = xcalloc(b->ndev, sizeof *b->acct);
		b->span_ns = xcalloc(b->ndev, sizeof *b->span_ns);
		b->baseline_mw = xcalloc(b->ndev, sizeof *b->baseline_mw);
		for (size_t k = 0; k < b->ndev; k++)
			b->baseline_mw[k] = NAN;
		run->nbackends++;
	}
}

static void
close_all(struct run *run)
{
	struct backend	*b;
	size_t		 i;

	for (i = 0; i < run->nbackends; i++) {
		b = &run->backends[i];
		b->ops->close(b->devs, b->ndev);
		free(b->devs);
		free(b->cur);
		free(b->acct);
		free(b->span_ns);
		free(b->baseline_mw);
	}
	free(run->backends);
	free(run->pids.v);
	account_pid_free(&run->pidacct);
	free(run->scratch.idx);
	free(run->scratch.sm);
	free(run->scratch.mem);
	free(run->scratch.a);
	free(run->scratch.b);
	free(run->leftover);
	free(run->pidfds);
	proctree_free(&run->tree);
}

static void
finish_all(struct run *run)
{
	size_t	i;

	loop_finish(run);
	for (i = 0; i < run->nbackends; i++) {
		if (run->backends[i].is_gone)
			add_note(run, run->backends[i].ops->name, "stopped answering: ",
			    run->backends[i].why_gone.msg);
	}
}

/* -d: every entry must have matched a device of some backend. */
static int
check_selection(struct run *run, struct errbuf *err)
{
	const struct device	*d;
	struct devsel		 sel;
	size_t			 i, k;
	int			 rc;

	if (run->cfg->devices == NULL || devsel_parse(&sel, run->cfg->devices, err) != 0)
		return 0;
	for (i = 0; i < run->nbackends; i++) {
		for (k = 0; k < run->backends[i].ndev; k++) {
			d = &run->backends[i].devs[k];
			devsel_match(&sel, d->index, d->id, d->bus_id);
		}
	}
	rc = devsel_check(&sel, err);
	devsel_free(&sel);
	return rc;
}

static int
signals_take(struct sigstate *ss, struct errbuf *err)
{
	struct sigaction	ign = { .sa_handler = SIG_IGN };
	sigset_t		set;

	loop_signal_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, &ss->old_mask) == -1 ||
	    (ss->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) == -1) {
		errbuf_set(err, "signalfd: %s", strerror(errno));
		return -1;
	}
	/* A closed report pipe must not kill us before the workload's status is out. */
	sigaction(SIGPIPE, &ign, &ss->old_pipe);
	return 0;
}

/*
 * One pidfd per process, so its end wakes the loop.  Without pidfd_open
 * (kernels before 5.3, or valgrind), the process is checked every tick.
 */
static int
watch_pid(pid_t pid, struct errbuf *err)
{
	int	fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0)
		return fd;
	if (errno == ENOSYS && (kill(pid, 0) == 0 || errno == EPERM))
		return PIDFD_POLLED;
	errbuf_set(err, "--pid %d: %s", (int)pid, errno == ESRCH || errno == ENOSYS ?
	    "no such process" : strerror(errno));
	return PIDFD_ENDED;
}

static int
attach(struct run *run, struct errbuf *err)
{
	const struct config	*cfg = run->cfg;
	size_t			 i;

	run->is_attach = true;
	run->pidfds = xcalloc(cfg->npids, sizeof *run->pidfds);
	run->npidfds = cfg->npids;
	for (i = 0; i < cfg->npids; i++) {
		if ((run->pidfds[i] = watch_pid(cfg->pids[i], err)) == PIDFD_ENDED)
			return -1;
	}
	return proctree_init(&run->tree, "/proc", cfg->pids, cfg->npids, true, err);
}

static int
launch(struct run *run, const struct sigstate *ss, struct errbuf *err)
{
	pid_t	self = getpid();

	/* As a subreaper we stay the parent of double-forked daemons. */
	if (launch_become_subreaper() != 0)
		warnmsg("cannot become a child subreaper: daemons may escape the tree");
	if (proctree_init(&run->tree, "/proc", &self, 1, false, err) != 0)
		return -1;
	return launch_prepare(&run->child, run->cfg->argv, &ss->old_mask, &ss->old_pipe, err);
}

static FILE *
open_output(const char *path, bool *is_failed)
{
	FILE	*f;

	if (path == NULL)
		return stderr;
	if (strcmp(path, "-") == 0)
		return stdout;
	if ((f = fopen(path, "w")) == NULL) {
		warnmsg("%s: %s", path, strerror(errno));
		*is_failed = true;
	}
	return f;
}

static void
close_output(FILE *f, const char *path, int werr, bool *is_failed)
{
	if (f == NULL)
		return;
	if (f != stdout && f != stderr && fclose(f) != 0 && werr == 0)
		werr = -errno;
	if (werr != 0) {
		warnmsg("%s: %s", path != NULL ? path : "standard error", strerror(-werr));
		*is_failed = true;
	}
}

/* Write every requested form.  Returns true when one of them failed. */
static bool
write_outputs(const struct report *rep, const struct config *cfg, FILE *out, FILE *csv)
{
	bool	is_failed = false;
	int	werr = 0;

	if (out != NULL && !cfg->is_quiet) {
		if (cfg->field_sep != NULL)
			werr = csvout_summary(out, rep, cfg->field_sep);
		else
			werr = report_write_text(out, rep);
	}
	close_output(out, cfg->output, werr, &is_failed);
	werr = csv != NULL ? csvout_summary(csv, rep, ",") : 0;
	close_output(csv, cfg->csv_path, werr, &is_failed);
	return is_failed;
}

static void
exec_failed(const struct run *run)
{
	char	name[128];

	warnmsg("cannot run '%s': %s", visible(run->cfg->argv[0], name, sizeof name),
	    strerror(run->child.exec_errno));
}

/*
 * The workload's status always wins; joulestat's own failure (125) is only
 * reported when the workload itself succeeded.
 */
static int
exit_status(const struct report *rep, bool is_output_failed)
{
	if (rep->exit_status != 0)
		return rep->exit_status;
	return is_output_failed ? EXIT_TOOL : 0;
}

static int
measure(struct run *run, struct sigstate *ss)
{
	struct report	rep;
	struct errbuf	err = { "" };
	bool		is_failed = false;
	FILE		*out, *csv;
	int		status;

	out = open_output(run->cfg->is_quiet ? NULL : run->cfg->output, &is_failed);
	csv = run->cfg->csv_path != NULL ? open_output(run->cfg->csv_path, &is_failed) : NULL;
	probe_all(run);
	if (check_selection(run, &err) != 0) {
		warnmsg("--devices: %s", err.msg);
		if (!run->is_attach)
			launch_cancel(&run->child);
		return EXIT_TOOL;
	}
	if (run->cfg->idle_baseline_s > 0)
		loop_baseline(run, run->cfg->idle_baseline_s);
	run->t0_ns = now_ns();
	loop_sample(run, run->t0_ns);
	if (!run->is_attach && launch_start(&run->child) != 0)
		exec_failed(run);
	if (loop_run(run, ss->sigfd, &err) != 0) {
		warnmsg("%s", err.msg);
		is_failed = true;
	}
	finish_all(run);
	getrusage(RUSAGE_SELF, &run->self_ru);
	report_build(&rep, run);
	is_failed |= write_outputs(&rep, run->cfg, out, csv);
	status = exit_status(&rep, is_failed);
	report_free(&rep);
	return status;
}

static int
run_command(const struct config *cfg)
{
	struct run	 run = { .cfg = cfg, .weights = { cfg->w_sm, cfg->w_mem } };
	struct sigstate	 ss;
	struct errbuf	 err = { "" };
	int		 status;

	if (signals_take(&ss, &err) != 0) {
		warnmsg("%s", err.msg);
		return EXIT_TOOL;
	}
	if ((cfg->npids > 0 ? attach(&run, &err) : launch(&run, &ss, &err)) != 0) {
		warnmsg("%s", err.msg);
		close_all(&run);
		return EXIT_TOOL;
	}
	status = measure(&run, &ss);
	close_all(&run);
	close(ss.sigfd);
	return status;
}

static void
list_one(const struct device *d, size_t i, const char *backend)
{
	unsigned	k;

	printf("%zu: %s  %s\n", i, d->name, d->id);
	printf("   backend %s (its index %u), bus %s%s%s\n", backend, d->index,
	    d->bus_id[0] != '\0' ? d->bus_id : "none", d->version[0] != '\0' ? ", " : "",
	    d->version);
	printf("   measures: %s\n", d->how[0] != '\0' ? d->how : "nothing");
	for (k = 0; k < d->nnotes; k++)
		printf("   note: %s\n", d->notes[k]);
}

static int
list_devices(const struct config *cfg)
{
	struct run	run = { .cfg = cfg };
	size_t		i, k, n = 0;

	probe_all(&run);
	for (i = 0; i < run.nbackends; i++) {
		for (k = 0; k < run.backends[i].ndev; k++)
			list_one(&run.backends[i].devs[k], n++, run.backends[i].ops->name);
	}
	if (n == 0)
		printf("no devices found\n");
	for (i = 0; i < run.nnotes; i++)
		printf("%s\n", run.notes[i]);
	close_all(&run);
	return 0;
}

int
main(int argc, char **argv)
{
	struct config	cfg;
	struct errbuf	err = { "" };
	int		status = 0;

	if (config_parse(&cfg, argc, (const char **)argv, &err) != 0) {
		config_free(&cfg);
		return usage_error(err.msg);
	}
	switch (cfg.action) {
	case ACTION_HELP:
		fputs(cfg.text, stdout);
		break;
	case ACTION_LIST_DEVICES:
		status = list_devices(&cfg);
		break;
	case ACTION_RUN:
		status = run_command(&cfg);
		break;
	}
	config_free(&cfg);
	return status;
}
