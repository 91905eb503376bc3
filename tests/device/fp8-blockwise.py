#!/usr/bin/env python3
"""FP8 products with DeepSeek-V3's block scales against a scale a tensor,
on the GPU at hand.

    python3 tests/device/fp8-blockwise.py > OUT.txt

First which layouts of the scales torch._scaled_mm (cuBLASLt) takes for
a 1x128 scale a row block of the activations and a 128x128 scale a
block of the weights (a 4,096-cube product; "ok" or "no" and the error),
then, with the first that works, three products timed both ways (the
median of 30 runs after 5 warm-ups, CUDA events, E4M3 operands, bf16
out).  Not part of make check: it needs a GPU."""
import itertools

import torch

from cudatime import timed

E4M3 = torch.float8_e4m3fn


def laid(t, order):
    """t stored row-major ("row") or column-major ("col")."""
    return t.contiguous() if order == "row" else t.t().contiguous().t()


def ones(*shape):
    return torch.ones(*shape, device="cuda", dtype=torch.float32)


def main():
    m = n = k = 4096
    x = torch.randn(m, k, device="cuda").to(E4M3)
    w = torch.randn(n, k, device="cuda").to(E4M3).t()     # column-major
    found = None
    for a_order, b_shape, b_order in itertools.product(
            ("row", "col"), ("kn", "nk"), ("row", "col")):
        sb = ones(k // 128, n // 128) if b_shape == "kn" else \
            ones(n // 128, k // 128)
        sa, sb = laid(ones(m, k // 128), a_order), laid(sb, b_order)
        try:
            torch._scaled_mm(x, w, sa, sb, out_dtype=torch.bfloat16)
            print("ok", tuple(sa.shape), a_order, tuple(sb.shape), b_order)
            found = (a_order, b_shape, b_order)
            break
        except Exception as e:  # noqa: BLE001 - recorded
            print("no", tuple(sa.shape), a_order, tuple(sb.shape), b_order,
                  str(e).splitlines()[0][:100])
    if not found:
        return
    a_order, b_shape, b_order = found
    one = ones()
    for m, n, k in ((4096, 7168, 16384), (8192, 4096, 7168),
                    (4096, 22016, 4096)):
        x = torch.randn(m, k, device="cuda").to(E4M3)
        w = torch.randn(n, k, device="cuda").to(E4M3).t()
        sa = laid(ones(m, k // 128), a_order)
        sb = laid(ones(k // 128, n // 128) if b_shape == "kn" else
                  ones(n // 128, k // 128), b_order)
        tensor = timed(lambda: torch._scaled_mm(x, w, one, one,
                                                out_dtype=torch.bfloat16))
        block = timed(lambda: torch._scaled_mm(x, w, sa, sb,
                                               out_dtype=torch.bfloat16))
        flops = 2.0 * m * n * k
        print("shape %d %d %d tensorwise %.1f TFLOP/s blockwise %.1f TFLOP/s"
              % (m, n, k, flops / tensor / 1e12, flops / block / 1e12))


if __name__ == "__main__":
    main()
