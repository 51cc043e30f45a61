/*
 * Pure parsers for the DRM backend (drm_parse.h): fdinfo key/value text,
 * pp_dpm_* tables, uevent, sysfs values.  The per-engine busy-time
 * bookkeeping and the idle-residency dither are in drm_engine.c.  No I/O.
 */
#include "drm_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "joulestat/util.h"

#define DRM_LINE_MAX	256	/* longer fdinfo lines hold no key of ours */

/*
 * fdinfo keys: Documentation/gpu/drm-usage-stats.rst (and the
 * proc_pid_fdinfo(5) DRM section built from it).  The prefixes are tried
 * in table order, so that drm-engine-capacity- is matched before
 * drm-engine- and drm-total-cycles- is never taken for a drm-total-
 * memory key.  The old amdgpu keys are those of amdgpu_fdinfo.c from
 * Linux 5.14 to 5.18, before the common drm- keys.
 */
static const char drm_key_driver[] = "drm-driver";
static const char drm_key_pdev[] = "drm-pdev";
static const char drm_key_client_id[] = "drm-client-id";
static const char drm_key_capacity[] = "drm-engine-capacity-";
static const char drm_key_engine[] = "drm-engine-";
static const char drm_key_total_cycles[] = "drm-total-cycles-";
static const char drm_key_cycles[] = "drm-cycles-";
static const char drm_key_resident[] = "drm-resident-";
static const char drm_key_memory[] = "drm-memory-";
static const char drm_key_old_pdev[] = "pdev";
static const char drm_key_old_pasid[] = "pasid";
static const char drm_key_old_vram[] = "vram mem";

/* Units, matched exactly. */
static const char drm_unit_ns[] = "ns";

/* amdgpu_ip_name[] ring classes of the old per-ring percentage lines, longest first. */
static const char *const drm_old_rings[] = {
	"compute", "enc_1", "jpeg", "gfx", "dma", "dec", "enc", "vpe",
};

/* Region names of device-local memory: amdgpu/xe "vram*", i915 "local*". */
static const char *const drm_dev_regions[] = { "vram", "local" };

/* Copy engine classes: amdgpu SDMA, i915 copy, xe blitter. */
static const char *const drm_copy_engines[] = { "dma", "copy", "bcs" };

/* Parsing state beyond what the result holds. */
struct drm_fdinfo_ctx {
	struct drm_fdinfo	*out;
	bool			 is_drm;
	bool			 has_resident;
	uint64_t		 resident_kib;
	bool			 has_memory;
	uint64_t		 memory_kib;
};

struct drm_key {
	const char	*key;
	bool		 is_prefix;
	void		(*fn)(struct drm_fdinfo_ctx *, const char *, const char *);
};

static void	drm_key_fn_driver(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_pdev(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_client_id(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_capacity(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_engine(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_total_cycles(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_cycles(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_resident(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_memory(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_old_pdev(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_old_pasid(struct drm_fdinfo_ctx *, const char *, const char *);
static void	drm_key_fn_old_vram(struct drm_fdinfo_ctx *, const char *, const char *);

static const struct drm_key drm_keys[] = {
	{ drm_key_driver,	false,	drm_key_fn_driver },
	{ drm_key_pdev,		false,	drm_key_fn_pdev },
	{ drm_key_client_id,	false,	drm_key_fn_client_id },
	{ drm_key_capacity,	true,	drm_key_fn_capacity },
	{ drm_key_engine,	true,	drm_key_fn_engine },
	{ drm_key_total_cycles,	true,	drm_key_fn_total_cycles },
	{ drm_key_cycles,	true,	drm_key_fn_cycles },
	{ drm_key_resident,	true,	drm_key_fn_resident },
	{ drm_key_memory,	true,	drm_key_fn_memory },
	{ drm_key_old_pdev,	false,	drm_key_fn_old_pdev },
	{ drm_key_old_pasid,	false,	drm_key_fn_old_pasid },
	{ drm_key_old_vram,	false,	drm_key_fn_old_vram },
};

/* ---- small helpers ---------------------------------------------------- */

/*
 * Split "123 unit" into the number and the unit (NULL when the value is a
 * bare number).  The unit follows exactly one space.  -EINVAL when the
 * number part is too long or empty.
 */
static int
drm_split_unit(const char *value, char *num, size_t size, const char **unit)
{
	const char	*sp = strchr(value, ' ');
	size_t		 len = sp != NULL ? (size_t)(sp - value) : strlen(value);

	if (len == 0 || len >= size)
		return -EINVAL;
	memcpy(num, value, len);
	num[len] = '\0';
	*unit = sp != NULL ? sp + 1 : NULL;
	return 0;
}

/* A number with exactly the unit given (NULL: no unit at all). */
static int
drm_parse_with_unit(const char *value, const char *want, uint64_t *out)
{
	char		 num[32];
	const char	*unit;

	if (drm_split_unit(value, num, sizeof num, &unit) != 0)
		return -EINVAL;
	if ((want == NULL) != (unit == NULL) || (want != NULL && strcmp(unit, want) != 0))
		return -EINVAL;
	return parse_u64(num, out);
}

static bool
drm_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The engine class called name, added when new; NULL when full or too long. */
static struct drm_engine *
drm_engine_get(struct drm_fdinfo *out, const char *name)
{
	struct drm_engine	*e;
	size_t			 i;

	if (name[0] == '\0' || strlen(name) >= DRM_NAME_MAX)
		return NULL;
	for (i = 0; i < out->nengines; i++) {
		if (strcmp(out->engines[i].name, name) == 0)
			return &out->engines[i];
	}
	if (out->nengines == DRM_ENGINES_MAX)
		return NULL;
	e = &out->engines[out->nengines++];
	memset(e, 0, sizeof *e);
	snprintf(e->name, sizeof e->name, "%s", name);
	e->capacity = 1;
	return e;
}

static bool
drm_is_dev_region(const char *region)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(drm_dev_regions); i++) {
		if (drm_has_prefix(region, drm_dev_regions[i]))
			return true;
	}
	return false;
}

/* ---- one handler per key ---------------------------------------------- */

static void
drm_key_fn_driver(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	(void)suffix;
	c->is_drm = true;
	snprintf(c->out->driver, sizeof c->out->driver, "%s", v);
}

static void
drm_key_fn_pdev(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	(void)suffix;
	if (strlen(v) >= sizeof c->out->pdev) {
		c->out->nbad++;
		return;
	}
	snprintf(c->out->pdev, sizeof c->out->pdev, "%s", v);
}

static void
drm_key_fn_client_id(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	(void)suffix;
	if (parse_u64(v, &c->out->client_id) == 0)
		c->out->has_client_id = true;
	else
		c->out->nbad++;
}

static void
drm_key_fn_capacity(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	struct drm_engine	*e;
	uint64_t		 n;

	/* "Capacity of the engine if not 1, cannot be 0." */
	if (parse_u64_range(v, 1, UINT32_MAX, &n) != 0 || (e = drm_engine_get(c->out, suffix)) ==
	    NULL) {
		c->out->nbad++;
		return;
	}
	e->capacity = n;
}

static void
drm_key_fn_engine(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	struct drm_engine	*e;
	uint64_t		 ns;

	if (drm_parse_with_unit(v, drm_unit_ns, &ns) != 0 ||
	    (e = drm_engine_get(c->out, suffix)) == NULL) {
		c->out->nbad++;
		return;
	}
	e->busy_ns = ns;
	e->has |= DRM_E_NS;
}

/* A plain counter of engine suffix: store it in the field at offset, mark has. */
static void
drm_engine_counter(struct drm_fdinfo_ctx *c, const char *suffix, const char *v, size_t offset,
    unsigned has)
{
	struct drm_engine	*e;
	uint64_t		 n;

	if (parse_u64(v, &n) != 0 || (e = drm_engine_get(c->out, suffix)) == NULL) {
		c->out->nbad++;
		return;
	}
	memcpy((char *)e + offset, &n, sizeof n);
	e->has |= has;
}

static void
drm_key_fn_total_cycles(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	drm_engine_counter(c, suffix, v, offsetof(struct drm_engine, total_cycles), DRM_E_TOTAL);
}

static void
drm_key_fn_cycles(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	drm_engine_counter(c, suffix, v, offsetof(struct drm_engine, cycles), DRM_E_CYCLES);
}

/* A size of memory region suffix: add it to *total when it is device memory. */
static void
drm_add_region(struct drm_fdinfo_ctx *c, const char *suffix, const char *v, bool *has,
    uint64_t *total)
{
	uint64_t	kib;

	if (drm_parse_size_kib(v, &kib) != 0) {
		c->out->nbad++;
		return;
	}
	if (drm_is_dev_region(suffix)) {
		*has = true;
		*total += kib;
	}
}

static void
drm_key_fn_resident(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	drm_add_region(c, suffix, v, &c->has_resident, &c->resident_kib);
}

/* Deprecated alias of drm-resident-, still printed by amdgpu. */
static void
drm_key_fn_memory(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	drm_add_region(c, suffix, v, &c->has_memory, &c->memory_kib);
}

static void
drm_key_fn_old_pdev(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	drm_key_fn_pdev(c, suffix, v);
	c->out->is_legacy = true;
}

static void
drm_key_fn_old_pasid(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	(void)suffix;
	if (parse_u64(v, &c->out->pasid) == 0)
		c->out->has_pasid = true;
	else
		c->out->nbad++;
}

static void
drm_key_fn_old_vram(struct drm_fdinfo_ctx *c, const char *suffix, const char *v)
{
	uint64_t	kib;

	(void)suffix;
	if (drm_parse_size_kib(v, &kib) != 0) {
		c->out->nbad++;
		return;
	}
	c->has_memory = true;
	c->memory_kib += kib;
}

/*
 * The percentage of an old amdgpu ring line.  The kernel (5.14 to 5.18)
 * prints it as "%d.%d%%" of the whole percent and the hundredths, not
 * zero-padded: "7.5%" is 7.05 %, "7.50%" is 7.5 %.
 */
static int
drm_old_percent(const char *v, double *pct)
{
	char		whole[24], *dot;
	size_t		len = strlen(v);
	uint64_t	w, h = 0;

	if (len < 2 || len >= sizeof whole || v[len - 1] != '%')
		return -EINVAL;
	memcpy(whole, v, len - 1);
	whole[len - 1] = '\0';
	if ((dot = strchr(whole, '.')) != NULL) {
		*dot = '\0';
		if (!is_all_digits(dot + 1) || dot[1] == '\0' || strlen(dot + 1) > 2 ||
		    parse_u64(dot + 1, &h) != 0)
			return -EINVAL;
	}
	if (!is_all_digits(whole) || whole[0] == '\0' || parse_u64(whole, &w) != 0)
		return -EINVAL;
	*pct = (double)w + (double)h / 100;
	return 0;
}

/*
 * Old amdgpu per-ring usage, "gfx0: 12.5%": the class name, then only
 * digits.  True when key was such a line (parsed or counted as bad).
 */
static bool
drm_old_ring(struct drm_fdinfo_ctx *c, const char *key, const char *v)
{
	struct drm_engine	*e;
	size_t			 i, n;
	double			 pct;

	for (i = 0; i < ARRAY_SIZE(drm_old_rings); i++) {
		n = strlen(drm_old_rings[i]);
		if (strncmp(key, drm_old_rings[i], n) == 0 && is_all_digits(key + n))
			break;
	}
	if (i == ARRAY_SIZE(drm_old_rings))
		return false;
	if (drm_old_percent(v, &pct) != 0 ||
	    (e = drm_engine_get(c->out, drm_old_rings[i])) == NULL) {
		c->out->nbad++;
		return true;
	}
	e->pct += pct;
	e->has |= DRM_E_PCT;
	return true;
}

/* One "key: value" line, already split. */
static void
drm_fdinfo_line(struct drm_fdinfo_ctx *c, const char *key, const char *v)
{
	const struct drm_key	*k;
	size_t			 i, n;

	for (i = 0; i < ARRAY_SIZE(drm_keys); i++) {
		k = &drm_keys[i];
		n = strlen(k->key);
		if (k->is_prefix && strncmp(key, k->key, n) == 0) {
			k->fn(c, key + n, v);
			return;
		}
		if (!k->is_prefix && strcmp(key, k->key) == 0) {
			k->fn(c, "", v);
			return;
		}
	}
	drm_old_ring(c, key, v);
}

/* Split one line (NUL-terminated copy) at the first ':' and hand it on. */
static void
drm_fdinfo_split(struct drm_fdinfo_ctx *c, char *line)
{
	char	*colon = strchr(line, ':'), *v, *end;

	if (colon == NULL)
		return;
	*colon = '\0';
	/* "Whitespace after the colon is ignored." */
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		continue;
	end = v + strlen(v);
	while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	drm_fdinfo_line(c, line, v);
}

int
drm_parse_fdinfo(const char *text, struct drm_fdinfo *out)
{
	struct drm_fdinfo_ctx	 c = { .out = out };
	char			 line[DRM_LINE_MAX];
	const char		*p = text, *nl;
	size_t			 len;

	memset(out, 0, sizeof *out);
	for (; *p != '\0'; p = nl != NULL ? nl + 1 : p + len) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof line)
			continue;
		memcpy(line, p, len);
		line[len] = '\0';
		drm_fdinfo_split(&c, line);
	}
	if (!c.is_drm && out->is_legacy && out->driver[0] == '\0')
		snprintf(out->driver, sizeof out->driver, "amdgpu");
	if (!c.is_drm && !out->is_legacy)
		return -ENOENT;
	out->has_dev_mem = c.has_resident || c.has_memory;
	out->dev_mem_kib = c.has_resident ? c.resident_kib : c.memory_kib;
	return 0;
}

int
drm_parse_size_kib(const char *value, uint64_t *kib)
{
	char		 num[32];
	const char	*unit;
	uint64_t	 n, mul;
	int		 r;

	if (drm_split_unit(value, num, sizeof num, &unit) != 0)
		return -EINVAL;
	if ((r = parse_u64(num, &n)) != 0)
		return r;
	if (unit == NULL) {
		*kib = n / 1024 + (n % 1024 != 0);
		return 0;
	}
	/* amdgpu before 5.19 printed "kB" for vram_mem / 1024. */
	if (strcmp(unit, "KiB") == 0 || strcmp(unit, "kB") == 0)
		mul = 1;
	else if (strcmp(unit, "MiB") == 0)
		mul = 1024;
	else if (strcmp(unit, "GiB") == 0)
		mul = 1024 * 1024;
	else
		return -EINVAL;
	if (n > UINT64_MAX / mul)
		return -ERANGE;
	*kib = n * mul;
	return 0;
}

/* ---- pp_dpm_* ---------------------------------------------------------- */

/*
 * The part after the label: "<f>Mhz", then nothing, one space, or " *".
 * Sets *mhz and *is_current; -EINVAL for anything else.
 */
static int
drm_dpm_rest(const char *s, uint32_t *mhz, bool *is_current)
{
	char		num[16];
	size_t		n = 0;
	uint64_t	v;

	while (*s == ' ' || *s == '\t')
		s++;
	while (isdigit((unsigned char)s[n]) && n < sizeof num - 1) {
		num[n] = s[n];
		n++;
	}
	num[n] = '\0';
	if (n == 0 || parse_u64_range(num, 0, UINT32_MAX, &v) != 0)
		return -EINVAL;
	s += n;
	/* The kernel prints "Mhz"; accept the correct spelling as well. */
	if (strncmp(s, "Mhz", 3) != 0 && strncmp(s, "MHz", 3) != 0)
		return -EINVAL;
	s += 3;
	*is_current = strcmp(s, " *") == 0 || strcmp(s, "*") == 0;
	if (!*is_current && strcmp(s, "") != 0 && strcmp(s, " ") != 0)
		return -EINVAL;
	*mhz = (uint32_t)v;
	return 0;
}

/* The kernel's label of a level line: its number, or -1 when it has none. */
static long
drm_dpm_label(const char *label)
{
	uint64_t	n;

	if (*label == '\0' || parse_u64_range(label, 0, 1000, &n) != 0)
		return -1;
	return (long)n;
}

/* What drm_parse_dpm keeps between lines besides its result. */
struct dpm_scan {
	uint32_t	clock_mhz;	/* another reading of the clock, 0 when none */
	uint32_t	min_other;	/* the lowest unmarked level's clock */
	uint32_t	near_diff;	/* the level line nearest clock_mhz: how far, */
	uint32_t	near_mhz;	/* its clock, */
	unsigned	near_level;	/* its level, */
	bool		is_near_lowest;	/* and whether it is the first level line */
	bool		has_sleep_line;	/* an "S:" line */
	unsigned	last_level;	/* the last level line's level */
	uint32_t	last_mhz;	/* and clock */
};

/* One line of a pp_dpm table. */
static int
drm_dpm_line(struct drm_dpm *out, char *line, struct dpm_scan *sc)
{
	char		*colon = strchr(line, ':'), *label = line;
	bool		 is_sleep, is_current;
	uint32_t	 mhz, diff;
	unsigned	 level;
	long		 n;

	while (*label == ' ' || *label == '\t')
		label++;
	if (colon != NULL)
		*colon = '\0';
	is_sleep = colon != NULL && strcmp(label, "S") == 0;
	if (colon != NULL && (*label == '\0' || strchr(label, ' ') != NULL))
		return -EINVAL;
	if (drm_dpm_rest(colon != NULL ? colon + 1 : line, &mhz, &is_current) != 0)
		return -EINVAL;
	if (is_sleep) {
		sc->has_sleep_line = true;
		if (is_current && !out->has_current) {
			out->has_current = out->is_sleep = true;
			out->level = out->nlevels;
			out->mhz = mhz;
		}
		return 0;
	}
	/* The kernel's own label names the level; an unlabelled line, its place. */
	n = colon != NULL ? drm_dpm_label(label) : -1;
	level = n >= 0 ? (unsigned)n : out->nlevels;
	if (is_current && !out->has_current) {
		out->has_current = true;
		out->level = level;
		out->mhz = mhz;
		out->is_lowest = out->nlevels == 0;
	} else if (mhz < sc->min_other)
		sc->min_other = mhz;
	diff = mhz > sc->clock_mhz ? mhz - sc->clock_mhz : sc->clock_mhz - mhz;
	if (sc->clock_mhz > 0 && diff < sc->near_diff) {
		sc->near_diff = diff;
		sc->near_mhz = mhz;
		sc->near_level = level;
		sc->is_near_lowest = out->nlevels == 0;
	}
	sc->last_level = level;
	sc->last_mhz = mhz;
	out->nlevels++;
	return 0;
}

int
drm_parse_dpm(const char *text, uint32_t clock_mhz, struct drm_dpm *out)
{
	char		 line[128];
	const char	*p = text, *nl;
	size_t		 len;
	struct dpm_scan	 sc = { .clock_mhz = clock_mhz, .min_other = UINT32_MAX,
			    .near_diff = UINT32_MAX };

	memset(out, 0, sizeof *out);
	for (; *p != '\0'; p = nl != NULL ? nl + 1 : p + len) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len == 0 && nl != NULL && nl[1] == '\0')
			break;
		if (len == 0 || len >= sizeof line)
			return -EINVAL;
		memcpy(line, p, len);
		line[len] = '\0';
		if (drm_dpm_line(out, line, &sc) != 0)
			return -EINVAL;
	}
	/*
	 * Fine-grained tables print the current clock on a line of its own;
	 * the kernel calls a clock below half the lowest level deep sleep
	 * (and newer kernels print it as "S:"), so a sleeping GPU's "1: 0Mhz *"
	 * is deep sleep, not level 1.  The first level line is the lowest
	 * level itself, never below it, unless its clock is 0: the SMU reads
	 * the clock of a powered-off graphics block (GFXOFF) as 0, and tables
	 * whose lowest level then reads 0 too mark it ("0: 0Mhz *").
	 */
	if (out->has_current && !out->is_sleep && (out->mhz == 0 || (!out->is_lowest &&
	    sc.min_other != UINT32_MAX && out->mhz < sc.min_other / 2))) {
		out->is_sleep = true;
		out->is_deduced_sleep = true;
	}
	/*
	 * Tables that are not fine-grained mark a level only when the current
	 * clock equals it exactly (navi10_print_clk_levels), so a GPU at its
	 * top level a MHz off marks none.  The other reading of the clock
	 * names the level when it is within 1 % of one.
	 */
	if (!out->has_current && sc.near_diff != UINT32_MAX &&
	    sc.near_diff <= (sc.near_mhz / 100 > 1 ? sc.near_mhz / 100 : 1)) {
		out->has_current = out->is_by_clock = true;
		out->level = sc.near_level;
		out->mhz = sc.near_mhz;
		out->is_lowest = sc.is_near_lowest;
	}
	if (!out->has_current && out->nlevels == 2 && !sc.has_sleep_line) {
		out->is_two_unmarked = true;
		out->top_level = sc.last_level;
		out->top_mhz = sc.last_mhz;
	}
	return out->nlevels > 0 || out->has_current ? 0 : -EINVAL;
}

/* ---- uevent and values ------------------------------------------------ */

/* "VVVV:DDDD": exactly four hex digits, a colon, four hex digits. */
static bool
is_pci_id(const char *s)
{
	return strlen(s) == 9 && strspn(s, "0123456789abcdefABCDEF") == 4 && s[4] == ':' &&
	    strspn(s + 5, "0123456789abcdefABCDEF") == 4;
}

static void
drm_uevent_line(struct drm_uevent *out, const char *line, bool *has_driver)
{
	unsigned	vendor, device;
	char		end;

	if (strncmp(line, "DRIVER=", 7) == 0 && strlen(line + 7) < sizeof out->driver) {
		snprintf(out->driver, sizeof out->driver, "%s", line + 7);
		*has_driver = out->driver[0] != '\0';
	} else if (strncmp(line, "PCI_SLOT_NAME=", 14) == 0 && strlen(line + 14) < sizeof out->slot)
		snprintf(out->slot, sizeof out->slot, "%s", line + 14);
	else if (strncmp(line, "PCI_ID=", 7) == 0 && is_pci_id(line + 7) &&
	    sscanf(line + 7, "%4x:%4x%c", &vendor, &device, &end) == 2) {
		out->vendor = vendor;
		out->device = device;
	}
}

int
drm_parse_uevent(const char *text, struct drm_uevent *out)
{
	char		 line[128];
	const char	*p = text, *nl;
	size_t		 len;
	bool		 has_driver = false;

	memset(out, 0, sizeof *out);
	for (; *p != '\0'; p = nl != NULL ? nl + 1 : p + len) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof line)
			continue;
		memcpy(line, p, len);
		line[len] = '\0';
		drm_uevent_line(out, line, &has_driver);
	}
	return has_driver ? 0 : -EINVAL;
}

int
drm_parse_value(const char *text, uint64_t *out)
{
	return parse_u64_line(text, out);
}

bool
drm_is_copy_engine(const char *name)
{
	size_t	i;

	for (i = 0; i < ARRAY_SIZE(drm_copy_engines); i++) {
		if (strcmp(name, drm_copy_engines[i]) == 0)
			return true;
	}
	return false;
}
