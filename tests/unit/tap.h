/*
 * tap.h - a small TAP harness for the library's unit tests.
 *
 *	OK(cond, "name")              plain check
 *	EQ_INT(got, want, "name")     prints both operands on failure
 *	EQ_DBL(got, want, rel, "name") relative tolerance (absolute near 0)
 *	EQ_STR(got, want, "name")
 *	return tap_done();            prints the plan, exit 1 on any failure
 */
#ifndef NP_TAP_H
#define NP_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static int
tap_report(int pass, const char *name)
{
	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - %s\n", pass ? "" : "not ", tap_n, name);
	return pass;
}

#define OK(cond, name) tap_report(!!(cond), name)

#define EQ_INT(got, want, name) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!tap_report(g_ == w_, name)) \
		printf("#   got %lld, want %lld (%s:%d)\n", g_, w_, \
		    __FILE__, __LINE__); \
} while (0)

#define EQ_DBL(got, want, rel, name) do { \
	double g_ = (got), w_ = (want); \
	double tol_ = (rel) * (fabs(w_) > 1e-300 ? fabs(w_) : 1.0); \
	if (!tap_report(fabs(g_ - w_) <= tol_, name)) \
		printf("#   got %.17g, want %.17g (%s:%d)\n", g_, w_, \
		    __FILE__, __LINE__); \
} while (0)

#define EQ_STR(got, want, name) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!tap_report(g_ && w_ && strcmp(g_, w_) == 0, name)) \
		printf("#   got '%s'\n#  want '%s' (%s:%d)\n", g_ ? g_ : "(null)", \
		    w_ ? w_ : "(null)", __FILE__, __LINE__); \
} while (0)

static int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}

#endif
