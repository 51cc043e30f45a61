/*
 * The streamed timeline (--timeline; joulestat(1), TIMELINE): one CSV row
 * per device per reading.  Each row is formatted whole into a reused buffer
 * and the buffer goes out with write(2) once a second and at the end, so
 * the file only ever holds whole rows.  Unknown values are empty fields;
 * the text fields (device id and name) are quoted through libcsv.
 */
#include "joulestat/timeline.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joulestat/schema.h"

static const char *const status_words[] = { "ok", "lost", "late" };

static void
reserve(struct timeline *tl, size_t more)
{
	if (tl->len + more <= tl->cap)
		return;
	tl->cap = (tl->len + more) * 2;
	tl->buf = xreallocarray(tl->buf, tl->cap, 1);
}

static void
put(struct timeline *tl, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	reserve(tl, 64);
	va_start(ap, fmt);
	n = vsnprintf(tl->buf + tl->len, tl->cap - tl->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= tl->cap - tl->len) {
		reserve(tl, (size_t)n + 1);
		va_start(ap, fmt);
		n = vsnprintf(tl->buf + tl->len, tl->cap - tl->len, fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		tl->len += (size_t)n;
}

/* A quoted text field: libcsv writes at most 2 * len + 2 bytes. */
static void
put_text(struct timeline *tl, const char *s)
{
	size_t	len = strlen(s);

	reserve(tl, 2 * len + 3);
	tl->len += csv_write(tl->buf + tl->len, tl->cap - tl->len, s, len);
}

/* ",value" when bit is in valid, "," otherwise. */
static void
put_u(struct timeline *tl, unsigned valid, unsigned bit, uint64_t v)
{
	if (valid & bit)
		put(tl, ",%" PRIu64, v);
	else
		put(tl, ",");
}

/* The reading's clocks-event reasons as words joined by "+", "none", or empty when unknown. */
static void
put_reasons(struct timeline *tl, const struct sample *s)
{
	const char	*sep = ",";
	int		 i;

	if (s->is_lost || !(s->valid & M_THROTTLE)) {
		put(tl, ",");
		return;
	}
	if (s->throttle == 0)
		put(tl, ",none");
	for (i = 0; i < THROTTLE_NREASONS; i++) {
		if (!(s->throttle & (1u << i)))
			continue;
		put(tl, "%s%s", sep, schema_word_reason(i));
		sep = "+";
	}
}

static void
flush_buf(struct timeline *tl)
{
	int	r;

	if (tl->fd >= 0 && tl->len > 0 && tl->error == 0) {
		if ((r = write_all(tl->fd, tl->buf, tl->len)) != 0)
			tl->error = -r;
	}
	tl->len = 0;
}

int
timeline_open(struct timeline *tl, const char *path, struct errbuf *err)
{
	enum timeline_col	col;

	memset(tl, 0, sizeof *tl);
	tl->path = path;
	if (strcmp(path, "-") == 0)
		tl->fd = dup(STDOUT_FILENO);
	else
		tl->fd = open_output_fd(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (tl->fd == -1) {
		errbuf_set(err, "%s: %s", strcmp(path, "-") == 0 ? "standard output" : path,
		    output_strerror(errno));
		return -1;
	}
	for (col = 0; col < TCOL_NCOLS; col++)
		put(tl, "%s%s", col > 0 ? "," : "", schema_timeline_column(col));
	put(tl, "\n");
	flush_buf(tl);
	return 0;
}

static void
put_device_fields(struct timeline *tl, const struct device *dev, const struct sample *s,
    const struct dev_acct *a)
{
	char			name[16];
	enum energy_method	m;
	double			e = account_energy_mj(a, &m);

	if (s->valid & M_POWER)
		put(tl, ",%.3f", s->power_mw / 1e3);
	else
		put(tl, ",");
	if (m != ENERGY_NONE && !account_energy_is_held(a, m))
		put(tl, ",%.6f,%s", e / 1e3, schema_word_method(m));
	else
		put(tl, ",,");
	/* The summary's name of the state ("P0", "DPM1"): one word, no quoting. */
	if ((s->valid & M_PSTATE) && s->pstate != PSTATE_UNKNOWN)
		put(tl, ",%s", schema_state_name(dev, s->pstate, name, sizeof name));
	else
		put(tl, ",");
	put_u(tl, s->valid, M_CLOCKS, s->gfx_mhz);
	put_u(tl, s->valid, M_SM_CLOCK, s->sm_mhz);
	put_u(tl, s->valid, M_MEM_CLOCK, s->mem_mhz);
	put_u(tl, s->valid, M_UTIL, s->util_pct);
	put_u(tl, s->valid, M_UTIL, s->mem_util_pct);
	if (s->valid & M_TEMP)
		put(tl, ",%d", s->temp_c);
	else
		put(tl, ",");
}

void
timeline_row(struct timeline *tl, unsigned run, int64_t t0_ns,
    const struct device *dev, const struct sample *s, const struct dev_acct *acct,
    enum timeline_status status, const char *phase)
{
	if (tl->fd < 0)
		return;
	put(tl, "%d,%u,%.6f,%u,", TIMELINE_SCHEMA_VERSION, run, (double)(s->t_ns - t0_ns) / 1e9,
	    dev->number);
	put_text(tl, dev->id);
	put(tl, ",%s", status_words[status]);
	if (s->is_lost)
		put(tl, ",,,,,,,,,,");
	else
		put_device_fields(tl, dev, s, acct);
	if (account_share_known(acct, dev))
		put(tl, ",%.1f,%.1f,%.1f,%.1f", acct->last_tree_sm_pct, acct->last_tree_mem_pct,
		    acct->last_other_sm_pct, acct->last_other_mem_pct);
	else
		put(tl, ",,,,");
	put(tl, ",");
	put_text(tl, dev->name);
	put(tl, ",");
	if (phase != NULL)
		put_text(tl, phase);
	put_reasons(tl, s);
	put(tl, "\n");
	if (s->t_ns - tl->last_flush_ns >= TIMELINE_FLUSH_NS) {
		flush_buf(tl);
		tl->last_flush_ns = s->t_ns;
	}
}

int
timeline_close(struct timeline *tl)
{
	flush_buf(tl);
	/* Removed during the run (its directory vanished): the rows are lost. */
	if (tl->fd >= 0 && tl->error == 0 && fd_is_unlinked(tl->fd))
		tl->error = ENOENT;
	if (tl->fd >= 0 && close(tl->fd) == -1 && tl->error == 0 && errno != EINTR)
		tl->error = errno;
	tl->fd = -1;
	free(tl->buf);
	tl->buf = NULL;
	return -tl->error;
}
