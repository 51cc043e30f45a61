/*
 * The helpers every device backend shares (include/joulestat/backend.h):
 * notes and the "how it is measured" line of a device, appending to the
 * usage list, arrays and sets that grow while the workload runs, and
 * listing a sysfs directory.  Nothing here knows a vendor.
 */
#include "joulestat/backend.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/source.h"
#include "joulestat/util.h"

void
backend_note(struct device *dev, const char *fmt, ...)
{
	va_list	ap;

	if (dev->nnotes == DEVICE_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(dev->notes[dev->nnotes++], DEVICE_NOTE_LEN, fmt, ap);
	va_end(ap);
}

void
backend_notes_prefix(struct device *dev, unsigned from, const char *prefix)
{
	char		text[DEVICE_NOTE_LEN];
	unsigned	i;

	for (i = from; i < dev->nnotes; i++) {
		snprintf(text, sizeof text, "%s%s", prefix, dev->notes[i]);
		memcpy(dev->notes[i], text, sizeof text);
	}
}

void
backend_how(struct device *dev, const char *word, const char *what)
{
	size_t	len = strlen(dev->how);

	if (len + 1 + strlen(word) + 1 + strlen(what) >= sizeof dev->how)
		return;
	snprintf(dev->how + len, sizeof dev->how - len, "%s%s=%s", len == 0 ? "" : " ", word,
	    what);
}

/* Append one entry to set, growing it.  Returns the entry, zeroed. */
struct pid_usage *
pid_usage_add(struct pid_usage_set *set)
{
	struct pid_usage	*u;

	if (set->n == set->cap) {
		set->cap = set->cap == 0 ? 16 : set->cap * 2;
		set->v = xreallocarray(set->v, set->cap, sizeof *set->v);
	}
	u = &set->v[set->n++];
	memset(u, 0, sizeof *u);
	return u;
}

int
backend_grow(void *pp, size_t *cap, size_t want, size_t size)
{
	void	*p, *q;
	size_t	 n;

	/* pp is the address of some T *: copied, not cast, to read and write it. */
	memcpy(&p, pp, sizeof p);
	if (want == 0)
		want = 1;
	if (want <= *cap && p != NULL)
		return 0;
	n = *cap == 0 ? 8 : *cap * 2;
	if (n < want)
		n = want;
	if ((q = reallocarray(p, n, size)) == NULL)
		return -1;
	memcpy(pp, &q, sizeof q);
	*cap = n;
	return 0;
}

/* Where x is, or would go, in the set. */
static size_t
backend_intset_pos(const struct backend_intset *set, int x)
{
	size_t	lo = 0, hi = set->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (set->v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
backend_intset_has(const struct backend_intset *set, int x)
{
	size_t	i = backend_intset_pos(set, x);

	return i < set->n && set->v[i] == x;
}

void
backend_intset_add(struct backend_intset *set, int x)
{
	size_t	i = backend_intset_pos(set, x);

	if ((i < set->n && set->v[i] == x) ||
	    backend_grow(&set->v, &set->cap, set->n + 1, sizeof *set->v) != 0)
		return;
	memmove(&set->v[i + 1], &set->v[i], (set->n - i) * sizeof *set->v);
	set->v[i] = x;
	set->n++;
}

void
backend_intset_free(struct backend_intset *set)
{
	free(set->v);
	memset(set, 0, sizeof *set);
}

int
backend_open_dir(int dirfd, const char *path)
{
	return openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

size_t
backend_list_dir(int dirfd, void *v, size_t max, size_t size,
    bool (*keep)(const char *name, void *elem), int (*cmp)(const void *, const void *))
{
	struct dirent	*de;
	DIR		*dir;
	char		*all = NULL;
	size_t		 n = 0, cap = 0;
	int		 fd;

	/* A duplicate, so that closedir leaves the caller's fd open. */
	if ((fd = dup(dirfd)) == -1)
		return 0;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	/* All of them, then the first max in order: readdir's order is no order. */
	while ((de = readdir(dir)) != NULL) {
		if (n == cap)
			all = xreallocarray(all, cap = cap * 2 + 16, size);
		memset(all + n * size, 0, size);	/* keep fills only what it parses */
		if (keep(de->d_name, all + n * size))
			n++;
	}
	closedir(dir);
	if (n > 0)
		qsort(all, n, size, cmp);
	n = n < max ? n : max;
	if (n > 0)
		memcpy(v, all, n * size);
	free(all);
	return n;
}

int
backend_cmp_uint(const void *a, const void *b)
{
	unsigned int	x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}
