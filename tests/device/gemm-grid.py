#!/usr/bin/env python3
"""bf16 and FP8 matrix products over a grid of shapes, on the GPU at hand.

    python3 tests/device/gemm-grid.py OUT.csv

Every (m, n, k) of m in 1,024, 4,096, 8,192 rows, n and k in 768, 1,536,
2,048, 4,096 and 7,168 (the widths of today's experts, attention and
MLPs): one product (m x k)(k x n) in bf16 (torch.matmul) and in FP8 with
a scale a tensor (torch._scaled_mm, E4M3, bf16 out), each the median of
30 runs after 5 warm-ups (tests/device/cudatime.py), on random data.
OUT.csv: m,n,k,kind,seconds,tflops and a comment line naming the GPU,
CUDA and PyTorch: what a GEMM-efficiency model by shape is checked
against.  Not part of make check: it needs a GPU."""
import sys

import torch

from cudatime import timed

E4M3 = torch.float8_e4m3fn


def main(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("m,n,k,kind,seconds,tflops\n")
    one = torch.ones((), device="cuda", dtype=torch.float32)
    widths = (768, 1536, 2048, 4096, 7168)
    for m in (1024, 4096, 8192):
        for n in widths:
            for k in widths:
                flops = 2.0 * m * n * k
                a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
                s16 = timed(lambda: torch.matmul(a, b))
                a8 = a.to(E4M3)
                b8 = b.t().contiguous().to(E4M3).t()    # column-major
                s8 = timed(lambda: torch._scaled_mm(
                    a8, b8, one, one, out_dtype=torch.bfloat16))
                for kind, s in (("bf16", s16), ("fp8", s8)):
                    out.write("%d,%d,%d,%s,%.6g,%.1f\n" % (
                        m, n, k, kind, s, flops / s / 1e12))
                out.flush()
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
