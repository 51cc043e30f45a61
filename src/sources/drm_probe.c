/*
 * Probe of the AMD and Intel GPU backend (drm_priv.h): the amdgpu, i915
 * and xe cards under /sys/class/drm, the hwmon directory of each, and,
 * per sensor, the first of its candidate files that exists and reads.
 * What was found becomes the device's measures, its "how" line and the
 * notes that say what the readings mean.  Files read on every tick are
 * opened here, once, and read again with pread by drm.c.
 */
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/backend.h"
#include "joulestat/devsel.h"
#include "joulestat/source.h"
#include "joulestat/util.h"

#include "drm_parse.h"
#include "drm_priv.h"
#include "pciname.h"

/*
 * i915/xe extend their 32-bit energy and residency registers in software
 * only when they are read; the energy register wraps in about 4 minutes at
 * 1 kW, so they must be read at least this often.
 */
#define DRM_KEEP_READING_NS	(60 * NSEC_PER_SEC)
#define DRM_CARDS_MAX		64

#define DRM_D_AMD	(1u << DRM_AMDGPU)
#define DRM_D_I915	(1u << DRM_I915)
#define DRM_D_XE	(1u << DRM_XE)
#define DRM_D_INTEL	(DRM_D_I915 | DRM_D_XE)

static const char *const drm_driver_names[DRM_NDRIVERS] = {
	[DRM_AMDGPU] = "amdgpu",
	[DRM_I915] = "i915",
	[DRM_XE] = "xe",
};

/* Where a file is: the card directory, its PCI device, or the device's hwmon. */
enum drm_base {
	DRM_AT_CARD,
	DRM_AT_DEVICE,
	DRM_AT_HWMON,
};

/*
 * sysfs files.  amdgpu: Documentation/gpu/amdgpu/thermal.rst (the DOC
 * sections of amdgpu_pm.c).  i915: intel_gt_sysfs_pm.c and
 * Documentation/ABI/testing/sysfs-driver-intel-i915-hwmon.  xe:
 * Documentation/ABI/testing/sysfs-driver-intel-xe-hwmon, xe_gt_freq.c,
 * xe_gt_idle.c.  hwmon units: Documentation/hwmon/sysfs-interface.rst.
 */
static const char drm_f_uevent[] = "uevent";
static const char drm_f_vendor[] = "vendor";
static const char drm_f_device[] = "device";
static const char drm_f_product[] = "product_name";
static const char drm_f_hwmon[] = "hwmon";
static const char drm_f_hwmon_name[] = "name";
static const char drm_f_power_input[] = "power1_input";
static const char drm_f_power_average[] = "power1_average";
static const char drm_f_energy_card[] = "energy1_input";
static const char drm_f_energy_pkg[] = "energy2_input";
static const char drm_f_sclk[] = "pp_dpm_sclk";
static const char drm_f_mclk[] = "pp_dpm_mclk";
static const char drm_f_freq_hz[] = "freq1_input";
static const char drm_f_i915_freq[] = "gt_act_freq_mhz";
static const char drm_f_i915_gt0_freq[] = "gt/gt0/rps_act_freq_mhz";
static const char drm_f_xe_freq[] = "tile0/gt0/freq0/act_freq";
static const char drm_f_i915_rc6[] = "power/rc6_residency_ms";
static const char drm_f_i915_gt0_rc6[] = "gt/gt0/rc6_residency_ms";
static const char drm_f_xe_idle[] = "tile0/gt0/gtidle/idle_residency_ms";
static const char drm_f_busy[] = "gpu_busy_percent";
static const char drm_f_membusy[] = "mem_busy_percent";
static const char drm_f_temp1[] = "temp1_input";
static const char drm_f_temp2[] = "temp2_input";
static const char drm_f_nb_label[] = "in1_label";
static const char drm_f_runtime[] = "power/runtime_status";

/* Candidate files per sensor, per driver, in order of preference. */
struct drm_file {
	unsigned	 drivers;		/* DRM_D_* */
	enum drm_sensor	 sensor;
	enum drm_base	 base;
	const char	*path;
	const char	*word;			/* capability word in device.how */
};

static const struct drm_file drm_files[] = {
	{ DRM_D_AMD,	DRM_S_POWER,	DRM_AT_HWMON,	drm_f_power_input,	"power" },
	{ DRM_D_AMD,	DRM_S_POWER,	DRM_AT_HWMON,	drm_f_power_average,	"power" },
	{ DRM_D_INTEL,	DRM_S_ENERGY,	DRM_AT_HWMON,	drm_f_energy_card,	"energy" },
	{ DRM_D_XE,	DRM_S_ENERGY,	DRM_AT_HWMON,	drm_f_energy_pkg,	"energy" },
	{ DRM_D_AMD,	DRM_S_SCLK,	DRM_AT_DEVICE,	drm_f_sclk,		"pstate" },
	{ DRM_D_AMD,	DRM_S_MCLK,	DRM_AT_DEVICE,	drm_f_mclk,		"mem-clock" },
	{ DRM_D_AMD,	DRM_S_FREQ_HZ,	DRM_AT_HWMON,	drm_f_freq_hz,		"clocks" },
	{ DRM_D_I915,	DRM_S_FREQ_MHZ,	DRM_AT_CARD,	drm_f_i915_freq,	"clocks" },
	{ DRM_D_I915,	DRM_S_FREQ_MHZ,	DRM_AT_CARD,	drm_f_i915_gt0_freq,	"clocks" },
	{ DRM_D_XE,	DRM_S_FREQ_MHZ,	DRM_AT_DEVICE,	drm_f_xe_freq,		"clocks" },
	{ DRM_D_I915,	DRM_S_IDLE,	DRM_AT_CARD,	drm_f_i915_rc6,		"pstate" },
	{ DRM_D_I915,	DRM_S_IDLE,	DRM_AT_CARD,	drm_f_i915_gt0_rc6,	"pstate" },
	{ DRM_D_XE,	DRM_S_IDLE,	DRM_AT_DEVICE,	drm_f_xe_idle,		"pstate" },
	{ DRM_D_AMD,	DRM_S_BUSY,	DRM_AT_DEVICE,	drm_f_busy,		"util" },
	{ DRM_D_AMD,	DRM_S_MEMBUSY,	DRM_AT_DEVICE,	drm_f_membusy,		"mem-util" },
	{ DRM_D_AMD | DRM_D_I915, DRM_S_TEMP, DRM_AT_HWMON, drm_f_temp1,	"temp" },
	{ DRM_D_XE,	DRM_S_TEMP,	DRM_AT_HWMON,	drm_f_temp2,		"temp" },
	{ DRM_D_AMD,	DRM_S_RUNTIME,	DRM_AT_DEVICE,	drm_f_runtime,		"runtime-pm" },
};

/*
 * Whether what candidate f read (n bytes of buf) makes it a source.  A DPM
 * table that exists but is empty (amdgpu on SI and CIK) or has no level is
 * none.  An energy counter that reads 0 (the card counter of xe on Linux
 * 6.16 for Battlemage, while the package one grows) is skipped while is_strict,
 * so that the next candidate is used; it is taken when nothing else is.
 */
static bool
drm_probe_usable(struct drm_dev *d, const struct drm_file *f, char *buf, ssize_t n,
    bool is_strict)
{
	struct drm_dpm	dpm;
	uint64_t	v;

	if (n < 0)
		return true;			/* refused for now: kept, read later */
	if (f->sensor == DRM_S_SCLK || f->sensor == DRM_S_MCLK)
		return drm_parse_dpm(buf, 0, &dpm) == 0 && dpm.nlevels > 0;
	if (f->sensor == DRM_S_ENERGY && is_strict && drm_parse_value(buf, &v) == 0 && v == 0) {
		if (f->path == drm_f_energy_card)
			d->is_card_energy_zero = true;
		return false;
	}
	return true;
}

/*
 * Open the file of each sensor: the first candidate that exists, reads
 * and is usable.  A read refused with EPERM or EBUSY is kept (the GPU is
 * asleep, or busy); other errors (EOPNOTSUPP, EINVAL: not supported here)
 * move on.
 */
static void
drm_probe_sensor(struct drm_dev *d, struct device *dev, const int base[3],
    const char *hwmon, bool is_strict)
{
	const struct drm_file	*f;
	char			 buf[DRM_TEXT_MAX], what[64];
	ssize_t			 n;
	size_t			 i;
	int			 fd;

	for (i = 0; i < ARRAY_SIZE(drm_files); i++) {
		f = &drm_files[i];
		if (!(f->drivers & (1u << d->driver)) || d->fds[f->sensor] >= 0 ||
		    base[f->base] < 0)
			continue;
		if ((fd = openat(base[f->base], f->path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = pread_text(fd, buf, sizeof buf);
		if ((n < 0 && n != -EPERM && n != -EBUSY && n != -EAGAIN) ||
		    !drm_probe_usable(d, f, buf, n, is_strict)) {
			close(fd);
			continue;
		}
		d->fds[f->sensor] = fd;
		d->paths[f->sensor] = f->path;
		snprintf(what, sizeof what, "%s%s%s", f->base == DRM_AT_HWMON ? hwmon : "",
		    f->base == DRM_AT_HWMON ? "/" : "", f->path);
		backend_how(dev, f->word, what);
	}
}

/* The device's hwmon directory: the one named after the driver, else the first. */
static int
drm_probe_hwmon(int devdir, const char *driver, char *name, size_t size)
{
	char		 buf[64], path[300];
	struct dirent	*de;
	DIR		*dir;
	int		 fd, best = -1;
	bool		 is_named = false;

	if ((fd = backend_open_dir(devdir, drm_f_hwmon)) == -1)
		return -1;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while (!is_named && (de = readdir(dir)) != NULL) {
		if (strncmp(de->d_name, "hwmon", 5) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", de->d_name, drm_f_hwmon_name);
		is_named = read_file(dirfd(dir), path, buf, sizeof buf) > 0 &&
		    strncmp(buf, driver, strlen(driver)) == 0 && buf[strlen(driver)] == '\n';
		if (best != -1 && !is_named)
			continue;
		if (best != -1)
			close(best);
		best = backend_open_dir(dirfd(dir), de->d_name);
		snprintf(name, size, "%.*s", (int)size - 1, de->d_name);
	}
	closedir(dir);
	return best;
}

/*
 * Whether the amdgpu device is an APU.  amdgpu's hwmon shows the
 * northbridge voltage (in1, labelled "vddnb") only when the kernel flags
 * the device AMD_IS_APU (Documentation/gpu/amdgpu/thermal.rst: "in1_input:
 * the voltage on the northbridge for APUs"); on an APU, power1 (PPT) is the
 * whole SoC's, CPU cores included.
 */
static bool
drm_probe_apu(int hwmon)
{
	char	buf[32];

	return hwmon >= 0 && read_file(hwmon, drm_f_nb_label, buf, sizeof buf) > 0 &&
	    strcmp(buf, "vddnb\n") == 0;
}

/*
 * APUs whose hwmon hides vddnb, by PCI id: MI300A (1002:74a0, GC 9.4.3;
 * amdgpu_pm.c, hwmon_attributes_visible: "only APUs other than gc 9,4,3
 * have vddnb").  Its power1 is the SMU's SocketPower (smu_v13_0_6_ppt.c),
 * read from the metrics table that also counts the CPU dies' energy
 * (CcdEnergyAcc beside XcdEnergyAcc): the socket's, CPU cores included.
 */
static bool
drm_is_apu_id(const struct drm_uevent *ue)
{
	return ue->vendor == 0x1002 && ue->device == 0x74a0;
}

/* What the measures mean, for the report. */
static void
drm_probe_notes(struct drm_dev *d, struct device *dev)
{
	if (dev->is_soc && d->fds[DRM_S_POWER] >= 0)
		backend_note(dev, "an APU: power (hwmon power1, PPT) is the whole SoC's, the CPU "
		    "cores included, not the GPU's alone");
	if (d->fds[DRM_S_POWER] >= 0 && strcmp(d->paths[DRM_S_POWER], drm_f_power_average) == 0)
		backend_note(dev, "power is hwmon power1_average, a firmware average over an "
		    "unspecified window with about 1 W resolution: short phases are smeared");
	if (d->fds[DRM_S_POWER] >= 0 && strcmp(d->paths[DRM_S_POWER], drm_f_power_average) == 0)
		dev->power_kind = POWER_KIND_AVERAGE_FW;
	if (d->fds[DRM_S_SCLK] >= 0) {
		dev->pstate_names = PSTATE_NAMES_DPM;
		backend_note(dev, "states are the DPM levels of pp_dpm_sclk by the kernel's "
		    "labels, and deep sleep (S, or a clock below half the lowest level)");
	}
	if (d->fds[DRM_S_IDLE] >= 0) {
		dev->pstate_names = PSTATE_NAMES_RC6;
		backend_note(dev, "states are awake and RC6 (asleep), from the residency "
		    "counter; RC6 time is within about one interval of it");
	}
	if (d->fds[DRM_S_ENERGY] >= 0 && strcmp(d->paths[DRM_S_ENERGY], drm_f_energy_pkg) == 0)
		backend_note(dev, "energy is the package counter (energy2_input): the card "
		    "counter %s", d->is_card_energy_zero ? "(energy1_input) reads 0" :
		    "is not available");
	else if (d->fds[DRM_S_ENERGY] >= 0 && d->is_card_energy_zero)
		backend_note(dev, "energy is the card counter (energy1_input), which read 0 "
		    "when the run began: no other counter");
	if (d->fds[DRM_S_ENERGY] >= 0 && d->fds[DRM_S_POWER] < 0)
		backend_note(dev, "no power readings: energy comes from the counter alone, "
		    "so peak power is unknown");
}

/* The measures bits of what was opened. */
static void
drm_probe_measures(struct drm_dev *d, struct device *dev)
{
	if (d->fds[DRM_S_POWER] >= 0) {
		dev->measures |= M_POWER;
		dev->power_kind = strcmp(d->paths[DRM_S_POWER], drm_f_power_input) == 0 ?
		    POWER_KIND_INSTANT : POWER_KIND_UNKNOWN;
	}
	if (d->fds[DRM_S_ENERGY] >= 0)
		dev->measures |= M_ENERGY;
	if (d->fds[DRM_S_SCLK] >= 0 || d->fds[DRM_S_IDLE] >= 0)
		dev->measures |= M_PSTATE;
	if (d->fds[DRM_S_FREQ_HZ] >= 0 || d->fds[DRM_S_FREQ_MHZ] >= 0 || d->fds[DRM_S_SCLK] >= 0)
		dev->measures |= M_CLOCKS;
	if (d->fds[DRM_S_BUSY] >= 0)
		dev->measures |= M_UTIL;
	if (d->fds[DRM_S_TEMP] >= 0)
		dev->measures |= M_TEMP;
	/* Driver-extended counters need reads in time, whatever the interval. */
	if (d->fds[DRM_S_ENERGY] >= 0 || d->fds[DRM_S_IDLE] >= 0)
		dev->max_gap_ns = DRM_KEEP_READING_NS;
}

/*
 * Name, id and bus id of the PCI device of card.  The name is amdgpu's
 * product_name when the board has one, else the PCI ID database's
 * (pciname.h) after the vendor, else the ids.
 */
static void
drm_probe_identity(struct device *dev, int devdir, enum drm_driver driver,
    const struct drm_uevent *ue, struct pciname *pn)
{
	char		buf[128];
	uint64_t	vendor = ue->vendor, device = ue->device;
	ssize_t		n;

	if (vendor == 0 && read_file(devdir, drm_f_vendor, buf, sizeof buf) > 0)
		vendor = strtoull(buf, NULL, 16);
	if (device == 0 && read_file(devdir, drm_f_device, buf, sizeof buf) > 0)
		device = strtoull(buf, NULL, 16);
	snprintf(dev->id, sizeof dev->id, "%s", ue->slot);
	snprintf(dev->bus_id, sizeof dev->bus_id, "%s", ue->slot);
	/* Its first line: boards without a FRU name give an empty one. */
	n = read_file(devdir, drm_f_product, buf, sizeof buf);
	if (n > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		for (n = (ssize_t)strlen(buf); n > 0 && isspace((unsigned char)buf[n - 1]); n--)
			buf[n - 1] = '\0';
	}
	if (n > 0 && driver == DRM_AMDGPU)
		snprintf(dev->name, sizeof dev->name, "%.*s", (int)sizeof dev->name - 1, buf);
	else if (pciname_device(pn, (unsigned)vendor, (unsigned)device, buf, sizeof buf))
		snprintf(dev->name, sizeof dev->name, "%s %.*s", driver == DRM_AMDGPU ? "AMD" :
		    "Intel", (int)sizeof dev->name - 8, buf);
	else
		snprintf(dev->name, sizeof dev->name, "%s %s %04x:%04x",
		    driver == DRM_AMDGPU ? "AMD" : "Intel", dev->is_soc ? "APU" : "GPU",
		    (unsigned)vendor, (unsigned)device);
	if (dev->is_soc)
		snprintf(dev->name + strlen(dev->name), sizeof dev->name - strlen(dev->name),
		    " (SoC)");
	snprintf(dev->version, sizeof dev->version, "driver %s", drm_driver_names[driver]);
}

/* Which of our drivers drives the device; DRM_NDRIVERS when none. */
static enum drm_driver
drm_probe_driver(int devdir, struct drm_uevent *ue)
{
	char	buf[DRM_TEXT_MAX];
	int	k;

	if (read_file(devdir, drm_f_uevent, buf, sizeof buf) <= 0 || drm_parse_uevent(buf, ue) != 0)
		return DRM_NDRIVERS;
	for (k = 0; k < DRM_NDRIVERS; k++) {
		if (strcmp(ue->driver, drm_driver_names[k]) == 0)
			return (enum drm_driver)k;
	}
	return DRM_NDRIVERS;
}

/* Number card (named "cardN") and say whether it is selected. */
static bool
drm_probe_select(struct devsel *sel, const char *card, enum drm_driver driver,
    const struct drm_uevent *ue, struct device *dev)
{
	struct devsel_dev	sd;

	memset(&sd, 0, sizeof sd);
	sd.backend = "drm";
	sd.local = card;
	sd.id = ue->slot;
	sd.bus_id = ue->slot;
	sd.family = driver == DRM_AMDGPU ? DEVSEL_F_ROCM : DEVSEL_F_ZE;
	dev->family = sd.family;
	return devsel_match(sel, &sd, &dev->number);
}

/* Probe card N into dev and d; false when it is not ours or not selected. */
static bool
drm_probe_card(int classfd, unsigned card, struct devsel *sel, struct pciname *pn,
    struct drm_dev *d, struct device *dev, struct errbuf *err)
{
	struct drm_uevent	ue;
	enum drm_driver		driver;
	char			name[32], hwmon[32] = "";
	int			base[3] = { -1, -1, -1 };
	size_t			k;

	snprintf(name, sizeof name, "card%u", card);
	if ((base[DRM_AT_CARD] = backend_open_dir(classfd, name)) == -1)
		return false;
	base[DRM_AT_DEVICE] = backend_open_dir(base[DRM_AT_CARD], drm_f_device);
	memset(&ue, 0, sizeof ue);
	driver = base[DRM_AT_DEVICE] == -1 ? DRM_NDRIVERS : drm_probe_driver(base[DRM_AT_DEVICE], &ue);
	/* The older AMD driver has no power interface of amdgpu's: said, not skipped silently. */
	if (driver == DRM_NDRIVERS && strcmp(ue.driver, "radeon") == 0)
		errbuf_set(err, "%s (%s, %04x:%04x) is driven by radeon, which is not supported: "
		    "only amdgpu cards are measured", name, ue.slot[0] != '\0' ? ue.slot : "no bus id",
		    (unsigned)ue.vendor, (unsigned)ue.device);
	memset(dev, 0, sizeof *dev);
	memset(d, 0, sizeof *d);
	if (driver != DRM_NDRIVERS && ue.slot[0] != '\0' &&
	    drm_probe_select(sel, name, driver, &ue, dev)) {
		d->driver = driver;
		snprintf(d->pdev, sizeof d->pdev, "%s", ue.slot);
		for (k = 0; k < DRM_NSENSORS; k++)
			d->fds[k] = -1;
		base[DRM_AT_HWMON] = drm_probe_hwmon(base[DRM_AT_DEVICE], drm_driver_names[driver],
		    hwmon, sizeof hwmon);
		dev->is_soc = driver == DRM_AMDGPU && (drm_probe_apu(base[DRM_AT_HWMON]) ||
		    drm_is_apu_id(&ue));
		drm_probe_identity(dev, base[DRM_AT_DEVICE], driver, &ue, pn);
		drm_probe_sensor(d, dev, base, hwmon, true);
		drm_probe_sensor(d, dev, base, hwmon, false);
		drm_probe_measures(d, dev);
		drm_probe_notes(d, dev);
		dev->ops = &drm_ops;
		dev->index = card;
		dev->priv = d;
	}
	for (k = 0; k < 3; k++) {
		if (base[k] != -1)
			close(base[k]);
	}
	return dev->priv != NULL;
}

/* Keep a "cardN" entry (connectors such as card0-DP-1 are not) as its N. */
static bool
drm_card_entry(const char *name, void *elem)
{
	uint64_t	n;

	if (strncmp(name, "card", 4) != 0 || parse_u64_range(name + 4, 0, UINT32_MAX, &n) != 0)
		return false;
	*(unsigned *)elem = (unsigned)n;
	return true;
}

/* Per-process readings need the proc root; say so when it is missing. */
static void
drm_probe_proc(struct drm_ctx *ctx, const char *proc_root, struct device *devs, size_t ndev)
{
	size_t	i;

	ctx->proc_dirfd = backend_open_dir(AT_FDCWD, proc_root);
	for (i = 0; i < ndev; i++) {
		if (ctx->proc_dirfd < 0) {
			backend_note(&devs[i], "per-process utilization is not available: the "
			    "proc root cannot be opened");
			continue;
		}
		devs[i].measures |= M_PID_UTIL;
		backend_how(&devs[i], "pid-util", "fdinfo");
		if (devs[i].measures & M_UTIL)
			backend_note(&devs[i], "only the workload's processes are read (fdinfo): "
			    "other processes' use of this device is taken as its busy time "
			    "(gpu_busy_percent) less the workload's, an estimate");
		else
			backend_note(&devs[i], "only the workload's processes are read (fdinfo): "
			    "other processes' use of this device is unknown and counted as none, "
			    "so the workload's share is an upper bound");
	}
}

/* Probe every card under class/drm into *devs. */
static void
drm_enumerate(struct drm_ctx *ctx, int classfd, const struct source_config *sc,
    struct device **devs, size_t *ndev, struct errbuf *err)
{
	unsigned	 cards[DRM_CARDS_MAX];
	struct pciname	*pn;
	size_t		 ncards, i;

	ncards = backend_list_dir(classfd, cards, ARRAY_SIZE(cards), sizeof *cards,
	    drm_card_entry, backend_cmp_uint);
	*devs = xcalloc(ncards > 0 ? ncards : 1, sizeof **devs);
	ctx->devs = xcalloc(ncards > 0 ? ncards : 1, sizeof *ctx->devs);
	/* Names need libpci only while the cards are probed. */
	pn = ncards > 0 ? pciname_open(sc->pci_lib) : NULL;
	for (i = 0; i < ncards; i++) {
		if (!drm_probe_card(classfd, cards[i], sc->sel, pn, &ctx->devs[*ndev],
		    &(*devs)[*ndev], err))
			continue;
		ctx->devs[*ndev].ctx = ctx;
		(*ndev)++;
		ctx->ndev = *ndev;
	}
	pciname_close(pn);
}

int
drm_probe(const struct source_config *sc, struct device **devs, size_t *ndev,
    struct errbuf *err)
{
	struct drm_ctx	*ctx;
	char		 path[PATH_MAX];
	int		 classfd;

	*devs = NULL;
	*ndev = 0;
	/* No sysfs, or no DRM class: nothing here, and nothing to say (one openat). */
	if (snprintf(path, sizeof path, "%s/class/drm", sc->sysfs_root) >= (int)sizeof path ||
	    (classfd = backend_open_dir(AT_FDCWD, path)) == -1)
		return 0;
	ctx = xcalloc(1, sizeof *ctx);
	ctx->proc_dirfd = -1;
	drm_enumerate(ctx, classfd, sc, devs, ndev, err);
	close(classfd);
	if (*ndev == 0) {
		drm_free(ctx);
		free(*devs);
		*devs = NULL;
		return 0;
	}
	drm_probe_proc(ctx, sc->proc_root, *devs, *ndev);
	return 0;
}
