/*
 * What every device backend needs besides its own reading code, in one
 * place (src/sources/backend.c): the device's notes and its "how it is
 * measured" line, arrays that grow while the workload runs, a sorted set
 * of numbers (pids, fd numbers), and listing a sysfs directory.  A new
 * vendor writes its probe, sample and close with these and adds one line
 * to src/sources/registry.c; see HACKING.md, "The backend contract" and
 * "Adding a vendor, a figure or an option".  pid_usage_add, which appends
 * to the caller's usage list, is declared with the contract in source.h.
 */
#ifndef JOULESTAT_BACKEND_H
#define JOULESTAT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "joulestat/source.h"

/* Add a printf-style note for the report to dev; dropped when dev->notes is full. */
void	backend_note(struct device *dev, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Put prefix before each of dev's notes from the one numbered from on, cutting their ends to fit. */
void	backend_notes_prefix(struct device *dev, unsigned from, const char *prefix);

/* Append " word=what" to dev->how (--list-devices), whole or not at all. */
void	backend_how(struct device *dev, const char *word, const char *what);

/*
 * Make room for want elements of size in the array *pp whose capacity is
 * *cap (pp is the address of the array pointer): at least twice the old
 * capacity, and at least 8.  Plain reallocarray, not xreallocarray: this
 * runs while the workload runs, where running out of memory must degrade
 * the reading, not end joulestat (HACKING.md, "Code style").
 * Returns 0, or -1 with *pp and *cap untouched.
 */
int	backend_grow(void *pp, size_t *cap, size_t want, size_t size);

/* A sorted set of ints in a growing array; all zero is the empty set. */
struct backend_intset {
	int		*v;
	size_t		 n;
	size_t		 cap;
};

bool	backend_intset_has(const struct backend_intset *set, int x);
/* Add x unless it is there; without memory the set stays as it was. */
void	backend_intset_add(struct backend_intset *set, int x);
void	backend_intset_free(struct backend_intset *set);

/* Open the directory path relative to dirfd (AT_FDCWD for plain paths); -1 with errno. */
int	backend_open_dir(int dirfd, const char *path);

/*
 * Fill v (room for max elements of size) with the first max, in cmp's
 * order, of the entries of the directory open at dirfd for which
 * keep(name, element), given a zeroed element, returns true.  dirfd stays
 * open.  Returns how many were kept; 0 when the directory cannot be read.
 */
size_t	backend_list_dir(int dirfd, void *v, size_t max, size_t size,
	    bool (*keep)(const char *name, void *elem), int (*cmp)(const void *, const void *));

/* qsort and bsearch comparison of two unsigned ints. */
int	backend_cmp_uint(const void *a, const void *b);

#endif
