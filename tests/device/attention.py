#!/usr/bin/env python3
"""Fused causal attention, forward and backward, on the GPU at hand.

    python3 tests/device/attention.py OUT.csv

For the attention of a layer of each model as its held-out runs split
it (a tensor rank's heads, b = 1), then 16 heads (16 or 2 key/value
heads) over sequences of 2,048-32,768 tokens: cuDNN's fused attention (the kernels
Transformer Engine runs on Hopper, through PyTorch's CUDNN_ATTENTION
backend) and FlashAttention-2 (PyTorch's FLASH_ATTENTION backend), bf16,
causal, grouped-query where the model has it, without dropout and
with dropout 0.1 (Megatron-LM's GPT default).  Forward, and forward plus
backward (the backward is their difference), each queued as a step runs
them (cudatime.queued, operands in L2: q, k and v were just written).
OUT.csv: name,b,heads,kv_heads,seq,head_dim,backend,dropout,pass,seconds,
tflops, note (why a backend refused a shape) and a comment line naming the GPU,
CUDA, PyTorch and cuDNN; FLOPs as graph-normalize counts them
(docs/model.md: the scores and the context over the unmasked half,
2 s (s/2) 2 d a head forward, 2.5 times that backward).  On the same
GPU, the cross-entropy over a 131,072-word vocabulary as Megatron-LM's
vocabulary-parallel loss runs it, one eager kernel a step (the 38 bytes
an element forward and 14 backward that graph-normalize prices): rows
name "cross-entropy-4096x131072", backend "eager", tflops holding GB/s.  Not part of make check: it needs a GPU."""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cudatime import queued

SHAPES = (  # name, heads a rank, kv heads a rank, sequence, head dim
    ("mlm24-1.7b-t1", 16, 16, 4096, 128),
    ("mlm24-7.1b-t2", 16, 16, 4096, 128),
    ("mlm24-16b-t4", 12, 12, 4096, 128),
    ("mlm24-32b-t8", 7, 7, 4096, 128),
    ("qwen3-30b-a3b-t1", 32, 4, 4096, 128),
    ("llama3-70b-t8-s8192", 8, 1, 8192, 128),
)
# the sequence's length alone: 16 heads, without and with grouped keys
SWEEP = tuple(("seq%d-%s" % (n, kind), 16, kv, n, 128)
              for n in (2048, 4096, 8192, 16384, 32768)
              for kind, kv in (("mha", 16), ("gqa8", 2)))
BACKENDS = (("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("flash2", SDPBackend.FLASH_ATTENTION))


def cross_entropy(out, n, vocab):
    logits = torch.randn(n, vocab, device="cuda", dtype=torch.bfloat16)
    target = torch.randint(0, vocab, (n,), device="cuda")
    rows = torch.arange(n, device="cuda")

    def fwd():
        x = logits.float()                  # reads 2, writes 4
        m = x.max(dim=1, keepdim=True)[0]   # reads 4
        x.sub_(m)                           # 8
        picked = x[rows, target]
        x.exp_()                            # 8
        total = x.sum(dim=1, keepdim=True)  # 4
        x.div_(total)                       # 8: the softmax kept
        return x, torch.log(total).squeeze(1) - picked

    def bwd(x):
        x[rows, target] -= 1
        x.mul_(1.0 / n)                     # 8
        return x.to(torch.bfloat16)         # 6

    kept = fwd()[0]
    f = queued(fwd)
    b = queued(lambda: bwd(kept))
    for what, sec, moved in (("forward", f, 38.0 * n * vocab),
                             ("backward", b, 14.0 * n * vocab)):
        out.write("cross-entropy-%dx%d,1,,,,,eager,,%s,%.6g,%.1f,GB/s\n" % (
            n, vocab, what, sec, moved / sec / 1e9))


def main(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s, cuDNN %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__,
        torch.backends.cudnn.version()))
    out.write("name,b,heads,kv_heads,seq,head_dim,backend,dropout,pass,seconds,tflops,note\n")
    for name, hq, hkv, s, d in SHAPES + SWEEP:
        fwd_flops = 2.0 * s * (s / 2) * 2 * d * hq
        q = torch.randn(1, hq, s, d, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        k = torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        v = torch.randn(1, hkv, s, d, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        dy = torch.randn(1, hq, s, d, device="cuda", dtype=torch.bfloat16)
        gqa = hq != hkv
        for (backend, which), p in ((b, p) for b in BACKENDS
                                    for p in (0.0, 0.1)):
            def fwd():
                with torch.no_grad():
                    F.scaled_dot_product_attention(
                        q, k, v, dropout_p=p, is_causal=True,
                        enable_gqa=gqa)

            def both():
                y = F.scaled_dot_product_attention(
                    q, k, v, dropout_p=p, is_causal=True, enable_gqa=gqa)
                torch.autograd.grad(y, (q, k, v), dy)
            try:
                with sdpa_kernel([which]):
                    f = queued(fwd)
                    fb = queued(both)
            except RuntimeError as e:
                out.write("%s,1,%d,%d,%d,%d,%s,%g,forward,,,%s\n" % (
                    name, hq, hkv, s, d, backend, p,
                    str(e).splitlines()[0][:60].replace(",", ";")))
                continue
            for what, sec, flops in (("forward", f, fwd_flops),
                                     ("backward", fb - f, 2.5 * fwd_flops)):
                out.write("%s,1,%d,%d,%d,%d,%s,%g,%s,%.6g,%.1f,\n" % (
                    name, hq, hkv, s, d, backend, p, what, sec,
                    flops / sec / 1e12))
            out.flush()
    cross_entropy(out, 4096, 131072)
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
