/*
 * t-straggler.c - the expected slowest of N devices drawn from a table of
 * measured speeds (straggler.h): closed forms, a brute force over every
 * draw, and the table's refusals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csvio.h"
#include "model/layers.h"
#include "model/straggler.h"
#include "tap.h"

static int
table(struct straggler_table *s, const char *text, struct pl_err *err)
{
	struct csvio_table t;
	int rc;

	if (csvio_parse(&t, "speeds.csv", text, strlen(text), err) < 0)
		return -1;
	rc = straggler_from_table(s, &t, err);
	csvio_release(&t);
	return rc;
}

/* The slowest of N draws averaged over all n^N of them, equally likely. */
static double
brute_force(const double *x, int n, int N)
{
	long total = 1;
	double sum = 0;

	for (int i = 0; i < N; i++)
		total *= n;
	for (long c = 0; c < total; c++) {
		double worst = 0;

		for (long k = c, i = 0; i < N; i++, k /= n)
			worst = fmax(worst, x[k % n]);
		sum += worst;
	}
	return sum / (double)total;
}

static void
closed_forms(void)
{
	struct straggler_table s;
	struct pl_err err;

	/* two devices of three at the median, one 1.5x: the slowest of N
	 * is 1.5 unless every draw misses it, (2/3)^N */
	OK(table(&s, "device,relative_time\na,1\nb,1.5\nc,1\n", &err) == 0,
	    "a table of three devices");
	EQ_DBL(straggler_expected_slowest(&s, 1), (1 + 1.5 + 1) / 3, 1e-15,
	    "one device: the table's mean");
	for (long N = 1; N <= 64; N *= 4) {
		char name[64];

		snprintf(name, sizeof name, "slowest of %ld: 1.5 - 0.5 "
		    "(2/3)^%ld", N, N);
		EQ_DBL(straggler_expected_slowest(&s, N), 1.5 - 0.5 *
		    pow(2.0 / 3, (double)N), 1e-13, name);
	}
	EQ_DBL(straggler_expected_slowest(&s, 1L << 30), 1.5, 1e-15,
	    "2^30 devices: the slowest measured one");
	straggler_release(&s);
}

/* Many equal rows: the slowest of any number is that time, to the bit
 * (a sum of each time by its chance of being the largest drifts by the
 * rows' count of roundings). */
static void
equal_rows(void)
{
	enum { ROWS = 65536 };
	struct csvio_table csv;
	struct straggler_table s;
	struct pl_err err;
	char *text = xmalloc(ROWS * 20 + 32), *at = text;
	double x = 1.0000000000036382;

	at += sprintf(at, "relative_time\n");
	for (int i = 0; i < ROWS; i++)
		at += sprintf(at, "%.17g\n", x);
	OK(csvio_parse(&csv, "equal.csv", text, (size_t)(at - text),
	    &err) == 0 && straggler_from_table(&s, &csv, &err) == 0,
	    "65,536 equal rows");
	OK(straggler_expected_slowest(&s, 1) == s.relative_time[0] &&
	    straggler_expected_slowest(&s, 1L << 30) == s.relative_time[0],
	    "the slowest of 1 or 2^30 equal devices is their time, exactly");
	straggler_release(&s);
	csvio_release(&csv);
	free(text);
}

static void
against_brute_force(void)
{
	/* unsorted, with a tie */
	static const double x[] = { 1.3, 0.95, 1.0, 1.1, 1.0 };
	struct straggler_table s;
	struct pl_err err;
	char name[64];

	OK(table(&s, "relative_time,note\n1.3,x\n0.95,\n1.0,\n1.1,\n1.0,\n",
	    &err) == 0, "five devices, unsorted");
	for (int N = 1; N <= 6; N++) {
		snprintf(name, sizeof name, "slowest of %d: every draw "
		    "enumerated", N);
		EQ_DBL(straggler_expected_slowest(&s, N), brute_force(x, 5, N),
		    1e-12, name);
	}
	straggler_release(&s);
}

/* A table refused, its message saying `says` ("" for any message). */
static int
refused(const char *text, const char *says)
{
	struct straggler_table s;
	struct pl_err err;
	char msg[512];

	if (table(&s, text, &err) == 0) {
		straggler_release(&s);
		return 0;
	}
	return strstr(pl_err_str(&err, msg, sizeof msg), says) != NULL;
}

static void
refusals(void)
{
	OK(refused("device,time_s\na,1\n", "missing column 'relative_time'"),
	    "no relative_time column");
	OK(refused("relative_time\n", "speeds.csv:1:"),
	    "a header and no devices");
	OK(refused("relative_time\n1\n0\n1\n", "speeds.csv:3:"),
	    "a device of time 0, with its line");
	OK(refused("relative_time\n1\n-1.2\n1\n", ""), "a negative time");
	OK(refused("relative_time\n1\nnan\n1\n", ""), "a NaN");
	OK(refused("relative_time\n1\n1e-300\n1\n", "times faster"),
	    "a device 1e300 times faster: not a speed variation");
	OK(refused("relative_time\n1\n1e18\n1\n", "speeds.csv:3:"),
	    "a device 1e18 times slower: not a speed variation");
	OK(refused("relative_time\n2.41\n2.38\n2.45\n",
	    "the median is 2.41, not 1"), "times in seconds, not relative");
}

/* Every time a row runs on the device scales; its bytes do not. */
static void
scaled_row(void)
{
	struct tp_pair pair = { 0, 1e6, 0.5, 0.25 };
	struct layer L = { 0 };
	struct layer_graph g = { 0 };
	const double f = 1.25;

	L.forward_s = 1;
	L.backward_s = 2;
	L.weight_gradient_s = 0.75;
	L.recompute_s = 0.9;
	L.selective_recompute_s = 0.1;
	L.op_sac_recompute_s = 0.3;
	L.forward_bound_s = 0.8;
	L.backward_bound_s = 1.6;
	L.parameter_bytes = 7e6;
	L.activation_bytes = 3e6;
	L.coll_bytes[LCOLL_ALL_REDUCE] = 4e6;
	L.ntp = 1;
	L.tp = &pair;
	g.n = 1;
	g.l = &L;
	layers_scale_times(&g, f);
	EQ_DBL(L.forward_s, 1.25, 1e-15, "forward pass scaled");
	EQ_DBL(L.backward_s, 2.5, 1e-15, "backward pass scaled");
	EQ_DBL(L.weight_gradient_s, 0.9375, 1e-15, "W pass scaled");
	EQ_DBL(L.recompute_s, 1.125, 1e-15, "full recomputation scaled");
	EQ_DBL(L.selective_recompute_s, 0.125, 1e-15, "selective scaled");
	EQ_DBL(L.op_sac_recompute_s, 0.375, 1e-15, "per-operator scaled");
	EQ_DBL(L.forward_bound_s, 1.0, 1e-15, "forward bound scaled");
	EQ_DBL(L.backward_bound_s, 2.0, 1e-15, "backward bound scaled");
	EQ_DBL(pair.forward_s, 0.625, 1e-15, "a tensor-parallel pair's "
	    "product scaled");
	EQ_DBL(pair.backward_s, 0.3125, 1e-15, "its backward scaled");
	OK(pair.bytes == 1e6 && L.parameter_bytes == 7e6 &&
	    L.activation_bytes == 3e6 && L.coll_bytes[LCOLL_ALL_REDUCE] ==
	    4e6, "bytes, and so transfers, unchanged");
}

int
main(void)
{
	scaled_row();
	closed_forms();
	equal_rows();
	against_brute_force();
	refusals();
	return tap_done();
}
