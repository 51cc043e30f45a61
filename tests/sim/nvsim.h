/*
 * Internal interfaces of the simulated NVML (tests/sim/README): the parsed
 * scenario (devices, timed phases, processes, faults), the one global
 * simulation state, the analytic power model, the process lists and the
 * ground-truth writer.  Nothing here is exported from the library: every
 * declaration in this file has hidden visibility, so the only dynamic
 * symbols are the NVML names of nvsim_abi.h.  Times inside the model are
 * milliseconds since time 0, the first successful nvmlInit; power is in
 * watts and energy in millijoules (W x ms = mJ).
 */
#ifndef NVSIM_H
#define NVSIM_H

#include <sys/types.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvsim_abi.h"

#pragma GCC visibility push(hidden)

#define NVSIM_MAX_DEVICES	16
#define NVSIM_NAME_LEN		96	/* name and UUID buffers, NUL included */
#define NVSIM_CALL_LEN		64	/* longest NVML symbol name we accept */
#define NVSIM_PSTATE_BINS	17	/* P0..P15, then "unknown" */
#define NVSIM_MAX_SESSIONS	64	/* truth "session" records per device */
#define NVSIM_SAMPLE_DEPTH	120	/* driver power samples kept per device */
#define NVSIM_FOREIGN_BASE	5000000u /* proccount pids: above any Linux pid_max */
#define NVSIM_NEVER		INT64_MAX /* an open end of a time window */
#define NVSIM_UTIL_DEPTH	10	/* per-process samples the driver keeps */
#define NVSIM_ERRLEN		512
#define NVSIM_WATCH_MS		5	/* accounting's view of the tree is this fresh */

enum power_kind {
	POWER_INSTANT,			/* GetPowerUsage and INSTANT: true power */
	POWER_AVERAGE_1S,		/* GetPowerUsage and AVERAGE: trailing 1 s mean */
};

enum mig_state {
	MIG_OFF,
	MIG_ON,
	MIG_UNSUPPORTED,
};

/* Which locked-clocks calls a device has (scenario: lock_clocks). */
enum lock_support {
	LOCK_SUPPORTED,			/* graphics and memory (Ampere and later) */
	LOCK_GPU_ONLY,			/* graphics only (Volta, Turing) */
	LOCK_NOT_SUPPORTED,		/* none (before Volta) */
};

enum proc_kind {
	PROC_TREE,			/* every descendant of the loading process */
	PROC_PID,			/* one explicit (foreign) pid */
	PROC_MANY,			/* count fake pids from NVSIM_FOREIGN_BASE */
};

/* One timed phase; it lasts until the next one starts. */
struct phase {
	int64_t		 start_ms;
	int64_t		 end_ms;		/* NVSIM_NEVER for the last phase */
	int64_t		 ramp_end_ms;		/* power goes p0 -> p1 until here, then p1 */
	double		 p0_w;
	double		 p1_w;
	unsigned	 pstate;		/* 0..15, or NVML_PSTATE_UNKNOWN */
	unsigned	 gfx_mhz;
	unsigned	 sm_mhz;
	unsigned	 mem_mhz;
	unsigned	 temp_c;
	unsigned	 util_pct;
	unsigned	 memutil_pct;
	unsigned long long throttle;		/* clocks event reasons mask */
};

/* A set of processes using a device during a window. */
struct proc_spec {
	enum proc_kind	 kind;
	unsigned	 pid;			/* PROC_PID */
	unsigned	 count;			/* PROC_MANY */
	unsigned	 sm_pct;
	unsigned	 mem_pct;
	unsigned	 sm2_pct;		/* with every_ms: the other half of each cycle */
	unsigned	 mem2_pct;
	unsigned	 every_ms;		/* 0: constant; else alternate every every_ms */
	unsigned long long gpumem_bytes;
	int64_t		 from_ms;
	int64_t		 to_ms;
	bool		 is_graphics;
	char		 comm[16];		/* PROC_TREE: only descendants so named; "" all */
};

struct window {
	int64_t		 from_ms;
	int64_t		 to_ms;
};

/*
 * A call that sleeps (slow), fails with a code for a while (fail), or
 * always fails (notsupported).
 */
struct call_fault {
	char		 call[NVSIM_CALL_LEN];
	unsigned	 delay_ms;		/* slow; 0 for the others */
	nvmlReturn_t	 rc;			/* fail; NVML_SUCCESS for the others */
	struct window	 when;
};

/*
 * A MIG device (a compute instance of a GPU instance) of a MIG-enabled
 * board, reached through nvmlDeviceGetMigDeviceHandleByIndex: the handle is
 * the address of this entry, so it is no board's handle.
 */
struct simmig {
	unsigned	 index;			/* its slot among the board's MIG devices */
	unsigned	 gi, ci;		/* GPU and compute instance ids */
	char		 uuid[NVSIM_NAME_LEN];	/* MIG-... */
	char		 name[NVSIM_NAME_LEN];
};

struct vgpu {
	unsigned	 id;
	unsigned	 sm_pct;
	unsigned	 mem_pct;
};

/* What a process looked like to the accounting buffer. */
struct acct_rec {
	unsigned	 pid;
	unsigned	 sm_pct;
	unsigned	 mem_pct;
	unsigned long long gpumem_bytes;
	double		 start_ms;
	double		 end_ms;		/* last seen, or the scenario's to= */
	bool		 is_running;
};

/* One process as a query sees it at some instant. */
struct proc_entry {
	unsigned	 pid;
	unsigned	 sm_pct;
	unsigned	 mem_pct;
	unsigned long long gpumem_bytes;
	bool		 is_graphics;
	int64_t		 from_ms;		/* -1 for tree processes: unknown */
	int64_t		 to_ms;			/* NVSIM_NEVER when unknown */
	const struct proc_spec *spec;		/* the line it comes from */
};

struct proc_list {
	struct proc_entry *v;
	size_t		 n;
	size_t		 cap;
};

/* A simulated GPU: scenario data first, then what the run did to it. */
struct simdev {
	unsigned	 index;
	char		 name[NVSIM_NAME_LEN];
	char		 uuid[NVSIM_NAME_LEN];
	unsigned	 pci_domain;
	unsigned	 pci_bus;
	unsigned	 pci_device;
	unsigned	 pci_id;
	unsigned	 pci_subsys;
	unsigned	 arch;			/* nvmlDeviceGetArchitecture; 0: NOT_SUPPORTED */
	unsigned	 clock_absent;		/* bit per nvmlClockType_t: NOT_SUPPORTED */
	bool		 has_energy;
	unsigned	 energy_update_ms;	/* counter refreshed every N ms; 0: continuous */
	unsigned	 energy_phase_ms;	/* ... the first time at this time */
	enum power_kind	 power;
	unsigned	 sample_ms;		/* 0: GetSamples is NOT_SUPPORTED */
	unsigned	 procutil_ms;		/* per-process sample period */
	double		 idle_w;		/* "idle W": for the attribution truth; <0 none */
	enum mig_state	 mig;
	nvmlGpuVirtualizationMode_t virt;
	int		 cc_major;		/* cuda_cc; 0: the call is NOT_SUPPORTED */
	int		 cc_minor;
	bool		 has_accounting;
	unsigned long long energy_offset_mj;
	unsigned	 limit_mw;
	unsigned	 limit_min_mw;
	unsigned	 limit_max_mw;
	unsigned	 max_mhz[3];		/* graphics, SM, memory; 0 = from the phases */
	unsigned	 base_mhz;		/* graphics base clock; 0 = 60 % of the max */
	enum lock_support lock_support;
	unsigned long long mem_total;
	unsigned long long mem_reserved;
	bool		 has_name, has_uuid, has_busid;

	struct phase	*phases;
	size_t		 nphases;
	struct proc_spec *procs;
	size_t		 nprocs;
	struct window	*lost;
	size_t		 nlost;
	int64_t		*resets;		/* sorted */
	size_t		 nresets;
	struct call_fault *faults;
	size_t		 nfaults;
	struct vgpu	*vgpus;
	size_t		 nvgpus;
	struct simmig	*migs;			/* mig_device lines, by index */
	size_t		 nmigs;
	unsigned	 mig_max;		/* nvmlDeviceGetMaxMigDeviceCount */

	/* Run-time state, under the state lock. */
	int64_t		 first_read_ns;		/* CLOCK_MONOTONIC */
	int64_t		 last_read_ns;
	unsigned long	 nreads;
	/*
	 * Sessions (NVSIM_TRUTH_GAP_MS): runs of reading calls no further
	 * apart than the gap, the first NVSIM_MAX_SESSIONS of them.
	 */
	int64_t		 sess_first_ns[NVSIM_MAX_SESSIONS];
	int64_t		 sess_last_ns[NVSIM_MAX_SESSIONS];
	size_t		 nsess;
	bool		 is_sess_open;		/* the newest session is recorded */
	bool		 is_gpu_locked, is_mem_locked;
	unsigned	 gpu_lock[2];		/* min, max MHz */
	unsigned	 mem_lock[2];
	struct acct_rec	*acct;			/* sorted by pid */
	size_t		 nacct;
	double		 tree_from_ms;		/* first and last sample that named a tree */
	double		 tree_to_ms;		/* process; from > to: none yet */
	double		 util_newest_ms;	/* the newest sample handed out, if any */
	bool		 has_util_newest;
};

struct scenario {
	char		*path;
	char		 driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
	char		 nvml[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
	bool		 is_root;
	struct simdev	*devs;
	size_t		 ndev;
	struct call_fault *faults;		/* faults for every device */
	size_t		 nfaults;
};

/* The library's single process-global state (a real NVML has one too). */
struct sim_state {
	pthread_mutex_t	 lock;
	unsigned	 refcount;		/* nvmlInit minus nvmlShutdown */
	bool		 is_loaded;		/* the scenario is parsed */
	bool		 is_truth_due;		/* initialized since the last truth write */
	int		 ctl_fd;		/* held while initialized, without O_CLOEXEC; -1 */
	int64_t		 t0_ns;			/* CLOCK_MONOTONIC of time 0 */
	int64_t		 sess_gap_ns;		/* NVSIM_TRUTH_GAP_MS; 0: no sessions */
	int64_t		 rt0_us;		/* CLOCK_REALTIME of time 0, in µs */
	struct scenario	 sc;
	pthread_t	 watch;			/* procs_watch_start */
	bool		 is_watching;
	bool		 is_watch_stopped;
};

extern struct sim_state nvsim;

/*
 * scenario.c.  Parse the file at path into sc.  Returns 0; -1 for a
 * mistake in the file, with a "file:line: reason" message in err (size
 * NVSIM_ERRLEN); or -2 when the file cannot be opened ("file: errno text").
 * On failure sc is left empty.  scenario_free releases everything
 * scenario_load allocated.  scenario_is_call says whether name is one of
 * the NVML symbols the library exports.
 */
int	scenario_load(const char *path, struct scenario *sc, char *err);
void	scenario_free(struct scenario *sc);
bool	scenario_is_call(const char *name);

/*
 * model.c: the analytic power model of one device.  t_ms may be negative
 * (before time 0 the first phase's starting power holds).  Energies are
 * exact integrals in mJ; powers are in W unless the name says mW.
 */
const struct phase *model_phase_at(const struct simdev *d, double t_ms);
double	model_power_w(const struct simdev *d, double t_ms);
double	model_energy_mj(const struct simdev *d, double a_ms, double b_ms);
unsigned model_reported_mw(const struct simdev *d, double t_ms);
unsigned model_instant_mw(const struct simdev *d, double t_ms);
unsigned model_average_mw(const struct simdev *d, double t_ms);
unsigned long long model_counter_mj(const struct simdev *d, double t_ms);
unsigned long long model_violation_ns(const struct simdev *d, double t_ms,
	    unsigned long long mask);
void	model_pstate_split(const struct simdev *d, int64_t a_ns, int64_t b_ns,
	    int64_t time_ns[NVSIM_PSTATE_BINS], double energy_mj[NVSIM_PSTATE_BINS]);
/* Time in [a_ns, b_ns] (ns since time 0) with each bit of the throttle mask set. */
void	model_reason_split(const struct simdev *d, int64_t a_ns, int64_t b_ns,
	    int64_t time_ns[64]);
unsigned model_pstate_bin(unsigned pstate);
unsigned model_max_mhz(const struct simdev *d, nvmlClockType_t type);
unsigned model_base_mhz(const struct simdev *d);

/*
 * state.c.  Every exported device call starts with state_enter_device,
 * which applies the checks a real NVML makes (initialized, valid handle)
 * and the scenario's faults (slow, lost, notsupported).  On NVML_SUCCESS
 * the state lock is held, *dp is the device and *now_ns (unless now_ns is
 * NULL) the time of the call; the caller must end with state_leave.  On
 * failure nothing is held.  state_enter_device_args then answers
 * INVALID_ARGUMENT, with nothing held, when is_args_ok is false (a NULL
 * output pointer, say): after those checks, as the order of NVML's codes
 * goes.  state_is_buffer_ok is the buffer protocol's argument check: a
 * count, and an array unless *count is 0.
 */
nvmlReturn_t state_enter(const char *call);
nvmlReturn_t state_enter_device(const char *call, nvmlDevice_t h, struct simdev **dp,
	    int64_t *now_ns);
nvmlReturn_t state_enter_device_args(const char *call, nvmlDevice_t h, bool is_args_ok,
	    struct simdev **dp, int64_t *now_ns);
bool	state_is_buffer_ok(const unsigned int *count, const void *buf);
nvmlReturn_t state_leave(nvmlReturn_t rc);
/*
 * The same for a MIG device handle (api_mig.c): init and handle checks, and
 * the parent board's lost windows and faults.  The lock is held on success.
 */
nvmlReturn_t state_enter_mig(const char *call, nvmlDevice_t h, struct simdev **dp,
	    struct simmig **mp);
/* Whether h is a MIG device handle of the scenario. */
bool	state_is_mig(nvmlDevice_t h);
/* nvmlDeviceGetName (is_uuid false) or nvmlDeviceGetUUID on a MIG device handle. */
nvmlReturn_t sim_mig_string(const char *call, nvmlDevice_t h, char *buf, unsigned int length,
	    bool is_uuid);

/* The index of the device h names, whatever its faults; -1 for a bad handle. */
int	state_index_of(nvmlDevice_t h);
nvmlReturn_t state_init(void);
nvmlReturn_t state_shutdown(void);
int64_t	state_now_ns(void);
double	state_ms(int64_t now_ns);
unsigned long long state_wall_us(double t_ms);
bool	state_is_lost(const struct simdev *d, double t_ms);
void	state_note_read(struct simdev *d, int64_t now_ns);
nvmlReturn_t state_copy_string(char *dst, unsigned int len, const char *src);

/* truth.c.  Write the ground-truth file named by NVSIM_TRUTH, if set. */
void	truth_write(const struct sim_state *st);

/*
 * procs.c.  Collect the processes using d at t_ms (tree descendants,
 * foreign pids, proccount fakes).  Returns 0 or -1 when memory ran out.
 */
int	procs_collect(const struct simdev *d, double t_ms, struct proc_list *out);
void	procs_free(struct proc_list *pl);
int	procs_account(struct simdev *d, double t_ms);
/*
 * The driver's accounting, between calls: while initialized, a thread
 * brings the accounting buffer of every device with accounting on up to
 * date every NVSIM_WATCH_MS, so processes that live and die between two
 * calls are recorded as a real driver records every context.  Start with
 * the state lock held; stop returns the thread to join (after unlocking)
 * or false when none runs.
 */
bool	procs_has_accounting(const struct simdev *d);
void	procs_watch_start(void);
bool	procs_watch_stop(pthread_t *th);
double	procs_tick_ms(const struct simdev *d, double t_ms);
void	procs_util_at(const struct proc_spec *ps, double t_ms, double *sm, double *mem);
void	procs_util_sample(const struct simdev *d, const struct proc_spec *ps, double t_ms,
	    unsigned *sm, unsigned *mem);

#pragma GCC visibility pop

#endif /* NVSIM_H */
