/*
 * Series statistics (stats.h): a figure's summary over the runs that have
 * it, and the warnings about outliers and spread that go with it.
 */
#include "joulestat/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joulestat/util.h"

static int
double_cmp(const void *x, const void *y)
{
	const double	*a = x, *b = y;

	return (*a > *b) - (*a < *b);
}

static double
sorted_median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void
series_stats(const double *v, size_t n, struct series_stat *out)
{
	double	*tmp, sum = 0, ss = 0;
	size_t	 i;

	memset(out, 0, sizeof *out);
	if ((out->n = n) == 0)
		return;
	tmp = xcalloc(n, sizeof *tmp);
	memcpy(tmp, v, n * sizeof *tmp);
	qsort(tmp, n, sizeof *tmp, double_cmp);
	for (i = 0; i < n; i++)
		sum += v[i];
	out->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	out->min = tmp[0];
	out->max = tmp[n - 1];
	out->median = sorted_median(tmp, n);
	for (i = 0; i < n; i++)
		tmp[i] = fabs(v[i] - out->median);
	qsort(tmp, n, sizeof *tmp, double_cmp);
	out->mad = sorted_median(tmp, n);
	free(tmp);
}

double
series_mzscore(const struct series_stat *st, double x)
{
	return st->mad > 0 ? 0.6745 * (x - st->median) / st->mad : 0;
}

void
series_figure(const double *v, size_t n, struct series_stat *out)
{
	double	*known = xcalloc(n, sizeof *known);
	size_t	 i, k = 0;

	for (i = 0; i < n; i++) {
		if (!isnan(v[i]))
			known[k++] = v[i];
	}
	series_stats(known, k, out);
	free(known);
}

/* The farther of lo and hi from x. */
static double
farther(double x, double lo, double hi)
{
	return max_d(x - lo, hi - x);
}

void
series_bound(const double *v, const double *e, size_t n, struct series_bound *out)
{
	double			*x = xcalloc(4 * n + 1, sizeof *x);
	double			*b = x + n, *lo = b + n, *hi = lo + n;
	struct series_stat	 s, sl, sh, se;
	size_t			 i, k = 0;

	memset(out, 0, sizeof *out);
	for (i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (isnan(e[i])) {
			k = 0;	/* a run in the statistic without its bound */
			break;
		}
		x[k] = v[i];
		b[k] = e[i];
		lo[k] = v[i] - e[i];
		hi[k++] = v[i] + e[i];
	}
	if (k > 0) {
		series_stats(x, k, &s);
		series_stats(b, k, &se);
		series_stats(lo, k, &sl);
		series_stats(hi, k, &sh);
		out->mean = se.mean;
		out->median = farther(s.median, sl.median, sh.median);
		out->min = farther(s.min, sl.min, sh.min);
		out->max = farther(s.max, sl.max, sh.max);
		out->has = true;
	}
	free(x);
}

void
series_warn(struct series *s, const char *fmt, ...)
{
	va_list	ap;

	if (s->nwarnings == SERIES_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(s->warnings[s->nwarnings++], sizeof s->warnings[0], fmt, ap);
	va_end(ap);
}

/* Outliers by modified z-score, and a spread too large to trust the mean. */
void
series_check(struct series *s, const double *v, const unsigned *runs, const char *what,
    const struct series_stat *st)
{
	size_t	i;
	double	z, x;

	for (i = 0; i < s->n && st->n >= SERIES_OUTLIER_MIN_N; i++) {
		x = v[i];
		if (isnan(x) || fabs(x - st->median) <= SERIES_OUTLIER_REL * fabs(st->median))
			continue;
		if (fabs(z = series_mzscore(st, x)) > SERIES_OUTLIER_Z)
			series_warn(s, "run %u is an outlier in %s: %.3f against a median of %.3f "
			    "(modified z-score %.1f)", runs[i], what, x, st->median, z);
	}
	if (st->n > 1 && st->mean > 0 && st->sd / st->mean > SERIES_SPREAD_CV)
		series_warn(s, "%s varies by %.1f%% across runs (standard deviation / mean): "
		    "consider --cooldown, --warmup or more runs", what, 100 * st->sd / st->mean);
}

void
report_series_free(struct series *s)
{
	free(s->devs);
	memset(s, 0, sizeof *s);
}
