/*
 * schedprob.h - the per-layer operator schedule problem (sched.h
 * describes it), its types alone: sched.c solves it, ilp.c writes one
 * block of it as an integer program, and neither needs the other's
 * header for the problem itself.
 */
#ifndef NP_SCHEDPROB_H
#define NP_SCHEDPROB_H

#include <stddef.h>

enum sched_kind { SK_TC, SK_VC, SK_TCVC, SK_COLL };

struct sched_op {
	int kind;
	double single, intra;
};

struct sched_problem {
	size_t n;
	struct sched_op *op;
	unsigned char *before;	/* n*n, transitively closed: i precedes j */
	long tc_cores, vc_cores;
};

struct sched_opts {
	long tc_cores, vc_cores;	/* the accelerator's */
	double time_limit_s;	/* per block; 0: none */
	int verbose;		/* solver output on stderr */
	const char *lp_file;	/* write each block's model here (glp_write_lp) */
};

/* Cores an operator uses in single mode: *tc, *vc. */
static inline void
sched_needs(const struct sched_op *op, long *tc, long *vc)
{
	*tc = op->kind == SK_TC || op->kind == SK_TCVC;
	*vc = op->kind != SK_TC;
}

#endif
