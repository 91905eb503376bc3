#!/usr/bin/env python3
"""Time the matrix products of a layer in bf16 and in FP8, on the GPU at hand.

    python3 tests/device/fp8-gemm.py SHAPES.csv OUT.csv

SHAPES.csv: name,m,n,k,batch (graph-normalize -O's gemm columns: the
forward product (m x k)(k x n), `batch` of them side by side, as grouped
experts run).  For each product, its three passes as a linear layer runs
them (forward y = x W^T, the input gradient dy W, the weight gradient
dy^T x), each in:

  bf16        torch.matmul / bmm (cuBLAS), fp32 accumulation;
  tensorwise  FP8 with one scale a tensor (Transformer Engine's delayed
              and current scaling run this product): torch._scaled_mm,
              E4M3 inputs and weights, E5M2 gradients ("hybrid");
  rowwise     FP8 with a scale a row of x and a column of W;
  blockwise   FP8 with DeepSeek-V3's scales, 1x128 for activations and
              gradients and 128x128 for weights (where this PyTorch and
              cuBLAS offer it; else the row says why not).

Operands are cast and transposed before the timing (Hopper's FP8 tensor
cores take only the "TN" layout, which is why Transformer Engine keeps a
transposed FP8 copy): the products alone are timed, each the median of
30 runs after 5 warm-ups (CUDA events), on random data.  Grouped products
(batch > 1) run as one batched call where PyTorch has one for the kind,
else one call an expert in a loop (the row says which).  Then the casts
themselves, as memory traffic: an amax, a scaled cast and a transpose of
a bf16 tensor, eager PyTorch kernels, their bytes over their time.

OUT.csv: name,m,n,k,batch,kind,pass,seconds,tflops,how and a comment
line naming the GPU, CUDA and PyTorch.  Not part of make check: it needs
a GPU."""
import csv
import sys

import torch

from cudatime import timed

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2


def col_major(t):
    """The same matrix stored column-major (what _scaled_mm's b wants)."""
    return t.t().contiguous().t()


def bf16_pass(g, m, k, n):
    a = torch.randn(g, m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(g, k, n, device="cuda", dtype=torch.bfloat16)
    if g == 1:
        a, b = a[0], b[0]
        return (lambda: torch.matmul(a, b)), "matmul"
    return (lambda: torch.bmm(a, b)), "bmm"


def scales(kind, m, k, n):
    one = torch.ones((), device="cuda", dtype=torch.float32)
    if kind == "tensorwise":
        return one, one
    if kind == "rowwise":
        return (torch.ones(m, 1, device="cuda", dtype=torch.float32),
                torch.ones(1, n, device="cuda", dtype=torch.float32))
    # blockwise: a 1x128 scale a row block of a, 128x128 of b; cuBLAS
    # wants them outer-dimension major
    sa = col_major(torch.ones(m, k // 128, device="cuda",
                              dtype=torch.float32))
    sb = torch.ones(k // 128, n // 128, device="cuda", dtype=torch.float32)
    return sa, sb


def fp8_pass(kind, g, m, k, n, a_type, b_type):
    a = torch.randn(g, m, k, device="cuda").to(a_type)
    b = torch.randn(g, n, k, device="cuda").to(b_type)
    sa, sb = scales(kind, m, k, n)
    mats = [(a[i], b[i].t()) for i in range(g)]   # b[i].t(): column-major
    if g == 1:
        x, w = mats[0]
        fn = lambda: torch._scaled_mm(x, w, sa, sb, out_dtype=torch.bfloat16)
        fn()
        return fn, "_scaled_mm"
    if kind == "rowwise" and hasattr(torch, "_scaled_grouped_mm"):
        bt = b.transpose(-2, -1)
        gsa = torch.ones(g, m, device="cuda", dtype=torch.float32)
        gsb = torch.ones(g, n, device="cuda", dtype=torch.float32)
        try:
            fn = lambda: torch._scaled_grouped_mm(a, bt, gsa, gsb,
                                                  out_dtype=torch.bfloat16)
            fn()
            return fn, "_scaled_grouped_mm"
        except Exception:  # noqa: BLE001 - fall back to the loop
            pass

    def loop():
        for x, w in mats:
            torch._scaled_mm(x, w, sa, sb, out_dtype=torch.bfloat16)
    loop()
    return loop, "_scaled_mm a expert"


# the three passes of a linear layer (m tokens, k in, n out): the product
# and its operand types (forward: activations and weights E4M3; backward:
# gradients E5M2 with E4M3 weights or activations)
PASSES = (("forward", lambda m, n, k: (m, k, n), E4M3, E4M3),
          ("input_grad", lambda m, n, k: (m, n, k), E5M2, E4M3),
          ("weight_grad", lambda m, n, k: (n, m, k), E5M2, E4M3))


def main(src, dst):
    rows = list(csv.DictReader(open(src)))
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("name,m,n,k,batch,kind,pass,seconds,tflops,how\n")
    for r in rows:
        m, n, k, g = (int(float(r[c])) for c in ("m", "n", "k", "batch"))
        for pname, dims, at, bt in PASSES:
            pm, pk, pn = dims(m, n, k)
            flops = 2.0 * g * pm * pn * pk
            for kind in ("bf16", "tensorwise", "rowwise", "blockwise"):
                try:
                    if kind == "bf16":
                        fn, how = bf16_pass(g, pm, pk, pn)
                    else:
                        fn, how = fp8_pass(kind, g, pm, pk, pn, at, bt)
                    s = timed(fn)
                    out.write("%s,%d,%d,%d,%d,%s,%s,%.6g,%.1f,%s\n" % (
                        r["name"], m, n, k, g, kind, pname, s,
                        flops / s / 1e12, how))
                except Exception as e:  # noqa: BLE001 - recorded
                    why = str(e).splitlines()[0][:120].replace(",", ";")
                    out.write("%s,%d,%d,%d,%d,%s,%s,,,%s\n" % (
                        r["name"], m, n, k, g, kind, pname,
                        "failed: " + why))
                out.flush()
                torch.cuda.empty_cache()
    # the casts: bytes moved over time (eager kernels, one pass each)
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    el = x.numel()
    amax = timed(lambda: x.abs().amax())
    scale = torch.ones((), device="cuda")
    cast = timed(lambda: (x * scale).to(E4M3))
    x8 = x.to(E4M3)
    trans = timed(lambda: x8.t().contiguous())
    for what, s, nbytes in (("amax", amax, 2 * el),
                            ("scaled_cast", cast, 3 * el),
                            ("fp8_transpose", trans, 2 * el)):
        out.write("cast/%s,8192,8192,0,1,memory,%s,%.6g,%.1f,GB/s\n" % (
            what, what, s, nbytes / s / 1e9))
    out.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
