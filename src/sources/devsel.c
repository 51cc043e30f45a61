/*
 * Device selection (-d LIST): parse the list once, then let each backend
 * ask whether a device is selected, and let the caller report entries that
 * matched nothing.  Vendor-neutral: a device is just (index, id, bus_id).
 * Bus ids are compared by value, since NVML writes "00000000:3B:00.0"
 * while sysfs and lspci write "0000:3b:00.0" and "3b:00.0".
 */
#include "joulestat/devsel.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static bool
devsel_is_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (!isdigit((unsigned char)*s))
			return false;
	}
	return true;
}

/* Classify the trimmed text of e. */
static int
devsel_classify(struct devsel_entry *e, struct errbuf *err)
{
	struct devsel_pci	pci;
	uint64_t		index;

	if (devsel_is_digits(e->text)) {
		if (parse_u64_range(e->text, 0, UINT32_MAX, &index) != 0) {
			errbuf_set(err, "device index out of range: %s", e->text);
			return -1;
		}
		e->kind = DEVSEL_INDEX;
		e->index = (unsigned)index;
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

/* Copy the entry s[0..len) without surrounding blanks and classify it. */
static int
devsel_entry(struct devsel_entry *e, const char *s, size_t len, struct errbuf *err)
{
	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0) {
		errbuf_set(err, "empty entry in device list");
		return -1;
	}
	if (len >= sizeof e->text) {
		errbuf_set(err, "device list entry too long: %.*s...", 16, s);
		return -1;
	}
	memcpy(e->text, s, len);
	e->text[len] = '\0';
	return devsel_classify(e, err);
}

int
devsel_parse(struct devsel *sel, const char *list, struct errbuf *err)
{
	const char	*s, *comma;
	size_t		 n = 1;

	sel->v = NULL;
	sel->n = 0;
	if (list == NULL || *list == '\0')
		return 0;
	for (s = list; (s = strchr(s, ',')) != NULL; s++)
		n++;
	sel->v = xcalloc(n, sizeof *sel->v);
	for (s = list; ; s = comma + 1) {
		comma = strchrnul(s, ',');
		if (devsel_entry(&sel->v[sel->n], s, (size_t)(comma - s), err) != 0) {
			devsel_free(sel);
			return -1;
		}
		sel->n++;
		if (*comma == '\0')
			break;
	}
	return 0;
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
devsel_match_one(const struct devsel_entry *e, unsigned index, const char *id,
    const char *bus_id)
{
	switch (e->kind) {
	case DEVSEL_INDEX:
		return e->index == index;
	case DEVSEL_BUS_ID:
		return devsel_match_pci(e, bus_id);
	case DEVSEL_ID:
		/* A bus id the parser did not accept is still compared as text. */
		if (bus_id != NULL && *bus_id != '\0' && strcasecmp(e->text, bus_id) == 0)
			return true;
		return id != NULL && *id != '\0' && strcasecmp(e->text, id) == 0;
	}
	return false;
}

bool
devsel_match(struct devsel *sel, unsigned index, const char *id, const char *bus_id)
{
	bool	is_selected = sel->n == 0;
	size_t	i;

	for (i = 0; i < sel->n; i++) {
		if (devsel_match_one(&sel->v[i], index, id, bus_id)) {
			sel->v[i].is_matched = true;
			is_selected = true;
		}
	}
	return is_selected;
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

void
devsel_free(struct devsel *sel)
{
	free(sel->v);
	sel->v = NULL;
	sel->n = 0;
}
