/*
 * straggler.c - the expected slowest device of a job (straggler.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"
#include "model/straggler.h"

/* How far a table's median may lie from 1 (its rows' rounding). */
#define MEDIAN_TOLERANCE 0.01

static int
ascending(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
straggler_from_table(struct straggler_table *t, const struct csvio_table *csv,
    struct pl_err *err)
{
	double median;
	int col;

	memset(t, 0, sizeof *t);
	if ((col = csvio_col(csv, "relative_time", err)) < 0 ||
	    csvio_need_rows(csv, "devices", err) < 0)
		return -1;
	t->relative_time = xcalloc(csv->nrows, sizeof *t->relative_time);
	for (size_t r = 0; r < csv->nrows; r++) {
		if (csvio_double(csv, r, col, CSVIO_POSITIVE,
		    &t->relative_time[r], err) < 0) {
			straggler_release(t);
			return -1;
		}
		if (t->relative_time[r] > STRAGGLER_MAX_RELATIVE ||
		    t->relative_time[r] < 1 / STRAGGLER_MAX_RELATIVE) {
			double x = t->relative_time[r];

			straggler_release(t);
			return pl_errf(err, csv->file, csv->lines[r], "column "
			    "'relative_time': %g: a device %g times %s than "
			    "the median one is not a speed variation (%g to "
			    "%g)", x, x > 1 ? x : 1 / x, x > 1 ? "slower" :
			    "faster", 1 / STRAGGLER_MAX_RELATIVE,
			    STRAGGLER_MAX_RELATIVE);
		}
	}
	t->n = csv->nrows;
	qsort(t->relative_time, t->n, sizeof *t->relative_time, ascending);
	median = t->n % 2 ? t->relative_time[t->n / 2] :
	    (t->relative_time[t->n / 2 - 1] + t->relative_time[t->n / 2]) / 2;
	if (fabs(median - 1) > MEDIAN_TOLERANCE) {
		straggler_release(t);
		return pl_errf(err, csv->file, 1, "column 'relative_time': the "
		    "median is %g, not 1: each device's time over the median "
		    "device's (not seconds)", median);
	}
	t->file = xstrdup(csv->file);
	return 0;
}

int
straggler_read(struct straggler_table *t, const char *path,
    struct pl_err *err)
{
	struct csvio_table csv;
	int rc;

	memset(t, 0, sizeof *t);
	if (csvio_read_max(&csv, path, STRAGGLER_MAX_ROWS,
	    "a measured fleet, one device a row", err) < 0)
		return -1;
	rc = straggler_from_table(t, &csv, err);
	csvio_release(&csv);
	return rc;
}

void
straggler_release(struct straggler_table *t)
{
	free(t->file);
	free(t->relative_time);
	memset(t, 0, sizeof *t);
}

double
straggler_expected_slowest(const struct straggler_table *t, long devices)
{
	const double *x = t->relative_time;
	double n = (double)t->n, N = (double)devices, below = 0;

	/* E[max] = x_n - sum_{k<n} (x_{k+1} - x_k) (k/n)^N: the slowest
	 * time less each gap the draws all stay under, the chance of
	 * which is (k/n)^N.  The gaps are never negative, so that the sum
	 * cannot leave [x_1, x_n] nor fall as N grows by its rounding, as
	 * a sum of x_k times the chance that it is the largest can on a
	 * table of many equal rows.  (k/n)^N as exp(N log1p(-(n-k)/n)):
	 * accurate near k = n, where the weight lies, at N of 2^30. */
	for (size_t k = 1; k < t->n; k++)
		below += (x[k] - x[k - 1]) * exp(N * log1p(-(double)(t->n -
		    k) / n));
	return fmax(x[0], x[t->n - 1] - below);
}
