/*
 * Attribution (HACKING.md, "Measurement rules"): the share of each
 * device's energy that the workload's processes, and the others, caused.
 * Per-process data comes in windows (one per reading that brought new
 * per-process data); each window's energy is shared among its
 * participants by attrib_window.  Pure arithmetic and bookkeeping: no I/O.
 */
#ifndef JOULESTAT_ATTRIB_H
#define JOULESTAT_ATTRIB_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/account.h"
#include "joulestat/procfs.h"
#include "joulestat/proctree.h"
#include "joulestat/source.h"

/* Attribution weights: a process's score is w_sm·SM% + w_mem·mem%. */
struct attrib_weights {
	double	w_sm;
	double	w_mem;
};

#define ATTRIB_W_SM_DEFAULT	0.7
#define ATTRIB_W_MEM_DEFAULT	0.3

/*
 * Share one window of a device among n participants (the tree's processes
 * and, as one more, everything else).  Over the window the device used
 * e_mj in dt_ns; participant i had sm_pct[i] and mem_pct[i].  Dynamic
 * energy (above idle) goes by score_i / sum of scores, with score = w_sm
 * SM% + w_mem mem%; idle energy by SM%_i / sum of SM% (by score when
 * nobody used the SMs).  So the participants share all of the window's
 * energy when any of them was busy, and a participant alone gets all of
 * it whatever the idle power.  Since idle power may only be known at the
 * end of the run, the estimate is kept in two parts that are linear in
 * it: participant i's energy is a_mj[i] + idle_mw * b_ns[i] / 1e9 (see
 * attrib_energy).  Adds to a_mj[i] and b_ns[i].  e_mj may also hold the
 * energy of gap_ns in which nobody was busy (time no sample stands for):
 * that time's idle energy is nobody's, and its energy above idle, which
 * the busy time drew, is shared as the dynamic energy is.
 */
void	attrib_window(const struct attrib_weights *w, double e_mj, int64_t dt_ns,
	    int64_t gap_ns, const double *sm_pct, const double *mem_pct, size_t n,
	    double *a_mj, double *b_ns);

/* A participant's estimated energy in mJ for idle power idle_mw; never below 0. */
double	attrib_energy(double a_mj, double b_ns, double idle_mw);
/* The same, not held at 0: what the windows gave it, below 0 where they drew under idle. */
double	attrib_energy_raw(double a_mj, double b_ns, double idle_mw);

/* Per-process usage over the run, one entry per (device, pid, starttime). */
struct pid_acct {
	size_t		dev;		/* global device index */
	pid_t		pid;
	uint64_t	starttime_ticks;
	char		comm[PROCFS_COMM_MAX];
	double		sm_pct_ns;	/* SM% integrated over time */
	double		mem_pct_ns;
	int64_t		util_ns;	/* time with a utilization reading */
	uint64_t	max_gpu_mem_kib;
	bool		is_between_ticks; /* only end-of-run accounting saw it */
	double		last_sm_pct;	/* in the latest per-process data (its newest sample) */
	double		last_mem_pct;
	uint32_t	slot_mask;	/* the samples of that data it was busy in */
	bool		is_sparse;	/* its data leaves out samples in which it was idle */
	int64_t		data_from_ns;	/* sparse data: from the first answer naming it */
	int64_t		data_to_ns;	/* ... to the last */
	float		slot_sm_pct[PID_SLOTS_MAX];
	float		slot_mem_pct[PID_SLOTS_MAX];
	int64_t		last_seen_ns;	/* t_ns of the reading that brought it */
	uint64_t	shared_window;	/* the window it was last shared in */
	double		attrib_a_mj;	/* see attrib_window */
	double		attrib_b_ns;
};

struct pid_acct_set {
	struct pid_acct	*v;
	size_t		 n;
	size_t		 cap;
	size_t		*slots;		/* hash of (dev, pid, starttime) -> index + 1 */
	size_t		 nslots;
};

void	attrib_pid_free(struct pid_acct_set *set);

/* The entry for (dev, pid, starttime), created when missing. */
struct pid_acct *attrib_pid(struct pid_acct_set *set, size_t dev, pid_t pid,
	    uint64_t starttime_ticks);

/* The attribution state of a run. */
struct attrib {
	struct attrib_weights	 weights;	/* --attrib-weights */
	struct pid_acct_set	 pidacct;	/* per device and pid, for the run */
	struct share_scratch {			/* one window's participants */
		size_t	*idx;			/* into pidacct.v; the last one is "others" */
		double	*sm;
		double	*mem;
		double	*a;
		double	*b;
		size_t	 cap;
		size_t	*cand;			/* pidacct entries with new data this reading */
		size_t	 ncand;
		size_t	 capcand;
		uint64_t window;		/* windows shared so far (from 1) */
	}			 scratch;
};

/*
 * Record one backend's per-process usage of this reading (pids, for its
 * ndev devices numbered from dev_base) against the run's totals.  cur and
 * span_ns are the backend's readings and the time since each device's
 * previous one; tree names the processes.
 */
void	attrib_pids(struct attrib *at, const struct proctree *tree,
	    const struct pid_usage_set *pids, size_t dev_base, size_t ndev,
	    const struct sample *cur, const int64_t *span_ns);

/*
 * The energy of this reading joins each device's pending window; a device
 * whose reading brought per-process data shares its window out among the
 * processes attrib_pids recorded and everyone else; time no sample stands
 * for, and a window older than one sample period whose driver had nothing
 * new (is_pid_unchanged), had nobody busy: its energy stays unattributed.
 */
void	attrib_reading(struct attrib *at, size_t dev_base, size_t ndev,
	    const struct sample *cur, const int64_t *span_ns, struct dev_acct *acct);

/*
 * After the last reading (and account_finish): the energy after the last
 * per-process data is shared as that data shared it, or left unattributed
 * when the polls since found nobody busy.
 */
void	attrib_close(struct attrib *at, struct dev_acct *a, size_t gdev);

/* Forget the processes of the previous run. */
void	attrib_reset(struct attrib *at);

/* Release everything. */
void	attrib_free(struct attrib *at);

#endif
