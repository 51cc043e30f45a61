/*
 * A small NVML client for tests/cli/sim_lib.sh: it dlopens a library the
 * way a tool would and runs a script of calls given on the command line,
 * printing one line per call ("cmd=NAME rc=N b=NS a=NS key=value...",
 * where b and a are CLOCK_MONOTONIC just before and after the call), so
 * that the shell test can assert return codes, values and timing windows.
 * It declares the few NVML types and prototypes it needs itself, on
 * purpose independent of tests/sim/nvsim_abi.h.  It lives outside
 * tests/sim/ because the Makefile builds every C file there into the
 * library; the test compiles it on its own.
 *
 *   nvsim_client LIB CMD[:ARG...]...     (see the command table below)
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXDEV		16
#define MAXCHILD	16

typedef void *handle_t;

struct pci {			/* nvmlPciInfo_t */
	char		 legacy[16];
	unsigned	 domain, bus, device, devid, subsys;
	char		 busid[32];
};

struct mem2 {			/* nvmlMemory_v2_t */
	unsigned	 version;
	unsigned long long total, reserved, free, used;
};

struct field {			/* nvmlFieldValue_t */
	unsigned	 id, scope;
	long long	 ts, latency;
	int		 type, rc;
	union {
		unsigned	 ui;
		unsigned long long ull;
	} v;
};

struct putil {			/* nvmlProcessUtilizationSample_t */
	unsigned	 pid;
	unsigned long long ts;
	unsigned	 sm, mem, enc, dec;
};

struct pinfo {			/* nvmlProcessUtilizationInfo_v1_t */
	unsigned long long ts;
	unsigned	 pid, sm, mem, enc, dec, jpg, ofa;
};

struct pinfos {			/* nvmlProcessesUtilizationInfo_v1_t */
	unsigned	 version, count;
	unsigned long long last;
	struct pinfo	*array;
};

struct proc2 {			/* nvmlProcessInfo_v2_t */
	unsigned	 pid;
	unsigned long long mem;
	unsigned	 gi, ci;
};

struct sample {			/* nvmlSample_t */
	unsigned long long ts;
	union {
		unsigned	 ui;
		unsigned long long ull;
	} v;
};

struct acct {			/* nvmlAccountingStats_t */
	unsigned	 gpu, mem;
	unsigned long long maxmem, time, start;
	unsigned	 running, reserved[5];
};

struct vsample {		/* nvmlVgpuInstanceUtilizationSample_t */
	unsigned	 id;
	unsigned long long ts;
	unsigned long long sm, mem, enc, dec;	/* nvmlValue_t; uiVal in the low half */
};

struct viol {			/* nvmlViolationTime_t */
	unsigned long long ref, ns;
};

struct client {
	void		*lib;
	handle_t	 dev[MAXDEV];
	int64_t		 b, a;		/* around the last call */
	int64_t		 t_init;	/* "b" of the first successful init */
	pid_t		 kids[MAXCHILD];
	int		 nkids;
};

typedef int (*cmd_fn)(struct client *, char **);

struct command {
	const char	*name;
	cmd_fn		 fn;
	int		 nargs;
};

static int64_t
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
sym(struct client *c, const char *name)
{
	void	*p;

	if ((p = dlsym(c->lib, name)) == NULL) {
		fprintf(stderr, "nvsim_client: %s: missing symbol\n", name);
		exit(3);
	}
	return p;
}

/* Print one result line: the call's name, its return code, its timing. */
static int
out(struct client *c, const char *name, int rc, const char *fmt, ...)
{
	va_list	 ap;

	printf("cmd=%s rc=%d b=%lld a=%lld", name, rc, (long long)c->b, (long long)c->a);
	if (fmt != NULL) {
		putchar(' ');
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	putchar('\n');
	fflush(stdout);
	return 0;
}

static unsigned long long
num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static handle_t
dev(struct client *c, const char *s)
{
	unsigned long long i = num(s);

	return i < MAXDEV ? c->dev[i] : NULL;
}

static int
call_void(struct client *c, const char *name)
{
	int	(*fn)(void) = (int (*)(void))sym(c, name);
	int	 rc;

	c->b = now_ns();
	rc = fn();
	c->a = now_ns();
	return rc;
}

static int
cmd_init(struct client *c, char **v)
{
	int	 rc = call_void(c, v[0][4] == '1' ? "nvmlInit" : "nvmlInit_v2");

	if (rc == 0 && c->t_init == 0)
		c->t_init = c->b;
	return out(c, "init", rc, NULL);
}

static int
cmd_shutdown(struct client *c, char **v)
{
	(void)v;
	return out(c, "shutdown", call_void(c, "nvmlShutdown"), NULL);
}

static int
cmd_count(struct client *c, char **v)
{
	int	(*fn)(unsigned *) = (int (*)(unsigned *))sym(c, "nvmlDeviceGetCount_v2");
	unsigned n = 0;
	int	 rc;

	(void)v;
	c->b = now_ns();
	rc = fn(&n);
	c->a = now_ns();
	return out(c, "count", rc, "value=%u", n);
}

static int
cmd_handle(struct client *c, char **v)
{
	int	(*fn)(unsigned, handle_t *) =
	    (int (*)(unsigned, handle_t *))sym(c, "nvmlDeviceGetHandleByIndex_v2");
	unsigned i = (unsigned)num(v[1]);
	int	 rc;

	c->b = now_ns();
	rc = fn(i, i < MAXDEV ? &c->dev[i] : NULL);
	c->a = now_ns();
	return out(c, "handle", rc, NULL);
}

/* Calls of the form f(handle, unsigned *). */
static int
call_u32(struct client *c, const char *name, const char *label, handle_t h)
{
	int	(*fn)(handle_t, unsigned *) = (int (*)(handle_t, unsigned *))sym(c, name);
	unsigned v = 0;
	int	 rc;

	c->b = now_ns();
	rc = fn(h, &v);
	c->a = now_ns();
	return out(c, label, rc, "value=%u", v);
}

static int
cmd_power(struct client *c, char **v)
{
	return call_u32(c, "nvmlDeviceGetPowerUsage", "power", dev(c, v[1]));
}

static int
cmd_badhandle(struct client *c, char **v)
{
	(void)v;
	return call_u32(c, "nvmlDeviceGetPowerUsage", "badhandle", (handle_t)(uintptr_t)0x1000);
}

static int
cmd_pstate(struct client *c, char **v)
{
	return call_u32(c, "nvmlDeviceGetPerformanceState", "pstate", dev(c, v[1]));
}

static int
cmd_limit(struct client *c, char **v)
{
	return call_u32(c, "nvmlDeviceGetEnforcedPowerLimit", "limit", dev(c, v[1]));
}

static int
cmd_virt(struct client *c, char **v)
{
	return call_u32(c, "nvmlDeviceGetVirtualizationMode", "virt", dev(c, v[1]));
}

static int
cmd_energy(struct client *c, char **v)
{
	int	(*fn)(handle_t, unsigned long long *) = (int (*)(handle_t,
	    unsigned long long *))sym(c, "nvmlDeviceGetTotalEnergyConsumption");
	unsigned long long e = 0;
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), &e);
	c->a = now_ns();
	return out(c, "energy", rc, "value=%llu", e);
}

static int
cmd_clock(struct client *c, char **v)
{
	int	(*fn)(handle_t, int, unsigned *) =
	    (int (*)(handle_t, int, unsigned *))sym(c, "nvmlDeviceGetClockInfo");
	unsigned mhz = 0;
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), (int)num(v[2]), &mhz);
	c->a = now_ns();
	return out(c, "clock", rc, "value=%u", mhz);
}

/* Names and UUIDs into a buffer of the given length. */
static int
cmd_string(struct client *c, char **v)
{
	const char *name = strcmp(v[0], "name") == 0 ? "nvmlDeviceGetName" : "nvmlDeviceGetUUID";
	int	(*fn)(handle_t, char *, unsigned) =
	    (int (*)(handle_t, char *, unsigned))sym(c, name);
	char	 buf[256] = "";
	unsigned len = (unsigned)num(v[2]);
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), buf, len > sizeof(buf) ? (unsigned)sizeof(buf) : len);
	c->a = now_ns();
	return out(c, v[0], rc, "value='%s'", buf);
}

static int
cmd_pci(struct client *c, char **v)
{
	int	(*fn)(handle_t, struct pci *) =
	    (int (*)(handle_t, struct pci *))sym(c, "nvmlDeviceGetPciInfo_v3");
	struct pci p;
	int	 rc;

	memset(&p, 0, sizeof(p));
	c->b = now_ns();
	rc = fn(dev(c, v[1]), &p);
	c->a = now_ns();
	return out(c, "pci", rc, "busid=%s legacy=%s devid=0x%08X", p.busid, p.legacy,
	    p.devid);
}

static int
cmd_mem2(struct client *c, char **v)
{
	int	(*fn)(handle_t, struct mem2 *) =
	    (int (*)(handle_t, struct mem2 *))sym(c, "nvmlDeviceGetMemoryInfo_v2");
	struct mem2 m;
	int	 rc;

	memset(&m, 0, sizeof(m));
	m.version = (unsigned)num(v[2]);
	c->b = now_ns();
	rc = fn(dev(c, v[1]), &m);
	c->a = now_ns();
	return out(c, "mem2", rc, "total=%llu used=%llu free=%llu", m.total, m.used, m.free);
}

/* fields:DEV:ID,ID,...  prints fID=rc/value for each. */
static int
cmd_fields(struct client *c, char **v)
{
	int	(*fn)(handle_t, int, struct field *) =
	    (int (*)(handle_t, int, struct field *))sym(c, "nvmlDeviceGetFieldValues");
	struct field f[16];
	char	*s = v[2], *tok, *save = NULL;
	int	 n = 0, rc;

	memset(f, 0, sizeof(f));
	for (tok = strtok_r(s, ",", &save); tok && n < 16; tok = strtok_r(NULL, ",", &save))
		f[n++].id = (unsigned)num(tok);
	c->b = now_ns();
	rc = fn(dev(c, v[1]), n, f);
	c->a = now_ns();
	printf("cmd=fields rc=%d b=%lld a=%lld", rc, (long long)c->b, (long long)c->a);
	for (int i = 0; i < n; i++)
		printf(" f%u=%d/%llu", f[i].id, f[i].rc,
		    f[i].type == 3 ? f[i].v.ull : (unsigned long long)f[i].v.ui);
	putchar('\n');
	return 0;
}

/* procutil:DEV:N:LAST  (N = -1 passes a NULL buffer) */
static int
cmd_procutil(struct client *c, char **v)
{
	int	(*fn)(handle_t, struct putil *, unsigned *, unsigned long long) =
	    (int (*)(handle_t, struct putil *, unsigned *, unsigned long long))
	    sym(c, "nvmlDeviceGetProcessUtilization");
	long	 n = strtol(v[2], NULL, 10);
	struct putil *buf = n >= 0 ? calloc((size_t)n + 1, sizeof(*buf)) : NULL;
	unsigned cnt = n >= 0 ? (unsigned)n : 0;
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), buf, &cnt, num(v[3]));
	c->a = now_ns();
	printf("cmd=procutil rc=%d b=%lld a=%lld count=%u", rc, (long long)c->b,
	    (long long)c->a, cnt);
	for (unsigned i = 0; rc == 0 && i < cnt && i < 64; i++)
		printf(" p%u=%u/%u/%llu", buf[i].pid, buf[i].sm, buf[i].mem, buf[i].ts);
	putchar('\n');
	free(buf);
	return 0;
}

/* procinfo:DEV:N:VERSION  (N = -1 passes a NULL array) */
static int
cmd_procinfo(struct client *c, char **v)
{
	int	(*fn)(handle_t, struct pinfos *) =
	    (int (*)(handle_t, struct pinfos *))sym(c, "nvmlDeviceGetProcessesUtilizationInfo");
	long	 n = strtol(v[2], NULL, 10);
	struct pinfos pi = { (unsigned)num(v[3]), n >= 0 ? (unsigned)n : 0, 0, NULL };
	int	 rc;

	if (n >= 0)
		pi.array = calloc((size_t)n + 1, sizeof(*pi.array));
	c->b = now_ns();
	rc = fn(dev(c, v[1]), &pi);
	c->a = now_ns();
	printf("cmd=procinfo rc=%d b=%lld a=%lld count=%u", rc, (long long)c->b,
	    (long long)c->a, pi.count);
	for (unsigned i = 0; rc == 0 && i < pi.count && i < 8; i++)
		printf(" p%u=%u/%u", pi.array[i].pid, pi.array[i].sm, pi.array[i].mem);
	putchar('\n');
	free(pi.array);
	return 0;
}

/* running:DEV:N  (_v3; N = -1 passes NULL with *count = 0) */
static int
cmd_running(struct client *c, char **v)
{
	int	(*fn)(handle_t, unsigned *, struct proc2 *) = (int (*)(handle_t, unsigned *,
	    struct proc2 *))sym(c, "nvmlDeviceGetComputeRunningProcesses_v3");
	long	 n = strtol(v[2], NULL, 10);
	struct proc2 *buf = n >= 0 ? calloc((size_t)n + 1, sizeof(*buf)) : NULL;
	unsigned cnt = n >= 0 ? (unsigned)n : 0;
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), &cnt, buf);
	c->a = now_ns();
	out(c, "running", rc, "count=%u first=%u", cnt, rc == 0 && cnt > 0 ? buf[0].pid : 0);
	free(buf);
	return 0;
}

/* samples:DEV:N:LAST  (N = -1 passes a NULL buffer) */
static int
cmd_samples(struct client *c, char **v)
{
	int	(*fn)(handle_t, int, unsigned long long, int *, unsigned *, struct sample *) =
	    (int (*)(handle_t, int, unsigned long long, int *, unsigned *, struct sample *))
	    sym(c, "nvmlDeviceGetSamples");
	long	 n = strtol(v[2], NULL, 10);
	struct sample *buf = n >= 0 ? calloc((size_t)n + 1, sizeof(*buf)) : NULL;
	unsigned cnt = n >= 0 ? (unsigned)n : 0;
	int	 type = -1, rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), 0, num(v[3]), &type, &cnt, buf);
	c->a = now_ns();
	out(c, "samples", rc, "count=%u type=%d last=%llu", cnt, type,
	    rc == 0 && buf != NULL && cnt > 0 ? buf[cnt - 1].ts : 0);
	free(buf);
	return 0;
}

static int
cmd_viol(struct client *c, char **v)
{
	int	(*fn)(handle_t, int, struct viol *) =
	    (int (*)(handle_t, int, struct viol *))sym(c, "nvmlDeviceGetViolationStatus");
	struct viol vt = { 0, 0 };
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), (int)num(v[2]), &vt);
	c->a = now_ns();
	return out(c, "viol", rc, "ref=%llu ns=%llu", vt.ref, vt.ns);
}

/* Calls of the form f(handle, unsigned *count, unsigned *array): N = -1 is NULL. */
static int
call_list(struct client *c, char **v, const char *name)
{
	int	(*fn)(handle_t, unsigned *, unsigned *) =
	    (int (*)(handle_t, unsigned *, unsigned *))sym(c, name);
	long	 n = strtol(v[2], NULL, 10);
	unsigned *buf = n >= 0 ? calloc((size_t)n + 1, sizeof(*buf)) : NULL;
	unsigned cnt = n >= 0 ? (unsigned)n : 0;
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), &cnt, buf);
	c->a = now_ns();
	out(c, v[0], rc, "count=%u first=%u", cnt, rc == 0 && cnt > 0 ? buf[0] : 0);
	free(buf);
	return 0;
}

static int
cmd_acctpids(struct client *c, char **v)
{
	return call_list(c, v, "nvmlDeviceGetAccountingPids");
}

static int
cmd_vgpus(struct client *c, char **v)
{
	return call_list(c, v, "nvmlDeviceGetActiveVgpus");
}

static int
cmd_acctstats(struct client *c, char **v)
{
	int	(*fn)(handle_t, unsigned, struct acct *) =
	    (int (*)(handle_t, unsigned, struct acct *))sym(c, "nvmlDeviceGetAccountingStats");
	struct acct st;
	int	 rc;

	memset(&st, 0, sizeof(st));
	c->b = now_ns();
	rc = fn(dev(c, v[1]), (unsigned)num(v[2]), &st);
	c->a = now_ns();
	return out(c, "acctstats", rc, "gpu=%u mem=%u maxmem=%llu running=%u time=%llu",
	    st.gpu, st.mem, st.maxmem, st.running, st.time);
}

/* vgpuutil:DEV:N:LAST  (N = -1 passes a NULL buffer) */
static int
cmd_vgpuutil(struct client *c, char **v)
{
	int	(*fn)(handle_t, unsigned long long, int *, unsigned *, struct vsample *) =
	    (int (*)(handle_t, unsigned long long, int *, unsigned *, struct vsample *))
	    sym(c, "nvmlDeviceGetVgpuUtilization");
	long	 n = strtol(v[2], NULL, 10);
	struct vsample *buf = n >= 0 ? calloc((size_t)n + 1, sizeof(*buf)) : NULL;
	unsigned cnt = n >= 0 ? (unsigned)n : 0;
	int	 type = -1, rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), num(v[3]), &type, &cnt, buf);
	c->a = now_ns();
	out(c, "vgpuutil", rc, "count=%u type=%d first=%u sm=%u", cnt, type,
	    rc == 0 && cnt > 0 ? buf[0].id : 0, rc == 0 && cnt > 0 ? (unsigned)buf[0].sm : 0);
	free(buf);
	return 0;
}

/* lockgpu and lockmem: DEV MIN MAX, each bound in MHz or a word such as 0xffffff01. */
static int
cmd_lock(struct client *c, char **v)
{
	bool	 is_mem = strcmp(v[0], "lockmem") == 0;
	int	(*fn)(handle_t, unsigned, unsigned) =
	    (int (*)(handle_t, unsigned, unsigned))sym(c, is_mem ?
	    "nvmlDeviceSetMemoryLockedClocks" : "nvmlDeviceSetGpuLockedClocks");
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]), (unsigned)num(v[2]), (unsigned)num(v[3]));
	c->a = now_ns();
	return out(c, v[0], rc, NULL);
}

/* resetgpu and resetmem: DEV. */
static int
cmd_reset(struct client *c, char **v)
{
	bool	 is_mem = strcmp(v[0], "resetmem") == 0;
	int	(*fn)(handle_t) = (int (*)(handle_t))sym(c, is_mem ?
	    "nvmlDeviceResetMemoryLockedClocks" : "nvmlDeviceResetGpuLockedClocks");
	int	 rc;

	c->b = now_ns();
	rc = fn(dev(c, v[1]));
	c->a = now_ns();
	return out(c, v[0], rc, NULL);
}

static int
cmd_errstr(struct client *c, char **v)
{
	const char *(*fn)(int) = (const char *(*)(int))sym(c, "nvmlErrorString");

	c->b = c->a = now_ns();
	return out(c, "errstr", 0, "value='%s'", fn((int)num(v[1])));
}

static void
sleep_ns(int64_t ns)
{
	struct timespec	 ts;

	if (ns <= 0)
		return;
	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static int
cmd_sleep(struct client *c, char **v)
{
	(void)c;
	sleep_ns((int64_t)num(v[1]) * 1000000);
	return 0;
}

/* Sleep until MS after the first successful init. */
static int
cmd_until(struct client *c, char **v)
{
	sleep_ns(c->t_init + (int64_t)num(v[1]) * 1000000 - now_ns());
	return 0;
}

/* Fork N children that wait to be killed: a process tree for "tree" lines. */
static int
cmd_fork(struct client *c, char **v)
{
	unsigned long long n = num(v[1]);
	pid_t	 pid;

	for (unsigned long long i = 0; i < n && c->nkids < MAXCHILD; i++) {
		if ((pid = fork()) == -1)
			return -1;
		if (pid == 0) {
			pause();
			_exit(0);
		}
		c->kids[c->nkids++] = pid;
		printf("cmd=fork rc=0 b=0 a=0 pid=%ld self=%ld\n", (long)pid, (long)getpid());
	}
	fflush(stdout);
	return 0;
}

static const struct command commands[] = {
	{ "init",	cmd_init,	0 },
	{ "init1",	cmd_init,	0 },
	{ "shutdown",	cmd_shutdown,	0 },
	{ "count",	cmd_count,	0 },
	{ "handle",	cmd_handle,	1 },
	{ "badhandle",	cmd_badhandle,	0 },
	{ "name",	cmd_string,	2 },
	{ "uuid",	cmd_string,	2 },
	{ "pci",	cmd_pci,	1 },
	{ "power",	cmd_power,	1 },
	{ "energy",	cmd_energy,	1 },
	{ "pstate",	cmd_pstate,	1 },
	{ "limit",	cmd_limit,	1 },
	{ "virt",	cmd_virt,	1 },
	{ "clock",	cmd_clock,	2 },
	{ "mem2",	cmd_mem2,	2 },
	{ "fields",	cmd_fields,	2 },
	{ "procutil",	cmd_procutil,	3 },
	{ "procinfo",	cmd_procinfo,	3 },
	{ "running",	cmd_running,	2 },
	{ "samples",	cmd_samples,	3 },
	{ "viol",	cmd_viol,	2 },
	{ "acctpids",	cmd_acctpids,	2 },
	{ "acctstats",	cmd_acctstats,	2 },
	{ "vgpus",	cmd_vgpus,	2 },
	{ "vgpuutil",	cmd_vgpuutil,	3 },
	{ "lockgpu",	cmd_lock,	3 },
	{ "lockmem",	cmd_lock,	3 },
	{ "resetgpu",	cmd_reset,	1 },
	{ "resetmem",	cmd_reset,	1 },
	{ "errstr",	cmd_errstr,	1 },
	{ "sleep",	cmd_sleep,	1 },
	{ "until",	cmd_until,	1 },
	{ "fork",	cmd_fork,	1 },
};

static int
run(struct client *c, char *arg)
{
	char	*v[8], *save = NULL;
	int	 n = 0;

	for (char *t = strtok_r(arg, ":", &save); t && n < 8; t = strtok_r(NULL, ":", &save))
		v[n++] = t;
	for (size_t i = 0; n > 0 && i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(v[0], commands[i].name) != 0)
			continue;
		if (n - 1 != commands[i].nargs)
			break;
		return commands[i].fn(c, v);
	}
	fprintf(stderr, "nvsim_client: bad command '%s'\n", arg);
	return -1;
}

static void
reap(struct client *c)
{
	for (int i = 0; i < c->nkids; i++) {
		kill(c->kids[i], SIGKILL);
		waitpid(c->kids[i], NULL, 0);
	}
}

int
main(int argc, char **argv)
{
	struct client	 c;
	int		 rc = 0;

	memset(&c, 0, sizeof(c));
	if (argc < 2) {
		fprintf(stderr, "usage: nvsim_client LIB CMD[:ARG...]...\n");
		return 2;
	}
	if ((c.lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "nvsim_client: %s\n", dlerror());
		return 2;
	}
	for (int i = 2; rc == 0 && i < argc; i++)
		rc = run(&c, argv[i]);
	reap(&c);
	return rc == 0 ? 0 : 1;
}
