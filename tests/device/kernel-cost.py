#!/usr/bin/env python3
"""What a kernel costs beyond its work, on the GPU at hand: chains of the
same kernel captured in a CUDA graph and replayed, so that neither the
host nor events sit between them.

    python3 tests/device/kernel-cost.py OUT.csv

For each kernel, a chain of 1 and of 200 captured alike; (t200 - t1) / 199
is a kernel's time inside a chain, back to back as a training step runs
them.  Kernels: an in-place add (one read, one write) over 1 KiB to
256 MiB of bf16, and bf16 products (torch.matmul) of m x n x k from
1,024 x 768 x 768 up.  Each replay the median of 20 after 3 warm-ups.
OUT.csv: what,bytes,m,n,k,seconds_a_kernel and a comment line naming the
GPU, CUDA and PyTorch.  Not part of make check: it needs a GPU."""
import sys

import torch

from cudatime import queued


def chained(fn, count):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(count):
            fn()
    return queued(g.replay, runs=20, warm=3)


def per_kernel(fn):
    return (chained(fn, 200) - chained(fn, 1)) / 199


def main(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("what,bytes,m,n,k,seconds_a_kernel\n")
    size = 512
    while size <= (128 << 20):
        x = torch.zeros(size, device="cuda", dtype=torch.bfloat16)
        out.write("add,%d,,,,%.6g\n" % (4 * size, per_kernel(lambda: x.add_(1))))
        size *= 4
    for m, n, k in ((1024, 768, 768), (1024, 2048, 2048), (4096, 2048, 2048),
                    (4096, 1536, 2048), (4096, 8192, 2048), (4096, 2048, 8192)):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        out.write("matmul,,%d,%d,%d,%.6g\n" % (
            m, n, k, per_kernel(lambda: torch.matmul(a, b, out=c))))
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
