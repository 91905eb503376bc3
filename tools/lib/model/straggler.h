/*
 * straggler.h - the expected slowest device of a job (issue 35, item 5;
 * docs/model.md, "Stragglers").
 *
 * Synchronous training waits for its slowest device: a tensor-parallel
 * group at every collective, a pipeline at its slowest stage, the data-
 * parallel replicas at the gradient reduction.  Devices of one model
 * differ in speed (manufacturing and power management: Sinha et al.,
 * SC'22), so the slowest of N is slower than the median one, and more
 * so the larger N.
 *
 * A table gives one measured device a row, its time relative to the
 * median device's (column relative_time: 1.05 is 5% slower).  A job's N
 * devices are read as N draws with replacement from the table's
 * devices, and the expected slowest of them is, exactly, over the sorted
 * times x_1 <= ... <= x_n,
 *
 *   E[max] = sum_k x_k ((k/n)^N - ((k-1)/n)^N)
 *          = x_n - sum_{k<n} (x_{k+1} - x_k) (k/n)^N,
 *
 * the first weighing each time by the chance that it is the largest
 * drawn (summed in the second form).  No tail is fitted: past a few
 * times n devices it is the slowest measured one, and a lower bound on
 * what a larger fleet holds.
 */
#ifndef NP_STRAGGLER_H
#define NP_STRAGGLER_H

#include <stddef.h>

#include "base/util.h"

struct straggler_table {
	char *file;
	size_t n;
	double *relative_time;		/* ascending */
};

/* The most rows a table may have (a measured fleet), and how far from
 * the median one a row may lie (a device 100 times slower or faster is
 * broken or mismeasured, not a speed variation; the measured fleets'
 * slowest are 1.2 and 2.2, their fastest 0.95). */
#define STRAGGLER_MAX_ROWS ((size_t)1000000)
#define STRAGGLER_MAX_RELATIVE 100.0

/*
 * Read a table (CSV, a header row, column relative_time, each value
 * within a factor STRAGGLER_MAX_RELATIVE of 1; other columns ignored).
 * The median of a table of relative times is 1: one that is not
 * (further than 1%) is refused, naming it, as times in seconds or
 * another unit would be.
 */
int straggler_read(struct straggler_table *t, const char *path,
    struct pl_err *err);
struct csvio_table;
int straggler_from_table(struct straggler_table *t,
    const struct csvio_table *csv, struct pl_err *err);
void straggler_release(struct straggler_table *t);

/* The expected slowest of `devices` (>= 1) drawn from the table. */
double straggler_expected_slowest(const struct straggler_table *t,
    long devices);

#endif
