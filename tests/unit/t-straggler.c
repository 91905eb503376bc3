/*
 * t-straggler.c - the expected slowest of N devices drawn from a table of
 * measured speeds (straggler.h): closed forms, a brute force over every
 * draw, and the table's refusals.
 */
#include <math.h>
#include <string.h>

#include "base/csvio.h"
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

static void
refusals(void)
{
	struct straggler_table s;
	struct pl_err err;
	char msg[512];

	OK(table(&s, "device,time_s\na,1\n", &err) < 0 &&
	    strstr(pl_err_str(&err, msg, sizeof msg),
	    "missing column 'relative_time'") != NULL,
	    "no relative_time column");
	OK(table(&s, "relative_time\n", &err) < 0 &&
	    strstr(pl_err_str(&err, msg, sizeof msg), "speeds.csv:1:") !=
	    NULL, "a header and no devices");
	OK(table(&s, "relative_time\n1\n0\n1\n", &err) < 0 &&
	    strstr(pl_err_str(&err, msg, sizeof msg), "speeds.csv:3:") !=
	    NULL, "a device of time 0, with its line");
	OK(table(&s, "relative_time\n1\n-1.2\n1\n", &err) < 0,
	    "a negative time");
	OK(table(&s, "relative_time\n1\nnan\n1\n", &err) < 0, "a NaN");
	OK(table(&s, "relative_time\n2.41\n2.38\n2.45\n", &err) < 0 &&
	    strstr(pl_err_str(&err, msg, sizeof msg), "the median is 2.41, "
	    "not 1") != NULL, "times in seconds, not relative");
}

int
main(void)
{
	closed_forms();
	against_brute_force();
	refusals();
	return tap_done();
}
