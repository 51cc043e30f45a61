/*
 * The ground-truth writer (tests/sim/README).  For each device it reports the
 * window from the first to the last successful reading call, the exact
 * energy of the true power over that window, and the exact time and
 * energy per P-state inside it, all from model.c's closed-form integrals.
 * The file named by NVSIM_TRUTH is replaced atomically (written beside it,
 * then renamed), so a test never reads half a file.  tests/sim/README
 * documents the record format.
 */
#include "nvsim.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The time and exact energy of each P-state in the window a_ns..b_ns (ns
 * since time 0): "pstate" records for the whole window, or with session
 * n (from 1) "session_pstate" records that carry it.
 */
static void
write_pstates(FILE *f, const struct simdev *d, int64_t a_ns, int64_t b_ns, size_t n)
{
	int64_t		 time_ns[NVSIM_PSTATE_BINS] = { 0 };
	double		 energy_mj[NVSIM_PSTATE_BINS] = { 0 };

	model_pstate_split(d, a_ns, b_ns, time_ns, energy_mj);
	for (unsigned b = 0; b < NVSIM_PSTATE_BINS; b++) {
		if (time_ns[b] == 0)
			continue;
		if (n == 0)
			fprintf(f, "pstate index=%u", d->index);
		else
			fprintf(f, "session_pstate index=%u n=%zu", d->index, n);
		fprintf(f, " pstate=%u time_ns=%" PRId64 " energy_mj=%.3f\n",
		    b < 16 ? b : (unsigned)NVML_PSTATE_UNKNOWN, time_ns[b], energy_mj[b]);
	}
}

/* One record per clocks-event reason bit that was set for some time in the window. */
static void
write_reasons(FILE *f, const struct sim_state *st, const struct simdev *d)
{
	int64_t		 time_ns[64] = { 0 };

	if (d->nreads == 0)
		return;
	model_reason_split(d, d->first_read_ns - st->t0_ns, d->last_read_ns - st->t0_ns, time_ns);
	for (unsigned b = 0; b < 64; b++) {
		if (time_ns[b] != 0)
			fprintf(f, "reason index=%u bit=%u mask=0x%llx time_ns=%" PRId64 "\n",
			    d->index, b, 1ull << b, time_ns[b]);
	}
}

/* Weights of the attribution model (joulestat's defaults, --attrib-weights). */
#define TRUTH_W_SM	0.7
#define TRUTH_W_MEM	0.3

static bool
spec_on(const struct proc_spec *ps, double t_ms)
{
	return t_ms >= (double)ps->from_ms && (ps->to_ms == NVSIM_NEVER || t_ms < (double)ps->to_ms);
}

/*
 * The workload's energy by the attribution model over the window
 * a_ms..b_ms, sample period by sample period of the driver's per-process
 * utilization (procutil_ms): in each, the exact energy above the
 * scenario's idle power is shared by 0.7 SM% + 0.3 mem% and the idle
 * energy by SM% (by score when nobody uses the SMs), between one tree
 * process (the first open tree line, in the samples that named one) and
 * every other process, with the utilization each sample reports.  The
 * time after the newest sample handed out, which no sample described
 * yet, is shared as that sample shared it.  This is the most a sampler of
 * the driver's data can know; it can be off from the truth only by how it
 * samples and aligns that data.
 */
static double
attrib_truth_mj(const struct simdev *d, double a_ms, double b_ms)
{
	const struct proc_spec	*ps;
	double			 e = 0, t, ts, lo, hi, ed, idle_mj, score, oscore, f, g;
	unsigned		 sm, mem, tsm, tmem, osm, omem, n;
	bool			 has_tree;

	for (t = floor(a_ms / d->procutil_ms) * d->procutil_ms; t - d->procutil_ms < b_ms;
	    t += d->procutil_ms) {
		lo = fmax(t - d->procutil_ms, a_ms);
		hi = fmin(t, b_ms);
		if (hi <= lo)
			continue;
		tsm = tmem = osm = omem = 0;
		has_tree = false;
		ts = d->has_util_newest && t > d->util_newest_ms ? d->util_newest_ms : t;
		for (size_t i = 0; i < d->nprocs; i++) {
			ps = &d->procs[i];
			if (!spec_on(ps, ts) || (ps->kind == PROC_TREE && has_tree))
				continue;
			/* The tree only in the samples that named one. */
			if (ps->kind == PROC_TREE && (ts < d->tree_from_ms || ts > d->tree_to_ms))
				continue;
			procs_util_sample(d, ps, ts, &sm, &mem);
			n = ps->kind == PROC_MANY ? ps->count : 1;
			if (ps->kind == PROC_TREE) {
				has_tree = true;
				tsm = sm;
				tmem = mem;
			} else {
				osm += sm * n;
				omem += mem * n;
			}
		}
		score = TRUTH_W_SM * tsm + TRUTH_W_MEM * tmem;
		oscore = TRUTH_W_SM * osm + TRUTH_W_MEM * omem;
		if (score + oscore <= 0)
			continue;
		f = score / (score + oscore);
		g = tsm + osm > 0 ? (double)tsm / (tsm + osm) : f;
		ed = model_energy_mj(d, lo, hi);
		idle_mj = d->idle_w * (hi - lo);	/* W times ms: mJ */
		e += (ed - idle_mj) * f + idle_mj * g;
	}
	return e;
}

static void
write_attrib(FILE *f, const struct sim_state *st, const struct simdev *d)
{
	double	a_ms = (double)(d->first_read_ns - st->t0_ns) / 1e6;
	double	b_ms = (double)(d->last_read_ns - st->t0_ns) / 1e6;

	if (d->nreads == 0 || d->idle_w < 0)
		return;
	fprintf(f, "attrib index=%u idle_w=%.3f workload_mj=%.3f newest_ms=%.0f taken_ms=%.0f\n",
	    d->index, d->idle_w, attrib_truth_mj(d, a_ms, b_ms),
	    d->has_util_newest ? d->util_newest_ms : -1, procs_tick_ms(d, b_ms));
}

/*
 * With NVSIM_TRUTH_GAP_MS, the same for each session (a run of reading
 * calls no further apart than the gap: one run of a tool that repeats its
 * measurement), numbered from 1: its window, energy and P-state times.
 */
static void
write_sessions(FILE *f, const struct sim_state *st, const struct simdev *d)
{
	int64_t		 a, b;

	for (size_t k = 0; k < d->nsess; k++) {
		a = d->sess_first_ns[k] - st->t0_ns;
		b = d->sess_last_ns[k] - st->t0_ns;
		fprintf(f, "session index=%u n=%zu first_ns=%" PRId64 " last_ns=%" PRId64
		    " energy_mj=%.3f\n", d->index, k + 1, d->sess_first_ns[k], d->sess_last_ns[k],
		    model_energy_mj(d, (double)a / 1e6, (double)b / 1e6));
		write_pstates(f, d, a, b, k + 1);
	}
}

static void
write_device(FILE *f, const struct sim_state *st, const struct simdev *d)
{
	double	 e = 0;

	if (d->nreads > 0)
		e = model_energy_mj(d, (double)(d->first_read_ns - st->t0_ns) / 1e6,
		    (double)(d->last_read_ns - st->t0_ns) / 1e6);
	fprintf(f, "device index=%u uuid=%s first_ns=%" PRId64 " last_ns=%" PRId64
	    " energy_mj=%.3f reads=%lu\n", d->index, d->uuid,
	    d->nreads > 0 ? d->first_read_ns : 0, d->nreads > 0 ? d->last_read_ns : 0, e,
	    d->nreads);
	if (d->nreads > 0)
		write_pstates(f, d, d->first_read_ns - st->t0_ns, d->last_read_ns - st->t0_ns, 0);
	write_reasons(f, st, d);
	write_attrib(f, st, d);
	write_sessions(f, st, d);
}

static int
write_file(const char *path, const struct sim_state *st)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "sim t0_ns=%" PRId64 " scenario=%s\n", st->t0_ns, st->sc.path);
	for (size_t i = 0; i < st->sc.ndev; i++)
		write_device(f, st, &st->sc.devs[i]);
	if (ferror(f)) {
		fclose(f);
		errno = EIO;
		return -1;
	}
	return fclose(f);
}

void
truth_write(const struct sim_state *st)
{
	const char	*path = getenv("NVSIM_TRUTH");
	char		 tmp[4096];
	int		 n;

	if (path == NULL || *path == '\0' || !st->is_loaded)
		return;
	n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		fprintf(stderr, "nvsim: NVSIM_TRUTH: path too long\n");
		return;
	}
	if (write_file(tmp, st) == -1 || rename(tmp, path) == -1)
		fprintf(stderr, "nvsim: NVSIM_TRUTH: %s: %s\n", path, strerror(errno));
}
