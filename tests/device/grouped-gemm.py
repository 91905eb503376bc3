#!/usr/bin/env python3
"""Experts' products as a mixture-of-experts layer runs them, on the GPU
at hand: one grouped kernel for a rank's experts against a product an
expert.

    python3 tests/device/grouped-gemm.py OUT.csv

A rank's local experts, each with M tokens, their first product (h to 2f,
gated) and their second (f to h), bf16, forward: as one grouped kernel
(torch._grouped_mm, the experts' tokens one after another, as
torchtitan's experts and Transformer Engine's newer grouped GEMM run
them), as one torch.mm an expert, back to back on one stream (Megatron-
Core's SequentialMLP), and the same over four streams, expert i on
stream i mod 4 (Transformer Engine's GroupedLinear issues a cuBLAS
product an expert over its num_gemm_streams, four by default).  Shapes:
Qwen3-30B-A3B's experts (h 2,048, f 768; 16 a rank at EP 8) and
DeepSeek-V3's (h 7,168, f 2,048; 4 a rank at EP 64, 8 at EP 32), M 64 to
4,096 tokens an expert.  Each queued as a step runs it (cudatime.queued:
behind a sleeping kernel, operands from memory after a 256 MiB write).
OUT.csv: model,experts,tokens,k,n,kind,seconds,tflops and a comment line
naming the GPU, CUDA and PyTorch.  Not part of make check: it needs a
GPU."""
import sys

import torch

from cudatime import queued

SHAPES = (  # model, h, f, local experts
    ("qwen3-30b-a3b", 2048, 768, 16),
    ("deepseek-v3", 7168, 2048, 4),
    ("deepseek-v3", 7168, 2048, 8),
)
TOKENS = (64, 128, 256, 512, 1024, 2048, 4096)


def main(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("model,experts,tokens,k,n,kind,seconds,tflops\n")
    junk = torch.empty(256 << 20, device="cuda", dtype=torch.uint8)
    grouped = hasattr(torch, "_grouped_mm")
    streams = [torch.cuda.Stream() for _ in range(4)]
    for model, h, f, e in SHAPES:
        for k, n in ((h, 2 * f), (f, h)):
            w = torch.randn(e, n, k, device="cuda", dtype=torch.bfloat16)
            wt = w.transpose(-2, -1)            # [e, k, n], as the op takes
            for m in TOKENS:
                x = torch.randn(e * m, k, device="cuda", dtype=torch.bfloat16)
                offs = torch.arange(m, e * m + 1, m, device="cuda",
                                    dtype=torch.int32)
                xs = x.view(e, m, k)

                def loop():
                    for i in range(e):
                        torch.mm(xs[i], wt[i])

                def loop4():
                    main_stream = torch.cuda.current_stream()
                    start = torch.cuda.Event()
                    start.record(main_stream)
                    for st in streams:
                        st.wait_event(start)
                    for i in range(e):
                        with torch.cuda.stream(streams[i % 4]):
                            torch.mm(xs[i], wt[i])
                    for st in streams:
                        done = torch.cuda.Event()
                        done.record(st)
                        main_stream.wait_event(done)
                kinds = [("loop", loop), ("loop4", loop4)]
                if grouped:
                    kinds.append(("grouped",
                                  lambda: torch._grouped_mm(x, wt, offs=offs)))
                for kind, fn in kinds:
                    try:
                        s = queued(fn, runs=20, flush=junk.zero_)
                    except RuntimeError as err:
                        print("%s %s: %s" % (model, kind, err), flush=True)
                        continue
                    out.write("%s,%d,%d,%d,%d,%s,%.6g,%.1f\n" % (
                        model, e, m, k, n, kind, s,
                        2.0 * e * m * k * n / s / 1e12))
                out.flush()
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
