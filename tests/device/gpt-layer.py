#!/usr/bin/env python3
"""A GPT layer of Megatron-LM's weak-scaling models, forward and backward
as one tensor rank runs it, on the GPU at hand.

    python3 tests/device/gpt-layer.py OUT.csv

The layer as Megatron-LM's GPT defaults build it (pre-LayerNorm, q/k/v
with biases, causal attention with dropout 0.1 by cuDNN's fused kernel (or
FlashAttention-2's where cuDNN refuses),
the output projection, bias-dropout-add, LayerNorm, the 4h MLP with
biases and tanh GeLU, bias-dropout-add), in eager PyTorch, bf16, one
sequence of 4,096 tokens [s, b, h], a tensor rank's share of the heads
and the MLP (t = 1, 2, 8; no collectives: they are priced apart), every
LayerNorm and dropout over all s tokens (as graph-normalize -V sp=0
prices them).  Then the output layer over a 131,072-word vocabulary (a
rank's share).  Each: forward, and forward plus backward (gradients of
the input and of every weight), queued as a step runs them
(cudatime.queued); attention dropout on and off.  The kernels are
PyTorch's, not Transformer Engine's: what this measures is how a layer's
time compares with its kernels' sum as graph-normalize prices them.
OUT.csv: name,t,attention_dropout,pass,seconds and a comment line naming
the GPU, CUDA and PyTorch.  Not part of make check: it needs a GPU."""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cudatime import queued

SHAPES = (  # name, hidden, heads, ffn, t
    ("mlm24-1.7b", 2048, 16, 8192, 1),
    ("mlm24-7.1b", 4096, 32, 16384, 2),
    ("mlm24-70b", 8192, 64, 32768, 8),
    ("mlm24-177b", 12288, 96, 49152, 8),
)
S, VOCAB = 4096, 131072


def param(*shape):
    return torch.nn.Parameter(0.02 * torch.randn(
        *shape, device="cuda", dtype=torch.bfloat16))


def layer(h, heads, ffn, t, p_attn):
    hr, fr, nh, d = h // t, ffn // t, heads // t, h // heads
    w = dict(ln1_w=param(h), ln1_b=param(h), qkv=param(3 * hr, h),
             qkv_b=param(3 * hr), proj=param(h, hr), proj_b=param(h),
             ln2_w=param(h), ln2_b=param(h), fc1=param(fr, h), fc1_b=param(fr),
             fc2=param(h, fr), fc2_b=param(h))

    def run(x):
        y = F.layer_norm(x, (h,), w["ln1_w"], w["ln1_b"])
        qkv = F.linear(y, w["qkv"], w["qkv_b"])            # [s, 1, 3 hr]
        q, k, v = qkv.view(S, nh, 3, d).permute(2, 1, 0, 3).unbind(0)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION,
                              SDPBackend.FLASH_ATTENTION]):
            a = F.scaled_dot_product_attention(
                q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0),
                dropout_p=p_attn, is_causal=True)
        a = a.squeeze(0).permute(1, 0, 2).reshape(S, 1, hr)
        o = F.linear(a, w["proj"])
        x = x + F.dropout(o + w["proj_b"], 0.1)
        y = F.layer_norm(x, (h,), w["ln2_w"], w["ln2_b"])
        u = F.gelu(F.linear(y, w["fc1"], w["fc1_b"]), approximate="tanh")
        o = F.linear(u, w["fc2"])
        return x + F.dropout(o + w["fc2_b"], 0.1)
    return run, list(w.values())


def timed_passes(run, params, x):
    def fwd():
        with torch.no_grad():
            run(x)

    def both():
        y = run(x)
        torch.autograd.grad(y, [x] + params, torch.ones_like(y))
    f = queued(fwd, runs=20)
    return f, queued(both, runs=20) - f


def main(dst):
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("name,t,attention_dropout,pass,seconds\n")
    for name, h, heads, ffn, t in SHAPES:
        x = torch.randn(S, 1, h, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        for p_attn in (0.1, 0.0):
            run, params = layer(h, heads, ffn, t, p_attn)
            f, b = timed_passes(run, params, x)
            for what, s in (("forward", f), ("backward", b)):
                out.write("%s,%d,%g,%s,%.6g\n" % (name, t, p_attn, what, s))
            out.flush()
        w = param(VOCAB // t, h)

        def head(x):
            return F.linear(x, w)
        f, b = timed_passes(head, [w], x)
        for what, s in (("forward", f), ("backward", b)):
            out.write("%s-output,%d,,%s,%.6g\n" % (name, t, what, s))
        out.flush()
        del x, w
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
