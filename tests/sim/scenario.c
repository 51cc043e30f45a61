/*
 * The scenario parser: a strict, line-based reader of the text format
 * that tests/sim/README documents.  Each line is a keyword and its
 * arguments; one table maps keywords to handlers and says whether they
 * belong before the first "device" line (global) or inside a device block.
 * Any mistake stops the parse with a "file:line: reason" message, because
 * a simulator that guesses would certify tools that guess.  It does not
 * evaluate anything over time: model.c does.
 */
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The symbols a slow, fail or notsupported line may name: every one we export. */
static const char *const calls[] = {
	"nvmlInit_v2", "nvmlInit", "nvmlInitWithFlags", "nvmlShutdown", "nvmlErrorString",
	"nvmlSystemGetDriverVersion", "nvmlSystemGetNVMLVersion", "nvmlDeviceGetCount_v2",
	"nvmlDeviceGetCount", "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex",
	"nvmlDeviceGetName", "nvmlDeviceGetUUID", "nvmlDeviceGetIndex", "nvmlDeviceGetPciInfo_v3",
	"nvmlDeviceGetClockInfo", "nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetPerformanceState",
	"nvmlDeviceGetTemperature", "nvmlDeviceGetUtilizationRates",
	"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons",
	"nvmlDeviceGetMemoryInfo", "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetEnforcedPowerLimit",
	"nvmlDeviceGetPowerManagementLimit", "nvmlDeviceGetViolationStatus",
	"nvmlDeviceGetMigMode", "nvmlDeviceGetVirtualizationMode",
	"nvmlDeviceGetCudaComputeCapability", "nvmlDeviceGetPowerUsage",
	"nvmlDeviceGetTotalEnergyConsumption", "nvmlDeviceGetFieldValues", "nvmlDeviceGetSamples",
	"nvmlDeviceGetProcessUtilization", "nvmlDeviceGetProcessesUtilizationInfo",
	"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
	"nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses_v3",
	"nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses",
	"nvmlDeviceGetAccountingMode", "nvmlDeviceGetAccountingPids",
	"nvmlDeviceGetAccountingStats", "nvmlDeviceGetActiveVgpus", "nvmlDeviceGetVgpuUtilization",
	"nvmlDeviceSetGpuLockedClocks", "nvmlDeviceResetGpuLockedClocks",
	"nvmlDeviceSetMemoryLockedClocks", "nvmlDeviceResetMemoryLockedClocks",
	"nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetMigDeviceHandleByIndex",
	"nvmlDeviceGetDeviceHandleFromMigDeviceHandle", "nvmlDeviceIsMigDeviceHandle",
	"nvmlDeviceGetGpuInstanceId", "nvmlDeviceGetComputeInstanceId",
};

int
scn_perr(struct parser *p, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	n = snprintf(p->err, NVSIM_ERRLEN, "%s:%u: ", p->path, p->line);
	if (n < 0 || n >= NVSIM_ERRLEN)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, NVSIM_ERRLEN - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

bool
scenario_is_call(const char *name)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(calls[i], name) == 0)
			return true;
	return false;
}

/* Append one zeroed element to a growing array; NULL when out of memory. */
void *
scn_append(void *vp, size_t *n, size_t size)
{
	void	**v = vp;
	char	 *nv;

	nv = realloc(*v, (*n + 1) * size);
	if (nv == NULL)
		return NULL;
	*v = nv;
	memset(nv + *n * size, 0, size);
	return nv + (*n)++ * size;
}

int
scn_parse_num(struct parser *p, const char *what, const char *s, int base,
    unsigned long long max, unsigned long long *v)
{
	char	*end;

	if (*s == '\0' || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return scn_perr(p, "%s: '%s' is not a number", what, s);
	errno = 0;
	*v = strtoull(s, &end, base);
	if (*end != '\0')
		return scn_perr(p, "%s: '%s' is not a number", what, s);
	if (errno == ERANGE || *v > max)
		return scn_perr(p, "%s: %s is out of range (max %llu)", what, s, max);
	return 0;
}

int
scn_parse_uint(struct parser *p, const char *what, const char *s, unsigned max, unsigned *v)
{
	unsigned long long u;

	if (scn_parse_num(p, what, s, 10, max, &u) == -1)
		return -1;
	*v = (unsigned)u;
	return 0;
}

int
scn_parse_ms(struct parser *p, const char *what, const char *s, int64_t *v)
{
	unsigned long long u;

	if (scn_parse_num(p, what, s, 10, MAX_MS, &u) == -1)
		return -1;
	*v = (int64_t)u;
	return 0;
}

int
scn_parse_watts(struct parser *p, const char *s, double *w)
{
	char	*end;

	if (*s == '\0' || *s == '-' || *s == '+')
		return scn_perr(p, "power: '%s' is not a number of watts", s);
	*w = strtod(s, &end);
	if (*end != '\0' || !isfinite(*w))
		return scn_perr(p, "power: '%s' is not a number of watts", s);
	if (*w > MAX_WATTS)
		return scn_perr(p, "power: %s W is out of range", s);
	return 0;
}

/* yes/no, on/off, ...: the index of word in words, or -1 with a message. */
int
scn_parse_word(struct parser *p, const char *what, const char *s, const char *const *words)
{
	for (int i = 0; words[i] != NULL; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return scn_perr(p, "%s: unknown value '%s'", what, s);
}

static int
parse_bool(struct parser *p, const char *what, const char *s, bool *v)
{
	static const char *const words[] = { "no", "yes", "off", "on", NULL };
	int	 i;

	if ((i = scn_parse_word(p, what, s, words)) == -1)
		return -1;
	*v = (i % 2) == 1;
	return 0;
}

/* Split "key=value" in place; value is NULL when there is no '='. */
char *
scn_split_kv(char *arg)
{
	char	*eq;

	if ((eq = strchr(arg, '=')) == NULL)
		return NULL;
	*eq = '\0';
	return eq + 1;
}

static int
set_string(struct parser *p, const char *what, char *dst, size_t size, int argc, char **argv)
{
	size_t	 len = 0;

	dst[0] = '\0';
	for (int i = 1; i < argc; i++) {
		len += strlen(argv[i]) + (i > 1);
		if (len >= size)
			return scn_perr(p, "%s is longer than %zu bytes", what, size - 1);
		if (i > 1)
			strcat(dst, " ");
		strcat(dst, argv[i]);
	}
	return 0;
}

static int
kw_driver(struct parser *p, int argc, char **argv)
{
	return set_string(p, "driver version", p->sc->driver, sizeof(p->sc->driver), argc, argv);
}

static int
kw_nvml(struct parser *p, int argc, char **argv)
{
	return set_string(p, "NVML version", p->sc->nvml, sizeof(p->sc->nvml), argc, argv);
}

static int
kw_root(struct parser *p, int argc, char **argv)
{
	(void)argc;
	return parse_bool(p, "root", argv[1], &p->sc->is_root);
}

static int
kw_name(struct parser *p, int argc, char **argv)
{
	p->dev->has_name = true;
	return set_string(p, "name", p->dev->name, sizeof(p->dev->name), argc, argv);
}

static int
kw_uuid(struct parser *p, int argc, char **argv)
{
	(void)argc;
	if (strncmp(argv[1], "GPU-", 4) != 0)
		return scn_perr(p, "uuid: '%s' does not start with GPU-", argv[1]);
	p->dev->has_uuid = true;
	return set_string(p, "uuid", p->dev->uuid, sizeof(p->dev->uuid), 2, argv);
}

/* DOMAIN:BUS:DEVICE.FUNCTION in hex, as nvidia-smi prints it. */
static int
kw_busid(struct parser *p, int argc, char **argv)
{
	unsigned	 dom, bus, dev, fn;
	int		 used = 0;

	(void)argc;
	if (sscanf(argv[1], "%8x:%2x:%2x.%1x%n", &dom, &bus, &dev, &fn, &used) != 4 ||
	    argv[1][used] != '\0' || !isxdigit((unsigned char)argv[1][0]))
		return scn_perr(p, "busid: '%s' is not DOMAIN:BUS:DEVICE.FUNCTION", argv[1]);
	if (dev > 31 || fn != 0)
		return scn_perr(p, "busid: '%s': device above 31 or function not 0", argv[1]);
	p->dev->pci_domain = dom;
	p->dev->pci_bus = bus;
	p->dev->pci_device = dev;
	p->dev->has_busid = true;
	return 0;
}

static int
kw_pciid(struct parser *p, int argc, char **argv)
{
	unsigned long long v;

	if (scn_parse_num(p, "pciid", argv[1], 16, UINT32_MAX, &v) == -1)
		return -1;
	p->dev->pci_id = (unsigned)v;
	if (argc > 2 && scn_parse_num(p, "pciid subsystem", argv[2], 16, UINT32_MAX, &v) == -1)
		return -1;
	if (argc > 2)
		p->dev->pci_subsys = (unsigned)v;
	return 0;
}

/* The architectures by nvml.h's numbers, from Kepler (2). */
static int
kw_arch(struct parser *p, int argc, char **argv)
{
	static const char *const words[] = {
		"kepler", "maxwell", "pascal", "volta", "turing", "ampere", "ada", "hopper", NULL,
	};
	int	i;

	(void)argc;
	if ((i = scn_parse_word(p, "arch", argv[1], words)) == -1)
		return -1;
	p->dev->arch = 2 + (unsigned)i;
	return 0;
}

static int
kw_energy_counter(struct parser *p, int argc, char **argv)
{
	(void)argc;
	return parse_bool(p, "energy_counter", argv[1], &p->dev->has_energy);
}

static int
kw_energy_offset(struct parser *p, int argc, char **argv)
{
	(void)argc;
	return scn_parse_num(p, "energy_offset", argv[1], 10, UINT64_MAX / 2,
	    &p->dev->energy_offset_mj);
}

static int
kw_energy_update_ms(struct parser *p, int argc, char **argv)
{
	if (scn_parse_uint(p, "energy_update_ms", argv[1], 60000, &p->dev->energy_update_ms) != 0)
		return -1;
	if (argc > 2 && scn_parse_uint(p, "energy_update_ms phase", argv[2],
	    p->dev->energy_update_ms, &p->dev->energy_phase_ms) != 0)
		return -1;
	return 0;
}

static int
kw_power(struct parser *p, int argc, char **argv)
{
	static const char *const words[] = { "instant", "average1s", NULL };
	int	 i;

	(void)argc;
	if ((i = scn_parse_word(p, "power", argv[1], words)) == -1)
		return -1;
	p->dev->power = i == 0 ? POWER_INSTANT : POWER_AVERAGE_1S;
	return 0;
}

static int
kw_sample_ms(struct parser *p, int argc, char **argv)
{
	(void)argc;
	if (strcmp(argv[1], "none") == 0) {
		p->dev->sample_ms = 0;
		return 0;
	}
	if (scn_parse_uint(p, "sample_ms", argv[1], 60000, &p->dev->sample_ms) == -1)
		return -1;
	return p->dev->sample_ms == 0 ? scn_perr(p, "sample_ms: use 'none', not 0") : 0;
}

static int
kw_procutil_ms(struct parser *p, int argc, char **argv)
{
	(void)argc;
	if (scn_parse_uint(p, "procutil_ms", argv[1], 60000, &p->dev->procutil_ms) == -1)
		return -1;
	return p->dev->procutil_ms == 0 ? scn_perr(p, "procutil_ms must be above 0") : 0;
}

/* The idle power the attribution truth assumes (tests/sim/README, "Ground truth"). */
static int
kw_idle(struct parser *p, int argc, char **argv)
{
	unsigned long long	w;

	(void)argc;
	if (scn_parse_num(p, "idle", argv[1], 10, 100000, &w) == -1)
		return -1;
	p->dev->idle_w = (double)w;
	return 0;
}

/*
 * mig_device INDEX MIG-UUID GI CI NAME...: a MIG device of the board at
 * INDEX (below mig_max), as nvmlDeviceGetMigDeviceHandleByIndex finds it.
 */
static int
kw_mig_device(struct parser *p, int argc, char **argv)
{
	struct simmig	*m;
	unsigned	 index, gi, ci;

	if (scn_parse_uint(p, "mig_device index", argv[1], p->dev->mig_max - 1, &index) == -1 ||
	    scn_parse_uint(p, "mig_device gi", argv[3], UINT32_MAX, &gi) == -1 ||
	    scn_parse_uint(p, "mig_device ci", argv[4], UINT32_MAX, &ci) == -1)
		return -1;
	if (strncmp(argv[2], "MIG-", 4) != 0 || strlen(argv[2]) >= NVSIM_NAME_LEN)
		return scn_perr(p, "mig_device: '%s' is not a MIG-... UUID", argv[2]);
	for (size_t k = 0; k < p->dev->nmigs; k++)
		if (p->dev->migs[k].index == index)
			return scn_perr(p, "mig_device: index %u twice", index);
	if ((m = scn_append(&p->dev->migs, &p->dev->nmigs, sizeof(*m))) == NULL)
		return scn_perr(p, "out of memory");
	m->index = index;
	m->gi = gi;
	m->ci = ci;
	snprintf(m->uuid, sizeof m->uuid, "%s", argv[2]);
	return set_string(p, "mig_device name", m->name, sizeof(m->name), argc - 4, argv + 4);
}

static int
kw_mig(struct parser *p, int argc, char **argv)
{
	static const char *const words[] = { "off", "on", "unsupported", NULL };
	int	 i;

	(void)argc;
	if ((i = scn_parse_word(p, "mig", argv[1], words)) == -1)
		return -1;
	p->dev->mig = (enum mig_state)i;
	return 0;
}

static int
kw_virt(struct parser *p, int argc, char **argv)
{
	static const char *const words[] = { "none", "passthrough", "guest", "host", NULL };
	int	 i;

	(void)argc;
	if ((i = scn_parse_word(p, "virt", argv[1], words)) == -1)
		return -1;
	/* The words are in the order of nvmlGpuVirtualizationMode_t. */
	p->dev->virt = (nvmlGpuVirtualizationMode_t)i;
	return 0;
}

/* cuda_cc MAJOR.MINOR, both small decimal numbers: "8.6". */
static int
kw_cuda_cc(struct parser *p, int argc, char **argv)
{
	char		*dot = strchr(argv[1], '.');
	unsigned	 major, minor;

	(void)argc;
	if (dot == NULL)
		return scn_perr(p, "cuda_cc: '%s' is not MAJOR.MINOR", argv[1]);
	*dot = '\0';
	if (scn_parse_uint(p, "cuda_cc MAJOR", argv[1], 99, &major) == -1 ||
	    scn_parse_uint(p, "cuda_cc MINOR", dot + 1, 99, &minor) == -1)
		return -1;
	if (major == 0)
		return scn_perr(p, "cuda_cc: major 0");
	p->dev->cc_major = (int)major;
	p->dev->cc_minor = (int)minor;
	return 0;
}

static int
kw_accounting(struct parser *p, int argc, char **argv)
{
	(void)argc;
	return parse_bool(p, "accounting", argv[1], &p->dev->has_accounting);
}

static int
kw_power_limit(struct parser *p, int argc, char **argv)
{
	unsigned	 w[3];

	for (int i = 1; i < argc; i++)
		if (scn_parse_uint(p, "power_limit", argv[i], 100000, &w[i - 1]) == -1)
			return -1;
	if (argc == 3)
		return scn_perr(p, "power_limit takes WATTS or WATTS MIN MAX");
	if (argc == 4 && (w[1] > w[0] || w[0] > w[2]))
		return scn_perr(p, "power_limit: need MIN <= WATTS <= MAX");
	p->dev->limit_mw = w[0] * 1000;
	p->dev->limit_min_mw = argc == 4 ? w[1] * 1000 : w[0] * 500;
	p->dev->limit_max_mw = argc == 4 ? w[2] * 1000 : w[0] * 1000;
	return 0;
}

static int
kw_max_clocks(struct parser *p, int argc, char **argv)
{
	(void)argc;
	for (int i = 0; i < 3; i++)
		if (scn_parse_uint(p, "max_clocks", argv[i + 1], 100000, &p->dev->max_mhz[i]) == -1)
			return -1;
	return 0;
}

static int
kw_base_clock(struct parser *p, int argc, char **argv)
{
	(void)argc;
	if (scn_parse_uint(p, "base_clock", argv[1], 100000, &p->dev->base_mhz) == -1)
		return -1;
	return p->dev->base_mhz == 0 ? scn_perr(p, "base_clock must be above 0") : 0;
}

/* clock_absent TYPE...: GetClockInfo of these types answers NOT_SUPPORTED. */
static int
kw_clock_absent(struct parser *p, int argc, char **argv)
{
	static const char *const words[] = { "graphics", "sm", "mem", NULL };
	int	 i, k;

	for (k = 1; k < argc; k++) {
		/* The words are in the order of nvmlClockType_t. */
		if ((i = scn_parse_word(p, "clock_absent", argv[k], words)) == -1)
			return -1;
		p->dev->clock_absent |= 1u << i;
	}
	return 0;
}

static int
kw_lock_clocks(struct parser *p, int argc, char **argv)
{
	static const char *const words[] = { "supported", "gpuonly", "notsupported", NULL };
	int	 i;

	(void)argc;
	if ((i = scn_parse_word(p, "lock_clocks", argv[1], words)) == -1)
		return -1;
	/* The words are in the order of enum lock_support. */
	p->dev->lock_support = (enum lock_support)i;
	return 0;
}

static int
kw_memory(struct parser *p, int argc, char **argv)
{
	unsigned long long total, reserved = 0;

	if (scn_parse_num(p, "memory", argv[1], 10, 1ull << 30, &total) == -1)
		return -1;
	if (argc > 2 && scn_parse_num(p, "memory reserved", argv[2], 10, total, &reserved) == -1)
		return -1;
	p->dev->mem_total = total * MIB;
	p->dev->mem_reserved = reserved * MIB;
	return 0;
}

static int
dev_finish(struct parser *p)
{
	struct simdev	*d = p->dev;

	if (d == NULL)
		return 0;
	if (scn_phase_close_ramp(p, -1) == -1)
		return -1;
	if (!d->has_name || !d->has_uuid || !d->has_busid || d->nphases == 0) {
		p->line = p->dev_line;
		return scn_perr(p, "device %u needs name, uuid, busid and at least one phase",
		    d->index);
	}
	for (size_t i = 0; i < d->nphases; i++)
		d->phases[i].end_ms = i + 1 < d->nphases ? d->phases[i + 1].start_ms :
		    NVSIM_NEVER;
	return 0;
}

static int
kw_device(struct parser *p, int argc, char **argv)
{
	struct simdev	*d;
	unsigned	 idx;

	(void)argc;
	if (dev_finish(p) == -1 || scn_parse_uint(p, "device", argv[1], 1000, &idx) == -1)
		return -1;
	if (idx != p->sc->ndev)
		return scn_perr(p, "device %u: devices must be numbered 0, 1, ... in order", idx);
	if (idx >= NVSIM_MAX_DEVICES)
		return scn_perr(p, "more than %d devices", NVSIM_MAX_DEVICES);
	if ((d = scn_append(&p->sc->devs, &p->sc->ndev, sizeof(*d))) == NULL)
		return scn_perr(p, "out of memory");
	d->index = idx;
	d->has_energy = true;
	d->sample_ms = 20;
	d->procutil_ms = 100;
	d->idle_w = -1;
	d->tree_from_ms = 1;
	d->tree_to_ms = 0;
	d->limit_mw = 300000;
	d->limit_min_mw = 100000;
	d->limit_max_mw = 300000;
	d->mem_total = 16384 * MIB;
	d->pci_id = 0x20B010DE;
	d->pci_subsys = 0x134F10DE;
	d->mig_max = 7;				/* an A100's or H100's seven slices */
	p->dev = d;
	p->dev_line = p->line;
	p->prev_end = -1;
	return 0;
}

static const struct keyword keywords[] = {
	{ "driver",		kw_driver,		false,	2, MAXARGS },
	{ "nvml",		kw_nvml,		false,	2, MAXARGS },
	{ "root",		kw_root,		false,	2, 2 },
	{ "device",		kw_device,		false,	2, 2 },
	{ "name",		kw_name,		true,	2, MAXARGS },
	{ "uuid",		kw_uuid,		true,	2, 2 },
	{ "busid",		kw_busid,		true,	2, 2 },
	{ "pciid",		kw_pciid,		true,	2, 3 },
	{ "arch",		kw_arch,		true,	2, 2 },
	{ "energy_counter",	kw_energy_counter,	true,	2, 2 },
	{ "energy_offset",	kw_energy_offset,	true,	2, 2 },
	{ "energy_update_ms",	kw_energy_update_ms,	true,	2, 3 },
	{ "power",		kw_power,		true,	2, 2 },
	{ "sample_ms",		kw_sample_ms,		true,	2, 2 },
	{ "procutil_ms",	kw_procutil_ms,		true,	2, 2 },
	{ "idle",		kw_idle,		true,	2, 2 },
	{ "mig",		kw_mig,			true,	2, 2 },
	{ "mig_device",		kw_mig_device,		true,	6, MAXARGS },
	{ "virt",		kw_virt,		true,	2, 2 },
	{ "cuda_cc",		kw_cuda_cc,		true,	2, 2 },
	{ "accounting",		kw_accounting,		true,	2, 2 },
	{ "power_limit",	kw_power_limit,		true,	2, 4 },
	{ "max_clocks",		kw_max_clocks,		true,	4, 4 },
	{ "base_clock",		kw_base_clock,		true,	2, 2 },
	{ "lock_clocks",	kw_lock_clocks,		true,	2, 2 },
	{ "clock_absent",	kw_clock_absent,	true,	2, 4 },
	{ "memory",		kw_memory,		true,	2, 3 },
	{ "phase",		scn_kw_phase,		true,	2, MAXARGS },
	{ "tree",		scn_kw_tree,		true,	1, MAXARGS },
	{ "proc",		scn_kw_proc,		true,	2, MAXARGS },
	{ "proccount",		scn_kw_proccount,		true,	2, MAXARGS },
	{ "vgpu",		scn_kw_vgpu,		true,	2, MAXARGS },
	{ "lost",		scn_kw_lost,		true,	3, 3 },
	{ "reset",		scn_kw_reset,		true,	2, 2 },
	{ "slow",		scn_kw_slow,		false,	5, 5 },
	{ "notsupported",	scn_kw_notsupported,	false,	2, 2 },
	{ "fail",		scn_kw_fail,		false,	5, 5 },
};

/* slow, fail and notsupported are the keywords allowed in both places. */
static bool
is_anywhere(const struct keyword *k)
{
	return k->fn == scn_kw_slow || k->fn == scn_kw_fail || k->fn == scn_kw_notsupported;
}

static int
run_keyword(struct parser *p, int argc, char **argv)
{
	const struct keyword	*k = NULL;

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strcmp(argv[0], keywords[i].name) == 0)
			k = &keywords[i];
	if (k == NULL)
		return scn_perr(p, "unknown keyword '%s'", argv[0]);
	if (k->in_device && p->dev == NULL)
		return scn_perr(p, "'%s' belongs inside a device block", k->name);
	if (!k->in_device && !is_anywhere(k) && k->fn != kw_device && p->dev != NULL)
		return scn_perr(p, "'%s' must come before the first device", k->name);
	if (argc < k->min_args || argc > k->max_args)
		return scn_perr(p, "'%s' takes %d to %d arguments", k->name, k->min_args - 1,
		    k->max_args - 1);
	return k->fn(p, argc, argv);
}

static int
parse_line(struct parser *p, char *line)
{
	char	*argv[MAXARGS + 1], *hash, *save = NULL, *tok;
	int	 argc = 0;

	if ((hash = strchr(line, '#')) != NULL)
		*hash = '\0';
	for (tok = strtok_r(line, " \t\r\n", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == MAXARGS)
			return scn_perr(p, "more than %d words", MAXARGS);
		argv[argc++] = tok;
	}
	if (argc == 0)
		return 0;
	return run_keyword(p, argc, argv);
}

static int
parse_stream(struct parser *p, FILE *f)
{
	char	*line = NULL;
	size_t	 cap = 0;
	int	 rc = 0;

	while (rc == 0 && getline(&line, &cap, f) != -1) {
		p->line++;
		rc = parse_line(p, line);
	}
	free(line);
	if (rc == 0 && ferror(f))
		rc = scn_perr(p, "read error");
	if (rc == 0)
		rc = dev_finish(p);
	if (rc == 0 && p->sc->ndev == 0)
		rc = scn_perr(p, "no device in the scenario");
	return rc;
}

int
scenario_load(const char *path, struct scenario *sc, char *err)
{
	struct parser	 p = { .path = path, .sc = sc, .prev_end = -1, .err = err };
	FILE		*f;
	int		 rc;

	memset(sc, 0, sizeof(*sc));
	snprintf(sc->driver, sizeof(sc->driver), "%s", "550.54.15");
	snprintf(sc->nvml, sizeof(sc->nvml), "%s", "12.550.54.15");
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, NVSIM_ERRLEN, "%s: %s", path, strerror(errno));
		return -2;
	}
	rc = parse_stream(&p, f);
	fclose(f);
	if (rc == 0 && (sc->path = strdup(path)) == NULL)
		rc = scn_perr(&p, "out of memory");
	if (rc == -1)
		scenario_free(sc);
	return rc;
}

static void
dev_free(struct simdev *d)
{
	free(d->phases);
	free(d->procs);
	free(d->lost);
	free(d->resets);
	free(d->faults);
	free(d->vgpus);
	free(d->migs);
	free(d->acct);
}

void
scenario_free(struct scenario *sc)
{
	for (size_t i = 0; i < sc->ndev; i++)
		dev_free(&sc->devs[i]);
	free(sc->devs);
	free(sc->faults);
	free(sc->path);
	memset(sc, 0, sizeof(*sc));
}
