/*
 * pipeline.h - one step of a pipeline schedule, simulated operation by
 * operation (issue 35: pipesim's engine; docs/model.md, "Pipeline
 * schedules, simulated").
 *
 * A pipeline of S ranks, each holding v model chunks: chunk c of rank r
 * is virtual stage c S + r (Megatron-LM's interleaving), so a micro-batch
 * passes the S v virtual stages in order on its forward pass and back in
 * reverse on its backward pass.  Every rank runs its operations one at a
 * time in the order its schedule gives (pipe_order_*); an operation
 * starts when the rank is free and its input has arrived: a forward pass
 * needs the previous virtual stage's forward output, a backward pass the
 * next one's gradient (the last virtual stage: its own forward pass),
 * each after the boundary's transfer time.  Transfers either run beside
 * compute, holding neither rank, or hold the sender until they are done
 * (pipe_costs.hold_sender); a schedule whose orders wait on each other
 * in a cycle is refused.
 *
 * What comes out: when each operation ran, the step (the last one's
 * end), each rank's busy time, and the activations each rank holds at
 * its peak (a chunk's, from the start of its forward pass to the end of
 * its backward pass) in chunk-micro-batches.
 */
#ifndef NP_PIPELINE_H
#define NP_PIPELINE_H

#include <stddef.h>

#include "base/util.h"

enum { PIPE_F, PIPE_B };

/* One operation of a rank's order: a pass of micro-batch mb through its
 * model chunk `chunk`. */
struct pipe_op {
	int kind;			/* PIPE_F or PIPE_B */
	int chunk;			/* 0..v-1 */
	long mb;			/* 0..m-1 */
};

/* A rank's order of operations (owned). */
struct pipe_order {
	struct pipe_op *op;
	size_t n;
};

/*
 * One-forward-one-backward (PipeDream-Flush, Megatron-LM's
 * forward_backward_pipelining_without_interleaving): rank r of S runs
 * min(S - r - 1, m) forward passes, then alternates a forward and a
 * backward pass, then the backward passes left.
 */
void pipe_order_1f1b(int S, int r, long m, struct pipe_order *out);

/*
 * Megatron-LM's interleaved 1F1B (forward_backward_pipelining_with_
 * interleaving, core_v0.15.0 schedules.py): the forward passes go by
 * groups of `group` micro-batches (--microbatch-group-size-per-virtual-
 * pipeline-stage, default S), each group through chunk 0, then chunk 1,
 * ... (the last group takes the micro-batches left); the backward passes
 * in the same table with the chunks reversed.  Rank r first runs
 * 2 (S - r - 1) + (v - 1) group forward passes (at most m v), then
 * alternates a forward and a backward pass, then the backward passes
 * left.  Megatron-LM runs it for S <= group <= m with m mod group 0 or
 * at least S (pipe_group_ok); other groups give orders that may wait on
 * each other (pipe_simulate refuses them as a deadlock).
 */
void pipe_order_interleaved(int S, int v, int r, long m, long group,
    struct pipe_order *out);
/* Whether Megatron-LM runs micro-batch groups of `group` (schedules.py:
 * S <= group <= m, m mod group 0 or at least S). */
int pipe_group_ok(int S, long m, long group);

/* GPipe: every forward pass, then every backward pass, in micro-batch
 * order (the backward passes in reverse order of the chunks). */
void pipe_order_gpipe(int S, int v, int r, long m, struct pipe_order *out);

void pipe_order_release(struct pipe_order *o);

/* The durations of a step's operations. */
struct pipe_costs {
	int S, v;
	long m;
	const double *fwd_s, *bwd_s;	/* [r v + c]: one micro-batch's pass */
	/* [j], j < S v - 1: from virtual stage j to j + 1 (activations)
	 * and back (their gradients), one way; NULL: none */
	const double *transfer_s;
	/* 1: a pass's output transfer holds its rank after the pass, as
	 * Megatron-LM's non-interleaved 1F1B waits for its sends (the
	 * input arrives when the sender is done); 0: transfers run beside
	 * compute, the input arriving the transfer time after the pass */
	int hold_sender;
};

struct pipe_event {
	int rank, kind, chunk;
	long mb;
	double start_s, end_s;
};

struct pipe_result {
	double step_s;
	double *busy_s;			/* [S] */
	double *end_s;			/* [S]: when its last pass ends */
	long *peak_chunks;		/* [S]: chunk-micro-batches held */
	struct pipe_event *ev;		/* every operation, in the order
					 * they were scheduled */
	size_t nev;
};

/*
 * Simulate one step of costs c under the ranks' orders (S of them).
 * Each (micro-batch, virtual stage) must appear once as a forward and
 * once as a backward pass on its rank; returns -1 (err) when not, or
 * when the orders wait on each other in a cycle (a deadlock).
 */
int pipe_simulate(const struct pipe_costs *c, const struct pipe_order *orders,
    struct pipe_result *out, struct pl_err *err);
void pipe_result_release(struct pipe_result *r);

#endif
