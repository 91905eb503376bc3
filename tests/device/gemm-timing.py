#!/usr/bin/env python3
"""How a product's measured time depends on how it is timed, and the
fixed cost of a kernel as a training step runs it, on the GPU at hand.

    python3 tests/device/gemm-timing.py GRID.csv KERNELS.csv

GRID.csv: a grid of shapes (m 1,024-8,192; n and k each 768, 1,536,
2,048, 4,096, 7,168), bf16 (torch.matmul) and FP8 with a scale a tensor
(torch._scaled_mm, E4M3, bf16 out), each timed three ways:

  isolated  each call alone between two events (cudatime.timed, as
            data/measured/gemm-grid-h100-2026-11-26.csv was timed): the
            host's launch time is counted;
  warm      calls enqueued behind a sleeping kernel and run back to back
            (cudatime.queued): the operands stay in L2 between calls;
  cold      as warm, with a 256 MiB write before each call, so that the
            operands come from memory, as a layer's weights do.

KERNELS.csv: the time of an in-place add (one read, one write) over
1 KiB to 1 GiB of bf16, queued, and of 200 such tiny kernels enqueued
back to back (their time apart: what a kernel costs beyond its bytes).
Each a median of 30 after 5 warm-ups.  Not part of make check: it needs
a GPU."""
import sys

import torch

from cudatime import timed, queued

E4M3 = torch.float8_e4m3fn


def grid(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("m,n,k,kind,timing,seconds,tflops\n")
    one = torch.ones((), device="cuda", dtype=torch.float32)
    junk = torch.empty(256 << 20, device="cuda", dtype=torch.uint8)
    widths = (768, 1536, 2048, 4096, 7168)
    for m in (1024, 4096, 8192):
        for n in widths:
            for k in widths:
                flops = 2.0 * m * n * k
                a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
                a8 = a.to(E4M3)
                b8 = b.t().contiguous().to(E4M3).t()    # column-major
                kinds = (("bf16", lambda: torch.matmul(a, b)),
                         ("fp8", lambda: torch._scaled_mm(
                             a8, b8, one, one, out_dtype=torch.bfloat16)))
                for kind, fn in kinds:
                    for timing, s in (
                            ("isolated", timed(fn)),
                            ("warm", queued(fn)),
                            ("cold", queued(fn, flush=junk.zero_))):
                        out.write("%d,%d,%d,%s,%s,%.6g,%.1f\n" % (
                            m, n, k, kind, timing, s, flops / s / 1e12))
                out.flush()
    out.close()


def kernels(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("what,bytes,seconds,GBps\n")
    size = 512                          # bf16 elements: 1 KiB
    while size <= (512 << 20):
        x = torch.zeros(size, device="cuda", dtype=torch.bfloat16)
        s = queued(lambda: x.add_(1))
        moved = 2 * 2 * size            # read and write, 2 bytes each
        out.write("add,%d,%.6g,%.1f\n" % (moved, s, moved / s / 1e9))
        size *= 4
    tiny = torch.zeros(512, device="cuda", dtype=torch.bfloat16)

    def chain():
        for _ in range(200):
            tiny.add_(1)
    s = queued(chain, runs=10, warm=2, sleep_cycles=400_000_000) / 200
    out.write("add_chain_200,%d,%.6g,%.1f\n" % (2048, s, 2048 / s / 1e9))
    out.close()


if __name__ == "__main__":
    kernels(sys.argv[2])
    grid(sys.argv[1])
