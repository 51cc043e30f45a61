/*
 * spawnfloor [-c DIR] CMD [ARG...]: what a wrapper that does nothing but
 * start CMD and wait for it costs, for make bench's floor rows.  Forks,
 * execs CMD (searched in PATH), waits for it and exits with its status.
 * With -c, as joulestat's cgroup tracker does and nothing more: makes a
 * cgroup under DIR (a cgroup v2 directory), starts CMD in it with clone3
 * and CLONE_INTO_CGROUP, and removes it after the wait.
 */
#include <linux/sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pid_t
start(int cgroup_fd)
{
	struct clone_args	args = {
		.flags = CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = (uint64_t)cgroup_fd,
	};

	if (cgroup_fd < 0)
		return fork();
	return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

int
main(int argc, char **argv)
{
	const char	*dir = NULL;
	char		 name[64];
	int		 root = -1, cg = -1, st, i = 1;
	pid_t		 pid;

	if (argc > 2 && strcmp(argv[1], "-c") == 0) {
		dir = argv[2];
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: spawnfloor [-c DIR] CMD [ARG...]\n");
		return 2;
	}
	if (dir != NULL) {
		snprintf(name, sizeof name, "spawnfloor-%d", (int)getpid());
		if ((root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
		    mkdirat(root, name, 0755) == -1 ||
		    (cg = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
			fprintf(stderr, "spawnfloor: %s: %s\n", dir, strerror(errno));
			return 2;
		}
	}
	if ((pid = start(cg)) == -1) {
		perror("spawnfloor: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (dir != NULL) {
		close(cg);
		(void)unlinkat(root, name, AT_REMOVEDIR);
		close(root);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
