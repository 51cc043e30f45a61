/*
 * Device selection: which devices a run measures, and the one numbering
 * of devices that --list-devices prints, -d takes, --idle-power and the
 * gates use and the report shows.
 *
 * Devices are numbered 0..n-1 in the order the backends find them (the
 * registry's order, then each backend's own), whatever is selected: each
 * backend asks devsel_match about every device it could measure, in its
 * own order, and the selection gives the device its number.
 *
 * What is selected: the -d list when there is one ("all" for every
 * device); otherwise the devices the workload can see through the
 * visible-device masks of the GPU runtimes (CUDA_VISIBLE_DEVICES,
 * ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES, ZE_AFFINITY_MASK), which
 * only ever hide GPUs of their own vendor; with neither, every device.
 * No I/O, no printing.
 */
#ifndef JOULESTAT_DEVSEL_H
#define JOULESTAT_DEVSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/util.h"

#define DEVSEL_ENTRY_MAX	96	/* longest entry, with its NUL (UUIDs are < 96) */
#define DEVSEL_MASK_TEXT	64	/* a mask as shown in the report */
#define DEVSEL_NUMBERED_MAX	256	/* devices whose hiding mask is remembered */

enum devsel_kind {
	DEVSEL_INDEX,			/* all decimal digits: the device's number */
	DEVSEL_BUS_ID,			/* [domain:]bus:device.function, hexadecimal */
	DEVSEL_LOCAL,			/* BACKEND:NAME, "nvml:0", "drm:card1", "rapl:package-0" */
	DEVSEL_ID,			/* anything else: the device's id, or one of its aliases */
};

struct devsel_entry {
	char			 text[DEVSEL_ENTRY_MAX];	/* as given, trimmed */
	enum devsel_kind	 kind;
	unsigned		 index;		/* DEVSEL_INDEX */
	uint32_t		 domain;	/* DEVSEL_BUS_ID */
	uint8_t			 bus;
	uint8_t			 device;
	uint8_t			 function;
	size_t			 colon;		/* DEVSEL_LOCAL: where the name starts */
	bool			 is_matched;	/* some device matched this entry */
};

/* Whose runtime can hide a device from the workload. */
enum devsel_family {
	DEVSEL_F_NONE,			/* no mask applies (CPU packages) */
	DEVSEL_F_CUDA,			/* NVIDIA: CUDA_VISIBLE_DEVICES */
	DEVSEL_F_ROCM,			/* amdgpu: ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES */
	DEVSEL_F_ZE,			/* Intel: ZE_AFFINITY_MASK */
	DEVSEL_NFAMILIES
};

/* The masks, in the order they apply (HIP's indices count what ROCR left). */
enum devsel_mask_var {
	DEVSEL_M_CUDA,
	DEVSEL_M_ROCR,
	DEVSEL_M_HIP,
	DEVSEL_M_ZE,
	DEVSEL_NMASKS
};

struct devsel_mask {
	bool			 is_set;	/* the variable is in the environment */
	char			 text[DEVSEL_MASK_TEXT]; /* its value, cut for the report */
	struct devsel_entry	*v;		/* its entries, up to the first invalid one */
	size_t			 n;
};

/* A device as the selection sees it. */
struct devsel_dev {
	const char		*backend;	/* "nvml", "drm", "rapl" */
	const char		*local;		/* the backend's own name: "0", "card1", "package-0" */
	const char		*id;		/* stable id; may be NULL or "" */
	const char		*bus_id;	/* PCI bus id; may be NULL or "" */
	const char *const	*aliases;	/* other ids of the device (its MIG UUIDs) */
	size_t			 naliases;
	bool			 is_mig_unlisted; /* MIG is on, its MIG devices unknown */
	enum devsel_family	 family;
};

struct devsel {
	struct devsel_entry	*v;		/* -d entries; n == 0: no -d */
	size_t			 n;
	bool			 is_all;	/* -d all */
	bool			 is_listing;	/* masks only mark devices, never drop them */
	struct devsel_mask	 masks[DEVSEL_NMASKS];
	/* Counted while the backends probe (devsel_rewind starts again). */
	unsigned		 next;		/* the number of the next device */
	unsigned		 seen[DEVSEL_NFAMILIES]; /* devices of each family met */
	unsigned		 nmasked;	/* devices that were hidden by a mask */
	uint8_t			 hidden[DEVSEL_NUMBERED_MAX]; /* 1 + the mask that hid N, or 0 */
};

/*
 * Parse list into sel.  list may be NULL or "" for "no -d"; "all" (alone)
 * selects every device whatever the masks say.  Blanks around an entry
 * are ignored.  Returns 0, or -1 with a cause in err for an empty entry,
 * an entry longer than DEVSEL_ENTRY_MAX - 1, an index that does not fit,
 * or "all" beside other entries; sel is then empty.  sel is reset first:
 * set the masks after.  Call devsel_free() in every case.
 */
int	devsel_parse(struct devsel *sel, const char *list, struct errbuf *err);

/*
 * Set the mask of var from its value in the environment (NULL: unset).
 * As the runtimes read them: entries separated by commas, and the list
 * ends at the first entry the runtime would not accept; "" hides every
 * device of the family.  CUDA_VISIBLE_DEVICES takes indices, GPU-... and
 * MIG-... UUIDs; ROCR_VISIBLE_DEVICES indices and GPU-... ids;
 * HIP_VISIBLE_DEVICES indices; ZE_AFFINITY_MASK indices, with ".N" for a
 * sub-device (its whole device is measured).
 */
void	devsel_set_mask(struct devsel *sel, enum devsel_mask_var var, const char *value);

/* The environment variable of a mask. */
const char *devsel_mask_name(enum devsel_mask_var var);

/* Forget what the last probe counted (numbers, matches, hidden devices). */
void	devsel_rewind(struct devsel *sel);

/*
 * The next device a backend found: give it its number (*number) and say
 * whether it is selected.  With a -d list, every entry that matches is
 * marked is_matched: an index matches the number, BACKEND:NAME the backend
 * and its own name, a bus id by value (case and a 4- or 8-digit domain, or
 * none, do not matter), anything else the id or an alias without regard
 * to case.
 */
bool	devsel_match(struct devsel *sel, const struct devsel_dev *dev, unsigned *number);

/* The mask that hid device number, or NULL (after the probe). */
const char *devsel_hidden_by(const struct devsel *sel, unsigned number);

/*
 * The runtimes' masks that were set, "NAME=text" joined by sep
 * ("CUDA_VISIBLE_DEVICES=0,1 ROCR_VISIBLE_DEVICES=0"), in buf, cut to
 * size; "" when none was.  Returns how many were set.
 */
size_t	devsel_masks_text(const struct devsel *sel, const char *sep, char *buf, size_t size);

/*
 * When masks chose the devices (no -d, some mask set), a sentence for the
 * report in buf, "the devices the workload can see (CUDA_VISIBLE_DEVICES=0)",
 * and true; else false.
 */
bool	devsel_describe(const struct devsel *sel, char *buf, size_t size);

/*
 * Returns 0 when every -d entry matched a device, else -1 with
 * "no device matches X, Y" in err.
 */
int	devsel_check(const struct devsel *sel, struct errbuf *err);

/* Release the entries and masks.  Safe on a zeroed sel. */
void	devsel_free(struct devsel *sel);

#endif
