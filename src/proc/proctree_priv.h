/*
 * What the two halves of the process tree share, and nothing else
 * includes:
 *
 *	proctree.c	the records: (pid, start time) identity, the stat
 *			reads and the files kept open for them, a refresh
 *	proctree_walk.c	how a refresh finds the members: children files,
 *			one scan of the proc root, or the cgroup's list
 */
#ifndef JOULESTAT_PROCTREE_PRIV_H
#define JOULESTAT_PROCTREE_PRIV_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "joulestat/procfs.h"
#include "joulestat/proctree.h"

#define PROCTREE_TEXT_MAX	4096	/* a stat file; children lists grow past it */

/* The newest process seen with this pid, or NULL. */
struct proc	*tree_lookup(const struct proctree *tree, pid_t pid);
/*
 * Record one process found by a walk; returns it, or NULL if it vanished,
 * was set aside or was already visited in this walk.
 */
struct proc	*tree_visit(struct proctree *tree, pid_t pid, int64_t t_ns,
		    struct proc_stat *st);
/* A new cgroup member known by its pid alone (proctree.h, is_bare), live at t_ns. */
struct proc	*tree_add_bare(struct proctree *tree, pid_t pid, int64_t t_ns);
/* Read bare member p's identity, name and state from /proc.  0, or -1 (gone: a race). */
int		 tree_fill_bare(struct proctree *tree, struct proc *p);
void		 tree_live_push(struct proctree *tree, struct proc *p);
/* Close *fd if open, give its place in the descriptor budget back, set it to -1. */
void		 tree_close_fd(struct proctree *tree, int *fd);
/*
 * Read path under dirfd whole into tree->text, through the file in *slot
 * or one kept open there within the budget (none kept when slot is NULL).
 */
ssize_t		 tree_read_keep(struct proctree *tree, int dirfd, const char *path, int *slot);
int		 tree_read_stat(const struct proctree *tree, pid_t pid, struct proc_stat *st);

void		 tree_walk_children(struct proctree *tree, int64_t t_ns);
void		 tree_walk_scan(struct proctree *tree, int64_t t_ns);
void		 tree_walk_cgroup(struct proctree *tree, bool is_quiet, int64_t t_ns);

#endif
