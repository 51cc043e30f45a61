/*
 * Strict parsers for /proc text (HACKING.md, "The pipeline"): /proc/PID/stat,
 * /proc/PID/status and the pid lists of task/TID/children.  Text in,
 * struct out; no file access, so they are unit-tested on strings copied
 * from real kernels and fuzzed.  Formats: proc_pid_stat(5), proc_pid_status(5).
 */
#include "joulestat/procfs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

/* Keys of /proc/PID/status that we read (proc_pid_status(5)). */
static const char KEY_VMHWM[] = "VmHWM";
static const char KEY_VMRSS[] = "VmRSS";
static const char KEY_NSPID[] = "NSpid";
static const char KEY_TGID[] = "Tgid";

/*
 * Copy the next space-delimited token of *p into tok and advance *p.
 * Returns 0, -EINVAL at the end of the text, or -ERANGE for a token too
 * long to be any number we keep.
 */
static int
next_token(const char **p, char *tok, size_t size)
{
	const char	*s = *p, *e;
	size_t		 len;

	while (*s == ' ')
		s++;
	if (*s == '\0' || *s == '\n')
		return -EINVAL;
	for (e = s; *e != '\0' && *e != ' ' && *e != '\n'; e++)
		;
	len = (size_t)(e - s);
	if (len >= size)
		return -ERANGE;
	memcpy(tok, s, len);
	tok[len] = '\0';
	*p = e;
	return 0;
}

static int
parse_pid(const char *s, pid_t *out)
{
	uint64_t	v;
	int		r;

	if ((r = parse_u64(s, &v)) != 0)
		return r;
	if (v == 0 || v > 0x7fffffff)
		return -ERANGE;
	*out = (pid_t)v;
	return 0;
}

/* Where each field we keep sits, counted from field 3 (state) = 0. */
static int
stat_store(struct proc_stat *st, int field, const char *tok)
{
	uint64_t	*dst = NULL;
	pid_t		 ppid;
	int		 r;

	switch (field) {
	case 3:
		if (strlen(tok) != 1)
			return -EINVAL;
		st->state = tok[0];
		return 0;
	case 4:
		/* The ppid of init and of kernel threads' parent is 0. */
		if (strcmp(tok, "0") == 0) {
			st->ppid = 0;
			return 0;
		}
		if ((r = parse_pid(tok, &ppid)) != 0)
			return r;
		st->ppid = ppid;
		return 0;
	case 14: dst = &st->utime_ticks; break;
	case 15: dst = &st->stime_ticks; break;
	case 20: dst = &st->num_threads; break;
	case 22: dst = &st->starttime_ticks; break;
	case 24: dst = &st->rss_pages; break;
	default:
		return 0;
	}
	return parse_u64(tok, dst);
}

int
procfs_parse_last_pid(const char *loadavg, pid_t *pid)
{
	const char	*sp = strrchr(loadavg, ' ');
	uint64_t	 v;

	if (sp == NULL || parse_u64_line(sp + 1, &v) != 0 || v == 0 || v > INT32_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

int
procfs_parse_stat(const char *text, struct proc_stat *out)
{
	const char	*lp, *rp, *p;
	char		 tok[32];
	struct proc_stat st;
	size_t		 len;
	int		 field, r;

	memset(&st, 0, sizeof st);
	if ((lp = strchr(text, '(')) == NULL || (rp = strrchr(text, ')')) == NULL || rp < lp)
		return -EINVAL;
	/* Field 1, the pid, is everything before " (". */
	len = (size_t)(lp - text);
	if (len < 2 || len > sizeof tok || text[len - 1] != ' ')
		return -EINVAL;
	memcpy(tok, text, len - 1);
	tok[len - 1] = '\0';
	if ((r = parse_pid(tok, &st.pid)) != 0)
		return r;
	len = (size_t)(rp - lp - 1);
	if (len >= sizeof st.comm)
		len = sizeof st.comm - 1;
	memcpy(st.comm, lp + 1, len);
	st.comm[len] = '\0';
	if (rp[1] != ' ')
		return -EINVAL;
	p = rp + 1;
	for (field = 3; field <= 24; field++) {
		if ((r = next_token(&p, tok, sizeof tok)) != 0)
			return r;
		if ((r = stat_store(&st, field, tok)) != 0)
			return r;
	}
	*out = st;
	return 0;
}

/* "  1234 kB" -> 1234; the unit must be exactly " kB". */
static int
parse_kib(const char *v, uint64_t *out)
{
	char		 num[32];
	const char	*sp;
	size_t		 len;

	while (*v == ' ' || *v == '\t')
		v++;
	if ((sp = strchr(v, ' ')) == NULL || strcmp(sp, " kB") != 0)
		return -EINVAL;
	len = (size_t)(sp - v);
	if (len == 0 || len >= sizeof num)
		return -EINVAL;
	memcpy(num, v, len);
	num[len] = '\0';
	return parse_u64(num, out);
}

static int
parse_nspid(const char *v, struct proc_status *st)
{
	char		 tok[32];
	const char	*e;
	size_t		 len;
	pid_t		 pid;
	int		 r;

	st->nnspid = 0;
	for (;;) {
		v += strspn(v, " \t");
		if (*v == '\0')
			break;
		e = v + strcspn(v, " \t");
		len = (size_t)(e - v);
		if (st->nnspid == PROCFS_NSPID_MAX || len >= sizeof tok)
			return -ERANGE;
		memcpy(tok, v, len);
		tok[len] = '\0';
		if ((r = parse_pid(tok, &pid)) != 0)
			return r;
		st->nspid[st->nnspid++] = pid;
		v = e;
	}
	return st->nnspid > 0 ? 0 : -EINVAL;
}

static int
status_line(char *line, struct proc_status *st)
{
	char	*colon, *v;

	if ((colon = strchr(line, ':')) == NULL)
		return 0;	/* not a key line: ignore, as with unknown keys */
	*colon = '\0';
	v = colon + 1;
	if (strcmp(line, KEY_VMHWM) == 0)
		return parse_kib(v, &st->vmhwm_kib);
	if (strcmp(line, KEY_VMRSS) == 0)
		return parse_kib(v, &st->vmrss_kib);
	if (strcmp(line, KEY_NSPID) == 0)
		return parse_nspid(v, st);
	if (strcmp(line, KEY_TGID) == 0)
		return parse_pid(v + strspn(v, " \t"), &st->tgid);
	return 0;
}

int
procfs_parse_status(const char *text, struct proc_status *out)
{
	struct proc_status	 st;
	char			 line[256];
	const char		*p = text, *nl;
	size_t			 len;
	int			 r;

	memset(&st, 0, sizeof st);
	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len < sizeof line) {
			memcpy(line, p, len);
			line[len] = '\0';
			if ((r = status_line(line, &st)) != 0)
				return r;
		}
		p += len + (nl != NULL);
	}
	*out = st;
	return 0;
}

int
procfs_parse_pid_list(const char *text, void (*fn)(pid_t, void *), void *arg)
{
	const char	*p = text;
	char		 tok[32];
	pid_t		 pid;

	for (;;) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p == '\0')
			return 0;
		if (next_token(&p, tok, sizeof tok) != 0 || parse_pid(tok, &pid) != 0)
			return -EINVAL;
		fn(pid, arg);
	}
}
