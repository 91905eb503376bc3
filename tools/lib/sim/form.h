/*
 * form.h - the step of an alike pipeline as a function of its passes'
 * times (issue 35, item 4: the fixed-order schedules in the search;
 * docs/model.md, "Fixed orders in the search").
 *
 * Where every rank runs every chunk's forward pass in F, its backward
 * pass in B (the input's gradient, where a W pass follows; else B + W),
 * its W pass in W and an overlapped pair (DualPipe's F&B) in P, and
 * transfers take no time (the search folds them into the passes), an
 * operation ends at the longest chain of operations before it, and a
 * chain's time is nF F + nB B + nW W + nP P.  So the step is
 *
 *     max over the chains' counts (nF, nB, nW, nP) of their time,
 *
 * and the counts depend on the orders alone: pipe_form_build finds them
 * by running the orders once over sets of counts instead of times,
 * keeping at each operation only the counts no other count beats for
 * any F, B >= W >= 0 and P >= 0 (a count is beaten when it is no larger
 * in F, B and P and in F + B + W).  pipe_form_step then prices the step
 * for any times at once, F and B raised to W first.  The orders being
 * fixed, a step only grows with a pass's time: priced at the slowest
 * rank's passes it is an upper bound on the pipeline of any uneven ranks
 * (t-pipeline checks it against pipe_simulate).
 *
 * The activations a rank holds at its peak (pipe_result.peak_chunks)
 * depend on its order alone too: a chunk's from its forward pass to its
 * W pass, or its backward pass where none follows.
 */
#ifndef NP_FORM_H
#define NP_FORM_H

#include <stddef.h>

#include "base/util.h"
#include "sim/pipeline.h"

enum { FORM_F, FORM_B, FORM_W, FORM_P, FORM_N };

struct pipe_form {
	int S, v;
	long m;
	size_t n;
	int (*count)[FORM_N];		/* [n]: the chains' counts */
	long *peak_chunks;		/* [S] */
};

/*
 * The form of S ranks' orders, v chunks a rank, m micro-batches, on one
 * route: route[j] the slot r v + c of position j (S v of them), NULL for
 * Megatron-LM's interleaving.  Returns -1 (err) on orders that
 * pipe_simulate would refuse as waiting on each other.
 */
int pipe_form_build(const struct pipe_order *orders, int S, int v, long m,
    const int *route, struct pipe_form *out, struct pl_err *err);

/*
 * The same with only the chains longest at the points at[0..nat-1]
 * (their F, B, W and P in integers, F and B at least W; all of equal
 * longest ones): a part of the form, exact at those points and below it
 * elsewhere, its floor (pipe_form_floor) a lower bound on the form's;
 * made in O(nat) an operation, where the form's sets cost more.
 */
int pipe_form_sample(const struct pipe_order *orders, int S, int v, long m,
    const int *route, const int (*at)[FORM_N], size_t nat,
    struct pipe_form *out, struct pl_err *err);

/* The step at passes F, B, W and pairs P (F and B raised to W). */
double pipe_form_step(const struct pipe_form *f, double F, double B,
    double W, double P);

/*
 * Where each micro-batch more adds one round of the same passes to every
 * rank's steady phase and nothing else, the forms of m and m + 1 micro-
 * batches differ by that round in every count: whether form b is form a
 * with `round` added to each count (the same counts otherwise, the same
 * peaks).
 */
int pipe_form_is_shift(const struct pipe_form *a, const struct pipe_form *b,
    const int *round);

/* Form a with k rounds more (its m + k micro-batches). */
void pipe_form_shifted(const struct pipe_form *a, long k, const int *round,
    struct pipe_form *out);

/*
 * The least step over every F, B >= W >= 0 with F + B + W = 1 and P =
 * pair (a lower bound on the step of any passes whose sum is at least 1
 * and pairs at least pair: the step grows with each): the least over
 * the triangle of F, B and W of the largest count's time, found among
 * the triangle's corners and where two or three counts' times meet.
 */
double pipe_form_floor(const struct pipe_form *f, double pair);

void pipe_form_release(struct pipe_form *f);

#endif
