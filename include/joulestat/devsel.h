/*
 * Device selection for -d LIST: a comma-separated list whose entries are
 * device indices ("0"), stable ids such as GPU UUIDs ("GPU-5f1c...") or PCI
 * bus ids ("0000:3b:00.0", "00000000:3B:00.0", "3b:00.0").  Any backend
 * can ask whether a device, described by (index, id, bus_id), is
 * selected; the list remembers which entries matched something, so that
 * the caller can report "no device matches X".  No I/O, no printing.
 */
#ifndef JOULESTAT_DEVSEL_H
#define JOULESTAT_DEVSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/util.h"

#define DEVSEL_ENTRY_MAX	96	/* longest entry, with its NUL (UUIDs are < 96) */

enum devsel_kind {
	DEVSEL_INDEX,			/* all decimal digits */
	DEVSEL_BUS_ID,			/* [domain:]bus:device.function, hexadecimal */
	DEVSEL_ID,			/* anything else: compared with the device id */
};

struct devsel_entry {
	char			 text[DEVSEL_ENTRY_MAX];	/* as given, trimmed */
	enum devsel_kind	 kind;
	unsigned		 index;		/* DEVSEL_INDEX */
	uint32_t		 domain;	/* DEVSEL_BUS_ID */
	uint8_t			 bus;
	uint8_t			 device;
	uint8_t			 function;
	bool			 is_matched;	/* some device matched this entry */
};

struct devsel {
	struct devsel_entry	*v;		/* n == 0: every device is selected */
	size_t			 n;
};

/*
 * Parse list into sel.  list may be NULL or "" for "every device".
 * Blanks around an entry are ignored.  Returns 0, or -1 with a cause in
 * err for an empty entry, an entry longer than DEVSEL_ENTRY_MAX - 1 or an
 * index that does not fit; sel is then empty.  sel->v is allocated with
 * xcalloc: call devsel_free().
 */
int	devsel_parse(struct devsel *sel, const char *list, struct errbuf *err);

/*
 * Whether the device (index, id, bus_id) is selected.  id and bus_id may
 * be NULL or "" when the device has none.  Ids are compared without
 * regard to case; bus ids are compared by value, so case and a 4- or
 * 8-digit domain (or none, meaning 0) do not matter.  Every entry that
 * matches is marked is_matched.  An empty selection selects everything.
 */
bool	devsel_match(struct devsel *sel, unsigned index, const char *id, const char *bus_id);

/*
 * Returns 0 when every entry matched a device, else -1 with
 * "no device matches X, Y" in err.
 */
int	devsel_check(const struct devsel *sel, struct errbuf *err);

/* Release sel->v.  Safe on a zeroed sel. */
void	devsel_free(struct devsel *sel);

#endif
