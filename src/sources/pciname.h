/*
 * Device names from the PCI ID database (pci.ids) through libpci's
 * pci_lookup_name, loaded with dlopen when a probe needs it: a machine
 * without libpci or without pci.ids still runs, and its devices keep
 * names made of their ids.
 */
#ifndef JOULESTAT_PCINAME_H
#define JOULESTAT_PCINAME_H

#include <stdbool.h>
#include <stddef.h>

struct pciname;

/*
 * Load libpci (path, or libpci.so.3 when NULL).  NULL when it cannot be
 * loaded or lacks a symbol: pciname_device then finds nothing.
 */
struct pciname	*pciname_open(const char *path);
/*
 * The pci.ids name of device (vendor, device), such as "Navi 31 [Radeon
 * RX 7900 XT/7900 XTX/7900 GRE/7900M]", into buf.  False, with buf
 * untouched, when pn is NULL or the database has no such device.
 */
bool		 pciname_device(struct pciname *pn, unsigned vendor, unsigned device, char *buf,
		    size_t size);
/* Let go of the database and the library; pn may be NULL. */
void		 pciname_close(struct pciname *pn);

#endif
