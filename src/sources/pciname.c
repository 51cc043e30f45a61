/*
 * PCI device names through libpci (pciname.h).  The types and flags are
 * libpci's own, from its header <pci/pci.h> (Debian libpci-dev); the
 * functions are found with dlsym, so the binary does not depend on the
 * library.  pci_init is not called: it opens a bus access method, which
 * name lookups do not need and which ends the process when none works.
 * Without it libpci has no message functions, so ours are set: a damaged
 * pci.ids makes a lookup find nothing rather than end joulestat.  udev's
 * hwdb is not asked (PCI_LOOKUP_NO_HWDB): names come from pci.ids alone,
 * the same on every machine with the same file.
 */
#include "pciname.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

#include "joulestat/exitcode.h"
#include "joulestat/util.h"

#define PCINAME_LIB	"libpci.so.3"

struct pciname {
	void			*dl;
	struct pci_access	*acc;
	struct pci_access	*(*alloc)(void);
	void			 (*cleanup)(struct pci_access *);
	char			*(*lookup)(struct pci_access *, char *, int, int, ...);
};

/* libpci's warnings and debugging: none of them is ours to print. */
static void
pciname_quiet(char *msg, ...)
{
	(void)msg;
}

/*
 * libpci's errors (a pci.ids it cannot parse, no memory) must not return:
 * its own code does not go on after them.  So, as on running out of
 * memory, one line and exit status 125; this runs while the devices are
 * probed, before the workload starts and before clocks are locked.
 */
static __attribute__((noreturn)) void
pciname_fatal(char *msg, ...)
{
	va_list	ap;

	fprintf(stderr, "%s: libpci: ", PROGNAME);
	va_start(ap, msg);
	vfprintf(stderr, msg, ap);
	va_end(ap);
	if (msg[0] == '\0' || msg[strlen(msg) - 1] != '\n')
		fputc('\n', stderr);
	fflush(stderr);
	_exit(EXIT_TOOL);
}

/* Store a dlsym result in a function pointer (POSIX makes them interchangeable). */
static bool
pciname_sym(void *dl, const char *name, void *fnp, size_t size)
{
	void	*sym = dlsym(dl, name);

	if (sym == NULL || size != sizeof sym)
		return false;
	memcpy(fnp, &sym, size);
	return true;
}

struct pciname *
pciname_open(const char *path)
{
	struct pciname	*pn = xcalloc(1, sizeof *pn);

	if ((pn->dl = dlopen(path != NULL ? path : PCINAME_LIB, RTLD_NOW | RTLD_LOCAL)) == NULL ||
	    !pciname_sym(pn->dl, "pci_alloc", &pn->alloc, sizeof pn->alloc) ||
	    !pciname_sym(pn->dl, "pci_cleanup", &pn->cleanup, sizeof pn->cleanup) ||
	    !pciname_sym(pn->dl, "pci_lookup_name", &pn->lookup, sizeof pn->lookup) ||
	    (pn->acc = pn->alloc()) == NULL) {
		pciname_close(pn);
		return NULL;
	}
	pn->acc->error = pciname_fatal;
	pn->acc->warning = pciname_quiet;
	pn->acc->debug = pciname_quiet;
	return pn;
}

bool
pciname_device(struct pciname *pn, unsigned vendor, unsigned device, char *buf, size_t size)
{
	char	name[256];

	if (pn == NULL || pn->lookup(pn->acc, name, (int)sizeof name, PCI_LOOKUP_DEVICE |
	    PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB, (int)vendor, (int)device) == NULL ||
	    name[0] == '\0')
		return false;
	snprintf(buf, size, "%s", name);
	return true;
}

void
pciname_close(struct pciname *pn)
{
	if (pn == NULL)
		return;
	if (pn->acc != NULL)
		pn->cleanup(pn->acc);
	if (pn->dl != NULL)
		dlclose(pn->dl);
	free(pn);
}
