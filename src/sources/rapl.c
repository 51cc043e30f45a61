/*
 * The CPU package backend: RAPL energy counters of the
 * powercap framework, /sys/class/powercap/intel-rapl:N (one zone per
 * package or die, on Intel and on AMD Zen) and their dram subzones.  Core
 * and uncore subzones are part of their package and psys covers the whole
 * platform, so they are left out: no energy is counted twice.  The
 * intel-rapl-mmio zones repeat the package counter and are skipped too.
 *
 * energy_uj is the raw hardware counter times its unit: it wraps at
 * max_energy_range_uj and the kernel does not extend it.  This backend
 * unwraps it and hands on a monotonic counter in mJ with no range, so the
 * accounting never sees a wrap and no precision is lost there.  A wrap can
 * be missed only when two readings are further apart than range / power;
 * device.max_gap_ns asks the loop to read at least every
 * range / (2 * max power).  There is no power reading and no P-state.
 *
 * energy_uj has been readable by root only since the 2020 PLATYPUS fix;
 * without access the backend finds no device and says so in one line.
 * All state lives in the devices' priv; no file-scope mutable state.
 * What is parsed or computed without I/O is in rapl_parse.c.
 */
#include "joulestat/source.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/backend.h"
#include "joulestat/devsel.h"
#include "joulestat/proctree.h"
#include "joulestat/util.h"

#include "rapl_parse.h"

#define RAPL_ZONES_MAX		128
#define RAPL_CONSTRAINTS_MAX	3
/* Assumed when a zone names no power at all: far above any CPU package. */
#define RAPL_DEFAULT_MAX_POWER_UW (UINT64_C(1000) * 1000 * 1000)

/*
 * powercap files: Documentation/power/powercap/powercap.rst and
 * Documentation/ABI/testing/sysfs-class-powercap.
 */
static const char rapl_f_class[] = "class/powercap";
static const char rapl_f_zone[] = "intel-rapl:";
static const char rapl_f_name[] = "name";
static const char rapl_f_energy[] = "energy_uj";
static const char rapl_f_range[] = "max_energy_range_uj";
static const char rapl_f_max_power[] = "constraint_%d_max_power_uw";
static const char rapl_f_limit[] = "constraint_%d_power_limit_uw";

static const char rapl_denied_hint[] = "energy_uj has been root-only since the 2020 "
    "PLATYPUS fix; run as root, or have an administrator grant read access";

/* One zone found under class/powercap: "intel-rapl:TOP" or "intel-rapl:TOP:SUB". */
struct rapl_entry {
	unsigned	 top;
	int		 sub;			/* -1 for a top-level zone */
	char		 dir[32];
	bool		 has_name;		/* its name file was read and understood: */
	struct rapl_name name;
	char		 text[64];		/* ... "package-0", as written */
	bool		 is_repeat;		/* a die zone that reads an earlier one's counter */
	unsigned	 ndies;			/* die zones that read this one's counter */
};

/* One measured zone: devs[i].priv. */
struct rapl_zone {
	int		 fd;			/* energy_uj, kept open */
	char		 dir[32];
	uint64_t	 range_uj;		/* max_energy_range_uj */
	uint64_t	 max_power_uw;
	int64_t		 wrap_ns;		/* the shortest time one wrap can take */
	bool		 has_prev;
	uint64_t	 prev_uj;
	int64_t		 prev_t_ns;
	uint64_t	 total_uj;		/* unwrapped */
	uint64_t	 failed;		/* reads that failed after the first good one */
	uint64_t	 late;			/* intervals longer than wrap_ns */
};

/* Defined at the end, after the functions it names. */
extern const struct source_ops rapl_ops;

/* A value file of zone dir; 0 or a negative errno. */
static int
rapl_read_value(int classfd, const char *dir, const char *file, uint64_t *v)
{
	char	path[96], buf[64];
	ssize_t	n;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((n = read_file(classfd, path, buf, sizeof buf)) < 0)
		return (int)n;
	return rapl_parse_value(buf, v);
}

static int
rapl_read_name(int classfd, const char *dir, struct rapl_name *name, char *text, size_t size)
{
	char	path[96];

	snprintf(path, sizeof path, "%s/%s", dir, rapl_f_name);
	if (read_file(classfd, path, text, size) <= 0 || rapl_parse_name(text, name) != 0)
		return -1;
	text[strcspn(text, "\n")] = '\0';
	return 0;
}

/* ---- sample ----------------------------------------------------------- */

/*
 * One reading of zone z at t_ns: unwrap and add.  A failed read gives no
 * energy (never the last total again, which would read as 0 W): the next
 * good one's delta covers the stretch, unless a wrap was missed meanwhile.
 */
static void
rapl_sample_zone(struct rapl_zone *z, struct sample *s)
{
	char		buf[64];
	uint64_t	uj;

	memset(s, 0, sizeof *s);
	s->pstate = PSTATE_UNKNOWN;
	s->t_ns = now_ns();
	if (pread_text(z->fd, buf, sizeof buf) <= 0 || rapl_parse_value(buf, &uj) != 0) {
		if (z->has_prev)
			z->failed++;
		return;
	}
	if (!z->has_prev) {
		z->has_prev = true;
		z->total_uj = uj;
	} else {
		if (z->wrap_ns > 0 && s->t_ns - z->prev_t_ns > z->wrap_ns)
			z->late++;
		z->total_uj += rapl_unwrap(z->prev_uj, uj, z->range_uj);
	}
	z->prev_uj = uj;
	z->prev_t_ns = s->t_ns;
	s->energy_mj = z->total_uj / 1000;
	s->valid = M_ENERGY;
	s->read_ns = now_ns() - s->t_ns;
}

static int
rapl_sample(struct device *devs, size_t ndev, const struct proctree *tree,
    struct sample *out, struct pid_usage_set *pids, struct errbuf *err)
{
	size_t	i;

	(void)tree;
	(void)pids;
	(void)err;
	for (i = 0; i < ndev; i++)
		rapl_sample_zone(devs[i].priv, &out[i]);
	return 0;
}

/* ---- probe ------------------------------------------------------------ */

static int
rapl_entry_cmp(const void *a, const void *b)
{
	const struct rapl_entry	*x = a, *y = b;

	if (x->top != y->top)
		return x->top < y->top ? -1 : 1;
	return (x->sub > y->sub) - (x->sub < y->sub);
}

/* "intel-rapl:N" or "intel-rapl:N:M" into the rapl_entry at elem; false for anything else. */
static bool
rapl_parse_entry(const char *name, void *elem)
{
	struct rapl_entry	*e = elem;
	char			 num[16];
	const char		*p, *colon;
	uint64_t		 top, sub;
	size_t			 len;

	if (strncmp(name, rapl_f_zone, strlen(rapl_f_zone)) != 0 || strlen(name) >= sizeof e->dir)
		return false;
	p = name + strlen(rapl_f_zone);
	colon = strchr(p, ':');
	len = colon != NULL ? (size_t)(colon - p) : strlen(p);
	if (len == 0 || len >= sizeof num)
		return false;
	memcpy(num, p, len);
	num[len] = '\0';
	if (parse_u64_range(num, 0, UINT32_MAX, &top) != 0)
		return false;
	e->top = (unsigned)top;
	e->sub = -1;
	if (colon != NULL) {
		if (parse_u64_range(colon + 1, 0, INT32_MAX, &sub) != 0)
			return false;
		e->sub = (int)sub;
	}
	snprintf(e->dir, sizeof e->dir, "%s", name);
	return true;
}

/*
 * The highest power the zone names in its constraints (maximum or limit),
 * else RAPL_DEFAULT_MAX_POWER_UW.
 */
static uint64_t
rapl_max_power(int classfd, const char *dir)
{
	char		file[48];
	uint64_t	v, best = 0;
	int		c;

	for (c = 0; c < RAPL_CONSTRAINTS_MAX; c++) {
		snprintf(file, sizeof file, rapl_f_max_power, c);
		if (rapl_read_value(classfd, dir, file, &v) == 0 && v > best)
			best = v;
		snprintf(file, sizeof file, rapl_f_limit, c);
		if (rapl_read_value(classfd, dir, file, &v) == 0 && v > best)
			best = v;
	}
	return best > 0 ? best : RAPL_DEFAULT_MAX_POWER_UW;
}

/*
 * Id and name of a package zone, or of the dram subzone of package pkg.
 * Die zones that all read one counter are the package.
 */
static void
rapl_identify(struct device *dev, const struct rapl_name *name, const char *text,
    const char *pkg, unsigned ndies)
{
	if (name->kind == RAPL_DRAM) {
		snprintf(dev->id, sizeof dev->id, "%s/dram", pkg);
		snprintf(dev->name, sizeof dev->name, "DRAM of %s", pkg);
	} else if (name->die >= 0 && ndies > 1) {
		snprintf(dev->id, sizeof dev->id, "package-%u", name->package);
		snprintf(dev->name, sizeof dev->name, "CPU package %u", name->package);
	} else if (name->die >= 0) {
		snprintf(dev->id, sizeof dev->id, "%s", text);
		snprintf(dev->name, sizeof dev->name, "CPU package %u die %d", name->package,
		    name->die);
	} else {
		snprintf(dev->id, sizeof dev->id, "%s", text);
		snprintf(dev->name, sizeof dev->name, "CPU package %u", name->package);
	}
}

/*
 * Open zone e as device dev.  *idx counts the zones we measure, selected
 * or not, so that an index means the same zone whatever -d says.
 * Returns 0, -EACCES when energy_uj is refused, or -1 when the zone is not
 * one we measure or not selected.
 */
static int
rapl_probe_zone(int classfd, const struct rapl_entry *e, const char *pkg, unsigned *idx,
    struct devsel *sel, struct device *dev)
{
	struct rapl_zone	*z;
	char			 path[96], range_text[32];
	uint64_t		 range;
	int			 fd;

	if (!e->has_name || (!(e->sub < 0 && e->name.kind == RAPL_PACKAGE) &&
	    !(e->sub >= 0 && e->name.kind == RAPL_DRAM)))
		return -1;
	memset(dev, 0, sizeof *dev);
	rapl_identify(dev, &e->name, e->text, pkg, e->ndies);
	(*idx)++;
	if (!devsel_match(sel, &(struct devsel_dev){ .backend = "rapl", .local = dev->id,
	    .id = dev->id, .family = DEVSEL_F_NONE }, &dev->number))
		return -1;
	if (rapl_read_value(classfd, e->dir, rapl_f_range, &range) != 0)
		range = 0;
	snprintf(path, sizeof path, "%s/%s", e->dir, rapl_f_energy);
	if ((fd = openat(classfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == EACCES || errno == EPERM ? -EACCES : -1;
	z = xcalloc(1, sizeof *z);
	z->fd = fd;
	z->range_uj = range;
	z->max_power_uw = rapl_max_power(classfd, e->dir);
	z->wrap_ns = 2 * rapl_max_gap_ns(range, z->max_power_uw);
	snprintf(z->dir, sizeof z->dir, "%s", e->dir);
	dev->ops = &rapl_ops;
	dev->index = *idx - 1;
	dev->priv = z;
	dev->measures = M_ENERGY;
	dev->is_cpu_package = e->name.kind == RAPL_PACKAGE;
	dev->max_gap_ns = rapl_max_gap_ns(range, z->max_power_uw);
	snprintf(dev->version, sizeof dev->version, "powercap intel-rapl");
	snprintf(range_text, sizeof range_text, "%" PRIu64 "uJ", range);
	backend_how(dev, "energy", path);
	backend_how(dev, "range", range_text);
	if (range == 0)
		backend_note(dev, "max_energy_range_uj is unknown: a wrap of the counter is taken "
		    "for a reset and that interval is lost");
	if (e->ndies > 1)
		backend_note(dev, "the %u die zones of package %u read one counter (AMD's is "
		    "the package's) and are counted once", e->ndies, e->name.package);
	return 0;
}

/* Two zones whose energy_uj reads the same non-zero value (tried 3 times). */
static bool
rapl_same_counter(int classfd, const char *a, const char *b)
{
	uint64_t	va, vb;
	int		k;

	for (k = 0; k < 3; k++) {
		if (rapl_read_value(classfd, a, rapl_f_energy, &va) != 0 ||
		    rapl_read_value(classfd, b, rapl_f_energy, &vb) != 0)
			return false;
		if (va == vb)
			return va != 0;
	}
	return false;
}

/* A top-level zone named "package-N-die-D". */
static bool
is_die_zone(const struct rapl_entry *e)
{
	return e->sub < 0 && e->has_name && e->name.kind == RAPL_PACKAGE && e->name.die >= 0;
}

/*
 * Read every zone's name, once, and mark the die zones of one package
 * that read one counter.  Kernels that name zones per die on AMD
 * ("package-0-die-1") give every die the package's counter
 * (MSR_AMD_PKG_ENERGY_STATUS is per socket), which would count the
 * package once per die; Intel's multi-die parts have a counter per die,
 * and they differ.  The first such zone stands for the package; the rest,
 * and their subzones (which follow their zone: v is sorted), are skipped.
 */
static void
rapl_read_names(int classfd, struct rapl_entry *v, size_t n)
{
	size_t	i, j, top = n;

	for (i = 0; i < n; i++) {
		v[i].has_name = rapl_read_name(classfd, v[i].dir, &v[i].name, v[i].text,
		    sizeof v[i].text) == 0;
		v[i].ndies = 1;
		if (v[i].sub >= 0) {
			v[i].is_repeat = top < n && v[top].top == v[i].top && v[top].is_repeat;
			continue;
		}
		top = i;
		for (j = 0; j < i && is_die_zone(&v[i]); j++) {
			if (is_die_zone(&v[j]) && !v[j].is_repeat &&
			    v[j].name.package == v[i].name.package &&
			    rapl_same_counter(classfd, v[j].dir, v[i].dir)) {
				v[i].is_repeat = true;
				v[j].ndies++;
				break;
			}
		}
	}
}

static int
rapl_probe(const struct source_config *sc, struct device **devs, size_t *ndev,
    struct errbuf *err)
{
	struct rapl_entry	*v;
	char			 pkg[64], path[PATH_MAX];
	size_t			 n, i, top = SIZE_MAX, ndenied = 0;
	unsigned		 idx = 0;
	int			 classfd, r;

	*devs = NULL;
	*ndev = 0;
	snprintf(path, sizeof path, "%s/%s", sc->sysfs_root, rapl_f_class);
	/* No powercap (a VM, another architecture): nothing here, and nothing to say. */
	if ((classfd = backend_open_dir(AT_FDCWD, path)) == -1)
		return 0;
	v = xcalloc(RAPL_ZONES_MAX, sizeof *v);
	/* Every intel-rapl zone, sorted: each package, then its subzones. */
	n = backend_list_dir(classfd, v, RAPL_ZONES_MAX, sizeof *v, rapl_parse_entry,
	    rapl_entry_cmp);
	rapl_read_names(classfd, v, n);
	*devs = xcalloc(n > 0 ? n : 1, sizeof **devs);
	for (i = 0; i < n; i++) {
		if (v[i].sub < 0)
			top = i;
		if (v[i].is_repeat)
			continue;
		/* The name of the package zone ("package-0"), for its subzones' ids. */
		if (top != SIZE_MAX && v[top].top == v[i].top && v[top].has_name)
			snprintf(pkg, sizeof pkg, "%s", v[top].text);
		else
			snprintf(pkg, sizeof pkg, "package-%u", v[i].top);
		r = rapl_probe_zone(classfd, &v[i], pkg, &idx, sc->sel, &(*devs)[*ndev]);
		if (r == 0)
			(*ndev)++;
		else if (r == -EACCES)
			ndenied++;
	}
	if (ndenied > 0)
		errbuf_set(err, "%zu zone%s not readable (permission denied): %s", ndenied,
		    ndenied == 1 ? "" : "s", rapl_denied_hint);
	if (*ndev == 0) {
		free(*devs);
		*devs = NULL;
	}
	free(v);
	close(classfd);
	return 0;
}

/* ---- finish and close ------------------------------------------------- */

static void
rapl_note_counts(struct device *devs, size_t ndev)
{
	struct rapl_zone	*z;
	size_t			 i;

	for (i = 0; i < ndev; i++) {
		z = devs[i].priv;
		if (z->late > 0)
			backend_note(&devs[i], "%" PRIu64 " interval%s longer than the counter's "
			    "shortest wrap time (%.0f s): wraps may have been missed", z->late,
			    z->late == 1 ? " was" : "s were", (double)z->wrap_ns / 1e9);
		if (z->failed > 0)
			backend_note(&devs[i], "%" PRIu64 " reading%s of %s/%s failed; the next "
			    "good reading's delta covers them", z->failed, z->failed == 1 ? "" : "s",
			    z->dir, rapl_f_energy);
		z->late = z->failed = 0;
	}
}

static void
rapl_close(struct device *devs, size_t ndev)
{
	struct rapl_zone	*z;
	size_t			 i;

	for (i = 0; i < ndev; i++) {
		z = devs[i].priv;
		close(z->fd);
		free(z);
		devs[i].priv = NULL;
	}
}

const struct source_ops rapl_ops = {
	.name = "rapl",
	.probe = rapl_probe,
	.sample = rapl_sample,
	.note_counts = rapl_note_counts,
	.close = rapl_close,
};
