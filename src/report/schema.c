/*
 * The words of the summary schema (schema.h): column names, row kinds,
 * methods, kinds, outcomes, verdicts and P-state names.  Tables indexed
 * by the enums they name, so a word cannot be paired with the wrong one.
 */
#include "joulestat/schema.h"

#include <stdio.h>
#include <string.h>

#include "joulestat/csvin.h"
#include "joulestat/util.h"

#define SCHEMA_NAME(e, name)	[e] = name,
#define SCHEMA_NAME_UNIT(e, name, unit)	[e] = name,
#define SCHEMA_UNIT(e, name, unit)	[e] = unit,

static const char *const summary_columns[COL_NCOLS] = {
	SUMMARY_COLUMNS(SCHEMA_NAME_UNIT)
};

/* Each column's unit in the long form (schema.h, SUMMARY_COLUMNS). */
static const char *const column_units[COL_NCOLS] = {
	SUMMARY_COLUMNS(SCHEMA_UNIT)
};

static const char *const merge_columns[MCOL_NCOLS] = {
	MERGE_COLUMNS(SCHEMA_NAME)
};

static const char *const timeline_columns[TCOL_NCOLS] = {
	TIMELINE_COLUMNS(SCHEMA_NAME)
};

static const char *const long_columns[LCOL_NCOLS] = {
	LONG_COLUMNS(SCHEMA_NAME)
};

/* Look a word up in a table indexed by an enum; "" past its end. */
static const char *
word_of(const char *const *words, size_t nwords, size_t i)
{
	return i < nwords && words[i] != NULL ? words[i] : "";
}

const char *
schema_column(enum summary_col col)
{
	return word_of(summary_columns, ARRAY_SIZE(summary_columns), col);
}

const char *
schema_merge_column(enum merge_col col)
{
	return word_of(merge_columns, ARRAY_SIZE(merge_columns), col);
}

const char *
schema_timeline_column(enum timeline_col col)
{
	return word_of(timeline_columns, ARRAY_SIZE(timeline_columns), col);
}

const char *
schema_long_column(enum long_col col)
{
	return word_of(long_columns, ARRAY_SIZE(long_columns), col);
}

const char *
schema_column_unit(enum summary_col col)
{
	return col < COL_NCOLS ? column_units[col] : NULL;
}

const char *
schema_scope(enum summary_scope scope)
{
	static const char *const words[] = {
		[SCOPE_RUN] = "run",
		[SCOPE_DEVICE] = "device",
		[SCOPE_PSTATE] = "pstate",
		[SCOPE_PROCESS] = "process",
		[SCOPE_GATE] = "gate",
		[SCOPE_PHASE] = "phase",
		[SCOPE_PHASE_PSTATE] = "phase_pstate",
		[SCOPE_PHASE_OCC] = "phase_occurrence",
	};

	return word_of(words, ARRAY_SIZE(words), scope);
}

const char *
schema_merge_scope(enum merge_scope scope)
{
	static const char *const words[] = {
		[MSCOPE_JOB] = "job",
		[MSCOPE_RANK] = "rank",
		[MSCOPE_DEVICE] = "device",
		[MSCOPE_PHASE] = "phase",
	};

	return word_of(words, ARRAY_SIZE(words), scope);
}

const char *
schema_series_row(enum series_row row)
{
	static const char *const words[] = {
		[ROW_MEAN] = "mean",
		[ROW_STDDEV] = "stddev",
		[ROW_MEDIAN] = "median",
		[ROW_MIN] = "min",
		[ROW_MAX] = "max",
		[ROW_N] = "n",
	};

	return word_of(words, ARRAY_SIZE(words), row);
}

bool
schema_is_series_row(const char *run)
{
	int	row;

	for (row = 0; row < ROW_NROWS; row++) {
		if (strcmp(run, schema_series_row(row)) == 0)
			return true;
	}
	return false;
}

const char *
schema_word_method(enum energy_method m)
{
	static const char *const words[] = {
		[ENERGY_COUNTER] = "counter",
		[ENERGY_POINTS] = "driver-samples",
		[ENERGY_TICKS] = "readings",
	};

	return word_of(words, ARRAY_SIZE(words), m);
}

const char *
schema_word_kind(enum power_kind k)
{
	static const char *const words[] = {
		[POWER_KIND_INSTANT] = "instant",
		[POWER_KIND_AVERAGE_1S] = "average-1s",
		[POWER_KIND_AVERAGE_FW] = "average-firmware",
	};

	return word_of(words, ARRAY_SIZE(words), k);
}

const char *
schema_word_idle(enum idle_method m)
{
	static const char *const words[] = {
		[IDLE_BASELINE] = "baseline",
		[IDLE_GIVEN] = "given",
		[IDLE_MIN_SEEN] = "minimum-seen",
	};

	return word_of(words, ARRAY_SIZE(words), m);
}

const char *
schema_word_outcome(enum outcome o)
{
	static const char *const words[] = {
		[OUTCOME_EXITED] = "exited",
		[OUTCOME_SIGNALED] = "signaled",
		[OUTCOME_NOT_FOUND] = "not-found",
		[OUTCOME_CANNOT_EXEC] = "cannot-execute",
		[OUTCOME_ATTACHED] = "attached",
		[OUTCOME_INTERRUPTED] = "interrupted",
	};

	return word_of(words, ARRAY_SIZE(words), o);
}

const char *
schema_word_reason(int i)
{
#define REASON_WORD(a, name, word)	#word,
	static const char *const words[THROTTLE_NREASONS] = {
		THROTTLE_REASONS(REASON_WORD, ~)
	};
#undef REASON_WORD

	return i >= 0 ? word_of(words, ARRAY_SIZE(words), (size_t)i) : "";
}

const char *
schema_phrase_split(enum pstate_split k)
{
	static const char *const words[] = {
		[PSTATE_SPLIT_CROSSING] = "counter split where instantaneous power shows the change",
		[PSTATE_SPLIT_STATE_POWER] = "counter split by per-state power estimated from the "
		    "counter",
		[PSTATE_SPLIT_END_POWER] = "counter split by the power readings at both ends",
	};

	return word_of(words, ARRAY_SIZE(words), k);
}

const char *
schema_word_estimate(void)
{
	return "estimate";
}

const char *
schema_word_verdict(bool is_pass)
{
	return is_pass ? "pass" : "fail";
}

const char *
schema_state_name(const struct device *dev, int pstate, char *buf, size_t size)
{
	enum pstate_names	names = dev != NULL ? dev->pstate_names : PSTATE_NAMES_P;

	if (pstate == PSTATE_UNKNOWN)
		snprintf(buf, size, "unknown");
	else if (names == PSTATE_NAMES_DPM && pstate == PSTATE_MAX)
		snprintf(buf, size, "deep-sleep");
	else if (names == PSTATE_NAMES_DPM)
		snprintf(buf, size, "DPM%d", pstate);
	else if (names == PSTATE_NAMES_RC6 && pstate == PSTATE_MAX)
		snprintf(buf, size, "RC6");
	else if (names == PSTATE_NAMES_RC6 && pstate == 0)
		snprintf(buf, size, "awake");
	else
		snprintf(buf, size, "P%d", pstate);
	return buf;
}

const char *
schema_slot_name(const struct device *dev, int slot, char *buf, size_t size)
{
	return schema_state_name(dev, slot == ACCOUNT_STATE_UNKNOWN ? PSTATE_UNKNOWN : slot, buf,
	    size);
}

int
schema_check_summary(const struct csvin *t, struct errbuf *err)
{
	const struct csvin_row	*row;
	int			 col = csvin_col(t, schema_column(COL_SCHEMA));
	char			 want[16];
	size_t			 i;

	snprintf(want, sizeof want, "%d", SCHEMA_SUMMARY_VERSION);
	for (i = 1; i < t->nrows; i++) {
		row = &t->rows[i];
		/* A blank line is no row. */
		if (row->n == 0 || (row->n == 1 && row->f[0][0] == '\0'))
			continue;
		if (row->n != t->rows[0].n) {
			errbuf_set(err, "line %zu: %zu fields where the header has %zu (a row cut "
			    "short or run on)", row->line, row->n, t->rows[0].n);
			return -1;
		}
		if (col >= 0 && strcmp(row->f[col], want) != 0) {
			errbuf_set(err, "line %zu: schema_version '%s' is not %s, the one this "
			    "joulestat reads", row->line, VIS(row->f[col]), want);
			return -1;
		}
	}
	return 0;
}
