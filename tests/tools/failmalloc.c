/*
 * A preload for the out-of-memory tests: once the file named by
 * FAILMALLOC_FLAG exists, malloc, calloc and realloc called from the main
 * program itself return NULL, while the libraries it uses (libc's stdio,
 * the simulated NVML) still get memory.  So joulestat's own allocation
 * fails at a moment the test chooses, and what it does about it (undo the
 * clock locks, exit 125) can still be observed.
 */
#include <sys/auxv.h>

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

void	*__libc_malloc(size_t);
void	*__libc_calloc(size_t, size_t);
void	*__libc_realloc(void *, size_t);

static void		*main_base;
static bool		 is_armed;
static __thread bool	 is_inside;

__attribute__((constructor)) static void
find_main(void)
{
	Dl_info	info;

	/* The entry point lies in the main program. */
	if (dladdr((void *)getauxval(AT_ENTRY), &info) != 0)
		main_base = info.dli_fbase;
}

static bool
should_fail(void *caller)
{
	const char	*flag;
	Dl_info		 info;
	bool		 fail = false;

	if (is_inside || main_base == NULL)
		return false;
	is_inside = true;
	if (!is_armed && (flag = getenv("FAILMALLOC_FLAG")) != NULL && access(flag, F_OK) == 0)
		is_armed = true;
	if (is_armed && dladdr(caller, &info) != 0)
		fail = info.dli_fbase == main_base;
	is_inside = false;
	return fail;
}

void *
malloc(size_t n)
{
	return should_fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *
calloc(size_t n, size_t size)
{
	return should_fail(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *
realloc(void *p, size_t n)
{
	return should_fail(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}
