#!/usr/bin/env python3
"""Fused attention at the shapes torchtitan's held-out runs gave it.

    python3 tests/device/attention-long.py OUT.csv

FlashAttention-2 (PyTorch's FLASH_ATTENTION backend, the one torchtitan's
runs of 2024-12 and 2025-06 got on an H100: docs/model.md, "Which fused
attention a run gets") and cuDNN's (CUDNN_ATTENTION), bf16, no dropout:

  - Llama 3 8B's layer as FSDP runs it (32 heads, 8 key/value heads,
    8,192 tokens, causal);
  - the same heads over 32,768-131,072 tokens, causal (a sequence
    longer than attention.py's 32,768, where a block of queries runs
    more than 16,384 keys);
  - the calls of context parallelism's ring, one rank's 32,768 queries
    (torchtitan's load-balanced shards: a rank's two chunks): the
    diagonal step (causal, 32,768 by 32,768) and the others (no mask:
    all 32,768 queries by half the keys, or half the queries by all
    32,768 keys).

Forward, and forward plus backward (the backward is the difference),
queued as a step runs them (cudatime.queued), fewer calls for the long
ones.  OUT.csv: name,heads,kv_heads,queries,keys,causal,backend,pass,
seconds,tflops, and a comment line naming the GPU, CUDA, PyTorch and
cuDNN; FLOPs as graph-normalize counts them (2 q k 2 d a head forward
over the unmasked pairs, half of them causal; 2.5 times that
backward).  Not part of make check: it needs a GPU."""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cudatime import queued

HQ, HKV, D = 32, 8, 128
CASES = (  # name, queries, keys, causal
    ("llama3-8b-s8192", 8192, 8192, True),
    ("causal-s32768", 32768, 32768, True),
    ("causal-s65536", 65536, 65536, True),
    ("causal-s131072", 131072, 131072, True),
    ("ring-diagonal-32768", 32768, 32768, True),
    ("ring-q32768-k16384", 32768, 16384, False),
    ("ring-q16384-k32768", 16384, 32768, False),
)
BACKENDS = (("flash2", SDPBackend.FLASH_ATTENTION),
            ("cudnn", SDPBackend.CUDNN_ATTENTION))


def main(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s, cuDNN %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__,
        torch.backends.cudnn.version()))
    out.write("name,heads,kv_heads,queries,keys,causal,backend,pass,"
              "seconds,tflops\n")
    for name, sq, sk, causal in CASES:
        pairs = sq * sk / 2 if causal else sq * sk
        fwd_flops = 2.0 * pairs * 2 * D * HQ
        runs, warm = (30, 5) if sq * sk <= 8192 * 8192 else (3, 1)
        q = torch.randn(1, HQ, sq, D, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        k = torch.randn(1, HKV, sk, D, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        v = torch.randn(1, HKV, sk, D, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        dy = torch.randn(1, HQ, sq, D, device="cuda", dtype=torch.bfloat16)
        for backend, which in BACKENDS:
            def fwd():
                with torch.no_grad():
                    F.scaled_dot_product_attention(
                        q, k, v, is_causal=causal, enable_gqa=True)

            def both():
                y = F.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, enable_gqa=True)
                torch.autograd.grad(y, (q, k, v), dy)
            try:
                with sdpa_kernel([which]):
                    f = queued(fwd, runs=runs, warm=warm)
                    fb = queued(both, runs=runs, warm=warm)
            except RuntimeError as e:
                print(name, backend, str(e).splitlines()[0][:100])
                continue
            for what, sec, flops in (("forward", f, fwd_flops),
                                     ("backward", fb - f, 2.5 * fwd_flops)):
                out.write("%s,%d,%d,%d,%d,%d,%s,%s,%.6g,%.1f\n" % (
                    name, HQ, HKV, sq, sk, causal, backend, what, sec,
                    flops / sec / 1e12))
            out.flush()
            print(name, backend, "%.4g %.4g" % (f, fb - f), flush=True)
        del q, k, v, dy
        torch.cuda.empty_cache()
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
