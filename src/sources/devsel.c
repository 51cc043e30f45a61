/*
 * Device selection (include/joulestat/devsel.h): the -d list and the
 * visible-device masks parsed once, then each backend asks about every
 * device it found, in its order, which numbers the devices once for
 * every use.  Vendor-neutral: a device is its backend, its own name, its
 * id, bus id and aliases.  Bus ids are compared by value, since NVML
 * writes "00000000:3B:00.0" while sysfs and lspci write "0000:3b:00.0"
 * and "3b:00.0".
 */
#include "joulestat/devsel.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void	devsel_free_list(struct devsel *);

/* One PCI address, [domain:]bus:device.function. */
struct devsel_pci {
	uint32_t	domain;
	uint8_t		bus;
	uint8_t		device;
	uint8_t		function;
};

/*
 * Read 1..maxdigits hexadecimal digits at s into *out.  Returns the end,
 * or NULL when there is no digit or too many.
 */
static const char *
devsel_hex(const char *s, size_t maxdigits, uint32_t *out)
{
	uint32_t	v = 0;
	size_t		n = 0;
	int		c;

	while (isxdigit((unsigned char)s[n])) {
		if (n == maxdigits)
			return NULL;
		c = tolower((unsigned char)s[n]);
		v = v * 16 + (uint32_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
		n++;
	}
	if (n == 0)
		return NULL;
	*out = v;
	return s + n;
}

/* Parse "bus:device.function" at s, all of s. */
static int
devsel_parse_bdf(const char *s, struct devsel_pci *pci)
{
	uint32_t	bus, device, function;

	if ((s = devsel_hex(s, 2, &bus)) == NULL || *s++ != ':')
		return -1;
	if ((s = devsel_hex(s, 2, &device)) == NULL || *s++ != '.' || device > 0x1f)
		return -1;
	if ((s = devsel_hex(s, 1, &function)) == NULL || *s != '\0' || function > 7)
		return -1;
	pci->bus = (uint8_t)bus;
	pci->device = (uint8_t)device;
	pci->function = (uint8_t)function;
	return 0;
}

/* Parse a PCI bus id with an optional domain of up to 8 digits. */
static int
devsel_parse_pci(const char *s, struct devsel_pci *pci)
{
	const char	*colon = strchr(s, ':');
	uint32_t	 domain = 0;

	if (colon == NULL)
		return -1;
	if (strchr(colon + 1, ':') != NULL) {
		if (devsel_hex(s, 8, &domain) != colon)
			return -1;
		s = colon + 1;
	}
	pci->domain = domain;
	return devsel_parse_bdf(s, pci);
}

/* "nvml:", "drm:" or "rapl:" in front: where the backend's own name starts. */
static size_t
devsel_local_prefix(const char *s)
{
	static const char *const backends[] = { "nvml:", "drm:", "rapl:" };
	size_t			 i, len;

	for (i = 0; i < sizeof backends / sizeof backends[0]; i++) {
		len = strlen(backends[i]);
		if (strncasecmp(s, backends[i], len) == 0 && s[len] != '\0')
			return len;
	}
	return 0;
}

/* Classify the trimmed text of e. */
static int
devsel_classify(struct devsel_entry *e, struct errbuf *err)
{
	struct devsel_pci	pci;
	uint64_t		index;

	if (is_all_digits(e->text)) {
		if (parse_u64_range(e->text, 0, UINT32_MAX, &index) != 0) {
			errbuf_set(err, "device index out of range: %s", e->text);
			return -1;
		}
		e->kind = DEVSEL_INDEX;
		e->index = (unsigned)index;
	} else if ((e->colon = devsel_local_prefix(e->text)) > 0) {
		e->kind = DEVSEL_LOCAL;
	} else if (devsel_parse_pci(e->text, &pci) == 0) {
		e->kind = DEVSEL_BUS_ID;
		e->domain = pci.domain;
		e->bus = pci.bus;
		e->device = pci.device;
		e->function = pci.function;
	} else
		e->kind = DEVSEL_ID;
	return 0;
}

/* s[0..*len) without surrounding blanks: its start, and *len its length. */
static const char *
devsel_trim(const char *s, size_t *len)
{
	while (*len > 0 && isspace((unsigned char)*s)) {
		s++;
		(*len)--;
	}
	while (*len > 0 && isspace((unsigned char)s[*len - 1]))
		(*len)--;
	return s;
}

/* Copy s[0..len) without surrounding blanks into e; -1 when empty or too long. */
static int
devsel_copy(struct devsel_entry *e, const char *s, size_t len)
{
	s = devsel_trim(s, &len);
	if (len == 0 || len >= sizeof e->text)
		return -1;
	memcpy(e->text, s, len);
	e->text[len] = '\0';
	return 0;
}

/* Copy the entry s[0..len) without surrounding blanks and classify it. */
static int
devsel_entry(struct devsel_entry *e, const char *s, size_t len, struct errbuf *err)
{
	s = devsel_trim(s, &len);
	if (len == 0) {
		errbuf_set(err, "empty entry in device list");
		return -1;
	}
	if (devsel_copy(e, s, len) != 0) {
		errbuf_set(err, "device list entry too long: %.*s...", 16, s);
		return -1;
	}
	return devsel_classify(e, err);
}

/* The number of comma-separated entries of list. */
static size_t
devsel_count(const char *list)
{
	size_t	n = 1;

	for (; (list = strchr(list, ',')) != NULL; list++)
		n++;
	return n;
}

int
devsel_parse(struct devsel *sel, const char *list, struct errbuf *err)
{
	const char	*s, *comma;

	memset(sel, 0, sizeof *sel);
	if (list == NULL || *list == '\0')
		return 0;
	sel->v = xcalloc(devsel_count(list), sizeof *sel->v);
	for (s = list; ; s = comma + 1) {
		comma = strchrnul(s, ',');
		if (devsel_entry(&sel->v[sel->n], s, (size_t)(comma - s), err) != 0) {
			devsel_free_list(sel);
			return -1;
		}
		if (strcasecmp(sel->v[sel->n].text, "all") == 0)
			sel->is_all = true;
		sel->n++;
		if (*comma == '\0')
			break;
	}
	if (sel->is_all && sel->n > 1) {
		errbuf_set(err, "\"all\" cannot be combined with other devices");
		devsel_free_list(sel);
		return -1;
	}
	if (sel->is_all) {
		free(sel->v);
		sel->v = NULL;
		sel->n = 0;
	}
	return 0;
}

static const char *const devsel_mask_names[DEVSEL_NMASKS] = {
	[DEVSEL_M_CUDA] = "CUDA_VISIBLE_DEVICES",
	[DEVSEL_M_ROCR] = "ROCR_VISIBLE_DEVICES",
	[DEVSEL_M_HIP] = "HIP_VISIBLE_DEVICES",
	[DEVSEL_M_ZE] = "ZE_AFFINITY_MASK",
};

const char *
devsel_mask_name(enum devsel_mask_var var)
{
	return devsel_mask_names[var];
}

/*
 * Whether the runtime of var accepts e as an entry of its mask; an index
 * is left in e->index (for ZE_AFFINITY_MASK, the device of "N.M").
 */
static bool
devsel_mask_entry(enum devsel_mask_var var, struct devsel_entry *e)
{
	uint64_t	 index;
	char		*dot;

	if (var == DEVSEL_M_ZE && (dot = strchr(e->text, '.')) != NULL) {
		if (!is_all_digits(dot + 1))
			return false;
		*dot = '\0';
	}
	if (is_all_digits(e->text)) {
		if (parse_u64_range(e->text, 0, UINT32_MAX, &index) != 0)
			return false;
		e->kind = DEVSEL_INDEX;
		e->index = (unsigned)index;
		return true;
	}
	e->kind = DEVSEL_ID;
	if (var == DEVSEL_M_CUDA)
		return strncasecmp(e->text, "GPU-", 4) == 0 || strncasecmp(e->text, "MIG-", 4) == 0;
	return var == DEVSEL_M_ROCR && strncasecmp(e->text, "GPU-", 4) == 0;
}

void
devsel_set_mask(struct devsel *sel, enum devsel_mask_var var, const char *value)
{
	struct devsel_mask	*m = &sel->masks[var];
	const char		*s, *comma;

	free(m->v);
	memset(m, 0, sizeof *m);
	if (value == NULL)
		return;
	m->is_set = true;
	snprintf(m->text, sizeof m->text, "%s", value);
	if (*value == '\0')
		return;
	m->v = xcalloc(devsel_count(value), sizeof *m->v);
	for (s = value; ; s = comma + 1) {
		comma = strchrnul(s, ',');
		/* The runtimes stop at the first entry they do not take. */
		if (devsel_copy(&m->v[m->n], s, (size_t)(comma - s)) != 0 ||
		    !devsel_mask_entry(var, &m->v[m->n]))
			break;
		m->n++;
		if (*comma == '\0')
			break;
	}
}

void
devsel_rewind(struct devsel *sel)
{
	size_t	i;

	for (i = 0; i < sel->n; i++)
		sel->v[i].is_matched = false;
	sel->next = 0;
	sel->nmasked = 0;
	memset(sel->seen, 0, sizeof sel->seen);
	memset(sel->hidden, 0, sizeof sel->hidden);
}

static bool
devsel_match_pci(const struct devsel_entry *e, const char *bus_id)
{
	struct devsel_pci	pci;

	if (bus_id == NULL || devsel_parse_pci(bus_id, &pci) != 0)
		return false;
	return pci.domain == e->domain && pci.bus == e->bus && pci.device == e->device &&
	    pci.function == e->function;
}

static bool
devsel_same(const char *text, const char *s)
{
	return s != NULL && *s != '\0' && strcasecmp(text, s) == 0;
}

/* The id or one of the aliases of dev is text. */
static bool
devsel_match_id(const char *text, const struct devsel_dev *dev)
{
	size_t	i;

	if (devsel_same(text, dev->id))
		return true;
	for (i = 0; i < dev->naliases; i++) {
		if (devsel_same(text, dev->aliases[i]))
			return true;
	}
	return false;
}

static bool
devsel_match_one(const struct devsel_entry *e, const struct devsel_dev *dev, unsigned number)
{
	switch (e->kind) {
	case DEVSEL_INDEX:
		return e->index == number;
	case DEVSEL_BUS_ID:
		return devsel_match_pci(e, dev->bus_id);
	case DEVSEL_LOCAL:
		return dev->backend != NULL && dev->local != NULL &&
		    strncasecmp(e->text, dev->backend, e->colon - 1) == 0 &&
		    dev->backend[e->colon - 1] == '\0' && strcmp(e->text + e->colon, dev->local) == 0;
	case DEVSEL_ID:
		/* A bus id the parser did not accept is still compared as text. */
		return devsel_same(e->text, dev->bus_id) || devsel_match_id(e->text, dev);
	}
	return false;
}

/* Where mask m puts the device that the runtime before it numbered index; -1: hidden. */
static long
devsel_mask_pos(const struct devsel_mask *m, unsigned index, const struct devsel_dev *dev)
{
	size_t	k;

	for (k = 0; k < m->n; k++) {
		if (m->v[k].kind == DEVSEL_INDEX ? m->v[k].index == index :
		    devsel_match_id(m->v[k].text, dev))
			return (long)k;
		/*
		 * A MIG device belongs to a board that lists its MIG devices;
		 * a MIG-enabled board whose list could not be read may be its
		 * board, so it is kept rather than hidden.
		 */
		if (m->v[k].kind == DEVSEL_ID && dev->is_mig_unlisted &&
		    strncasecmp(m->v[k].text, "MIG-", 4) == 0)
			return (long)k;
	}
	return -1;
}

/* The mask that hides dev from the workload, or -1. */
static int
devsel_masked_by(struct devsel *sel, const struct devsel_dev *dev)
{
	static const enum devsel_mask_var chains[DEVSEL_NFAMILIES][2] = {
		[DEVSEL_F_NONE] = { DEVSEL_NMASKS, DEVSEL_NMASKS },
		[DEVSEL_F_CUDA] = { DEVSEL_M_CUDA, DEVSEL_NMASKS },
		[DEVSEL_F_ROCM] = { DEVSEL_M_ROCR, DEVSEL_M_HIP },
		[DEVSEL_F_ZE] = { DEVSEL_M_ZE, DEVSEL_NMASKS },
	};
	const struct devsel_mask	*m;
	unsigned			 index;
	long				 pos;
	size_t				 k;

	if (dev->family == DEVSEL_F_NONE || dev->family >= DEVSEL_NFAMILIES)
		return -1;
	index = sel->seen[dev->family]++;
	for (k = 0; k < 2 && chains[dev->family][k] != DEVSEL_NMASKS; k++) {
		m = &sel->masks[chains[dev->family][k]];
		if (!m->is_set)
			continue;
		if ((pos = devsel_mask_pos(m, index, dev)) < 0)
			return (int)chains[dev->family][k];
		/* The next runtime numbers the devices in this mask's order. */
		index = (unsigned)pos;
	}
	return -1;
}

bool
devsel_match(struct devsel *sel, const struct devsel_dev *dev, unsigned *number)
{
	bool	is_selected = false;
	size_t	i;
	int	mask;

	*number = sel->next++;
	mask = devsel_masked_by(sel, dev);
	if (mask >= 0) {
		sel->nmasked++;
		if (*number < DEVSEL_NUMBERED_MAX)
			sel->hidden[*number] = (uint8_t)(mask + 1);
	}
	if (sel->n == 0)
		return sel->is_all || sel->is_listing || mask < 0;
	for (i = 0; i < sel->n; i++) {
		if (devsel_match_one(&sel->v[i], dev, *number)) {
			sel->v[i].is_matched = true;
			is_selected = true;
		}
	}
	return is_selected;
}

const char *
devsel_hidden_by(const struct devsel *sel, unsigned number)
{
	if (number >= DEVSEL_NUMBERED_MAX || sel->hidden[number] == 0)
		return NULL;
	return devsel_mask_names[sel->hidden[number] - 1];
}

size_t
devsel_masks_text(const struct devsel *sel, const char *sep, char *buf, size_t size)
{
	size_t	k, n = 0, len = 0;

	buf[0] = '\0';
	for (k = 0; k < DEVSEL_NMASKS && len < size; k++) {
		if (sel->masks[k].is_set)
			len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", n++ > 0 ? sep : "",
			    devsel_mask_names[k], sel->masks[k].text);
	}
	return n;
}

bool
devsel_describe(const struct devsel *sel, char *buf, size_t size)
{
	char	masks[DEVSEL_NMASKS * (DEVSEL_MASK_TEXT + 32)];

	if (sel->n > 0 || sel->is_all || sel->is_listing ||
	    devsel_masks_text(sel, ", ", masks, sizeof masks) == 0)
		return false;
	snprintf(buf, size, "measuring the devices the workload can see (%s): %u device%s hidden "
	    "from it; -d all measures every device", masks, sel->nmasked,
	    sel->nmasked == 1 ? "" : "s");
	return true;
}

int
devsel_check(const struct devsel *sel, struct errbuf *err)
{
	char	msg[sizeof err->msg];
	size_t	i, len = 0;
	int	n;

	msg[0] = '\0';
	for (i = 0; i < sel->n; i++) {
		if (sel->v[i].is_matched)
			continue;
		n = snprintf(msg + len, sizeof msg - len, "%s%s", len == 0 ? "" : ", ",
		    sel->v[i].text);
		if (n < 0 || (size_t)n >= sizeof msg - len)
			break;
		len += (size_t)n;
	}
	if (msg[0] == '\0')
		return 0;
	errbuf_set(err, "no device matches %s", msg);
	return -1;
}

static void
devsel_free_list(struct devsel *sel)
{
	free(sel->v);
	sel->v = NULL;
	sel->n = 0;
	sel->is_all = false;
}

void
devsel_free(struct devsel *sel)
{
	size_t	k;

	devsel_free_list(sel);
	for (k = 0; k < DEVSEL_NMASKS; k++) {
		free(sel->masks[k].v);
		memset(&sel->masks[k], 0, sizeof sel->masks[k]);
	}
}
