#!/usr/bin/env python3
"""Time the matrix products the analytic model prices, on the GPU at hand.

    python3 tests/device/gemm-shapes.py SHAPES.csv OUT.csv

SHAPES.csv: name,m,n,k,batch (graph-normalize -O's gemm columns: the
forward product (m x k)(k x n), `batch` of them side by side, as grouped
experts run).  For each: the forward product, and the backward's two, the
input gradient (m x n)(n x k) and the weight gradient (k x m)(m x n), in
bf16 with fp32 accumulation (torch.matmul, cuBLAS, as Megatron-LM's
non-TE products), each the median of 50 timed runs after 10 warm-ups
(CUDA events), on random data.  OUT.csv: name,m,n,k,batch,forward_s,
backward_s,forward_tflops,backward_tflops, and a comment line naming the
GPU, its driver and PyTorch.  Not part of make check: it needs a GPU."""
import csv
import sys

import torch

from cudatime import timed


def product(batch, m, k, n):
    x = torch.randn(batch, m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(batch, k, n, device="cuda", dtype=torch.bfloat16)
    if batch == 1:
        x, w = x[0], w[0]
        return lambda: torch.matmul(x, w)
    return lambda: torch.bmm(x, w)


def main(src, dst):
    rows = list(csv.DictReader(open(src)))
    out = open(dst, "w")
    out.write("# %s, driver %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("name,m,n,k,batch,forward_s,backward_s,forward_tflops,backward_tflops\n")
    for r in rows:
        m, n, k, g = (int(float(r[c])) for c in ("m", "n", "k", "batch"))
        fwd = timed(product(g, m, k, n), 50, 10)
        bwd = timed(product(g, m, n, k), 50, 10) + timed(product(g, k, m, n), 50, 10)
        flops = 2.0 * g * m * n * k
        out.write("%s,%d,%d,%d,%d,%.6g,%.6g,%.1f,%.1f\n" % (
            r["name"], m, n, k, g, fwd, bwd, flops / fwd / 1e12,
            2 * flops / bwd / 1e12))
        out.flush()
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
