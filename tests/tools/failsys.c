/*
 * A preload for the tests of what joulestat does when a system call is
 * missing or refused: the calls named in FAILSYS (a comma-separated list)
 * fail when the main program itself makes them; the libraries it uses are
 * not touched.  "timerfd_create" and "epoll_create1" fail with EMFILE, as
 * at the descriptor limit; "clone3" (through syscall(2)) with ENOSYS, as
 * under a seccomp filter that refuses it, or valgrind.
 */
#include <sys/auxv.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int	__real_unused;

static bool
should_fail(const char *name, void *caller)
{
	const char	*list = getenv("FAILSYS"), *p;
	Dl_info		 main_info, info;
	size_t		 n = strlen(name);

	if (list == NULL)
		return false;
	for (p = strstr(list, name); p != NULL; p = strstr(p + 1, name)) {
		if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			break;
	}
	if (p == NULL)
		return false;
	/* The entry point lies in the main program. */
	return dladdr((void *)getauxval(AT_ENTRY), &main_info) != 0 &&
	    dladdr(caller, &info) != 0 && info.dli_fbase == main_info.dli_fbase;
}

int
timerfd_create(int clockid, int flags)
{
	static int	(*real)(int, int);

	if (should_fail("timerfd_create", __builtin_return_address(0))) {
		errno = EMFILE;
		return -1;
	}
	if (real == NULL)
		real = (int (*)(int, int))dlsym(RTLD_NEXT, "timerfd_create");
	return real(clockid, flags);
}

int
epoll_create1(int flags)
{
	static int	(*real)(int);

	if (should_fail("epoll_create1", __builtin_return_address(0))) {
		errno = EMFILE;
		return -1;
	}
	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "epoll_create1");
	return real(flags);
}

long
syscall(long n, ...)
{
	static long	(*real)(long, ...);
	va_list		 ap;
	long		 a[6];
	int		 i;

	if (n == SYS_clone3 && should_fail("clone3", __builtin_return_address(0))) {
		errno = ENOSYS;
		return -1;
	}
	va_start(ap, n);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (real == NULL)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
