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
Beside the backward pass (gradients of the input and of every weight),
`backward_input`: the input's gradient alone (autograd skips the weight
products and the bias and norm reductions), so backward - backward_input
is the weights' gradient, the W pass that the zero-bubble schedules split
off (graph-normalize's weight_gradient_s).  Then Llama 3's layers
(RMSNorm, q/k/v and output products without biases, grouped-query
attention by cuDNN, SwiGLU; no rotary embedding, an elementwise op with no
weights) of 8B, 70B and 405B at 8,192 tokens as a tensor rank runs them
(t = 1, 8, 8).
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
LLAMA = (  # name, hidden, heads, kv heads, ffn, t
    ("llama3-8b", 4096, 32, 8, 14336, 1),
    ("llama3-70b", 8192, 64, 8, 28672, 8),
    ("llama3-405b", 16384, 128, 8, 53248, 8),
)
S, VOCAB = 4096, 131072
S_LLAMA = 8192


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


def gqa_attention(q, k, v):
    """grouped-query attention as cuDNN runs it where this PyTorch passes
    the grouping through; else with the key/value heads repeated"""
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]):
        try:
            return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                  enable_gqa=True)
        except RuntimeError:
            r = q.size(1) // k.size(1)
            return F.scaled_dot_product_attention(
                q, k.repeat_interleave(r, 1), v.repeat_interleave(r, 1),
                is_causal=True)


def llama_layer(h, heads, kv, ffn, t, s):
    nh, nkv, fr, d = heads // t, max(kv // t, 1), ffn // t, h // heads
    w = dict(n1=param(h), qkv=param((nh + 2 * nkv) * d, h),
             proj=param(h, nh * d), n2=param(h), fc1=param(2 * fr, h),
             fc2=param(h, fr))

    def run(x):
        y = F.rms_norm(x, (h,), w["n1"])
        qkv = F.linear(y, w["qkv"]).view(s, nh + 2 * nkv, d)
        q, k, v = qkv.split([nh, nkv, nkv], dim=1)
        q, k, v = (z.permute(1, 0, 2).unsqueeze(0) for z in (q, k, v))
        a = gqa_attention(q, k, v)
        a = a.squeeze(0).permute(1, 0, 2).reshape(s, 1, nh * d)
        x = x + F.linear(a, w["proj"])
        y = F.rms_norm(x, (h,), w["n2"])
        g, u = F.linear(y, w["fc1"]).chunk(2, dim=-1)
        return x + F.linear(F.silu(g) * u, w["fc2"])
    return run, list(w.values())


def timed_passes(run, params, x):
    """forward, backward, and the backward of the input's gradient alone"""
    def fwd():
        with torch.no_grad():
            run(x)

    def both():
        y = run(x)
        torch.autograd.grad(y, [x] + params, torch.ones_like(y))

    def inputs():
        y = run(x)
        torch.autograd.grad(y, [x], torch.ones_like(y))
    f = queued(fwd, runs=20)
    return f, queued(both, runs=20) - f, queued(inputs, runs=20) - f


def write(out, name, t, p_attn, times):
    for what, s in zip(("forward", "backward", "backward_input"), times):
        out.write("%s,%s,%s,%s,%.6g\n" % (name, t, p_attn, what, s))
    out.flush()


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
            write(out, name, t, "%g" % p_attn, timed_passes(run, params, x))
        w = param(VOCAB // t, h)

        def head(x):
            return F.linear(x, w)
        write(out, name + "-output", t, "", timed_passes(head, [w], x))
        del x, w
    for name, h, heads, kv, ffn, t in LLAMA:
        x = torch.randn(S_LLAMA, 1, h, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        run, params = llama_layer(h, heads, kv, ffn, t, S_LLAMA)
        write(out, name, t, "0", timed_passes(run, params, x))
        del x, run, params
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
