#!/usr/bin/env python3
"""Llama 3 8B's training step as torchtitan runs it, on the GPU at hand,
without its network: what a GPU spends on compute alone, and what FSDP2
adds on one rank.

    python3 tests/device/torchtitan-llama.py OUT.csv

The model is written here, not torchtitan's (which is not vendored): Llama
3's blocks as torchtitan's llama3 model defines them (RMSNorm, q/k/v/o
products without biases, rotary embedding, grouped-query attention with
the key/value heads repeated, PyTorch's scaled-dot-product attention,
SwiGLU with w1, w3, w2), s = 8,192, a few of the blocks (one GPU cannot
hold a whole model's fp32 weights and gradients), the final norm, the
output product and the loss as torchtitan computes it (cross-entropy of
the logits cast to fp32).  Shapes: Llama 3 8B at the held-out rows'
local batch of 2; a tensor rank's share of Llama 3 8B at t = 8 (batch
12) and of 70B at t = 8 (batch 16), without the collectives and with
every norm over all s tokens (graph-normalize -V sp=0 prices them so).
Variants, each a step's forward and backward (no optimizer):

  eager            bf16 weights, no checkpointing, eager kernels
  compiled         each block torch.compile'd (torchtitan's compile)
  compiled-op      and per-operator checkpointing by torchtitan's rule
                   (its documented save list: every second aten.mm of
                   a block rerun, the others and the attention kept)
  compiled-op-fsdp and FSDP2 (fully_shard each block and the root, fp32
                   weights, bf16 compute, fp32 reduction, resharded after
                   forward) on a process group of one rank: its gathers
                   and reduce-scatters move nothing, so what it adds is
                   its copies, casts and host time
  compiled-full    each block checkpointed whole (torchtitan's full AC)

Each: the median of RUNS steps after WARM (timed between CUDA events, the
host's time included as a step includes it); the output layer and loss
alone (eager, as torchtitan leaves them; timed in a shape's first
variant); and the board's power and SM clock sampled every 50 ms
through NVML during the timed steps (mean and maximum; the board's power
limit printed, not changed).
OUT.csv: shape,blocks,micro_batch_samples,variant,what,value and a
comment line naming the GPU, CUDA, PyTorch and the power limit.
ONLY=shape,... times those shapes alone, VARIANTS=variant,... those
variants alone; SDPA=flash turns PyTorch's cuDNN attention off, so that
its scaled-dot-product attention runs FlashAttention-2 as torchtitan's
runs of 2024-25 got it (the variants named with "+fa2"; docs/model.md,
"Which fused attention a run gets"); PROFILE=1 adds one step's
kernels under torch.profiler (their summed time, count and the 20
longest by name).  Not part of make check: it needs a GPU."""
import os
import statistics
import sys
import threading
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from cudatime import timed

# name: hidden, heads, key/value heads, FFN, vocabulary (a tensor rank's
# share at t), local batch, blocks timed, variants
SHAPES = {
    "llama3-8b": (4096, 32, 8, 14336, 128256, 2, 4,
                  ("eager", "compiled", "compiled-op", "compiled-op-fsdp")),
    "llama3-8b-t8": (4096, 4, 1, 1792, 16032, 12, 4,
                     ("compiled", "compiled-full")),
    "llama3-70b-t8": (8192, 8, 1, 3584, 16032, 16, 2, ("compiled-full",)),
    "llama3-70b-t8-1": (8192, 8, 1, 3584, 16032, 16, 1,
                        ("compiled", "compiled-full")),
}
S, HEAD_DIM = 8192, 128
RUNS, WARM = 10, 3
torch._dynamo.config.cache_size_limit = 64     # a compile per variant
H = HEADS = KV = FFN = VOCAB = B = BLOCKS = 0   # set by main() a shape


def rotary(s, d, device):
    inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device=device).float() / d))
    ang = torch.outer(torch.arange(s, device=device).float(), inv)
    return ang.cos().to(torch.bfloat16), ang.sin().to(torch.bfloat16)


def rotate(x, cos, sin):
    # pairs (even, odd) turned by the angle, as the complex form does
    x0, x1 = x.float().unflatten(-1, (-1, 2)).unbind(-1)
    c, s = cos.float()[None, :, None, :], sin.float()[None, :, None, :]
    return torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), -1).flatten(-2) \
        .type_as(x)


class Block(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        d = HEAD_DIM
        kw = dict(bias=False, dtype=dtype)
        self.wq = nn.Linear(H, HEADS * d, **kw)
        self.wk = nn.Linear(H, KV * d, **kw)
        self.wv = nn.Linear(H, KV * d, **kw)
        self.wo = nn.Linear(HEADS * d, H, **kw)
        self.w1, self.w3 = nn.Linear(H, FFN, **kw), nn.Linear(H, FFN, **kw)
        self.w2 = nn.Linear(FFN, H, **kw)
        self.n1 = nn.RMSNorm(H, eps=1e-5, dtype=dtype)
        self.n2 = nn.RMSNorm(H, eps=1e-5, dtype=dtype)
        self.context_fn = None

    def body(self, x, cos, sin):
        b, s, _ = x.shape
        d = HEAD_DIM
        y = self.n1(x)
        q = self.wq(y).view(b, s, HEADS, d)
        k = self.wk(y).view(b, s, KV, d)
        v = self.wv(y).view(b, s, KV, d)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        r = HEADS // KV
        k = k[:, :, :, None, :].expand(b, s, KV, r, d).reshape(b, s, HEADS, d)
        v = v[:, :, :, None, :].expand(b, s, KV, r, d).reshape(b, s, HEADS, d)
        a = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
            is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, s, HEADS * d))
        y = self.n2(x)
        return x + self.w2(F.silu(self.w1(y)) * self.w3(y))

    def forward(self, x, cos, sin):
        if self.context_fn is None:
            return self.body(x, cos, sin)
        if self.context_fn == "full":
            return torch.utils.checkpoint.checkpoint(
                self.body, x, cos, sin, use_reentrant=False)
        return torch.utils.checkpoint.checkpoint(
            self.body, x, cos, sin, use_reentrant=False,
            context_fn=self.context_fn)


def op_sac_context():
    """torchtitan's per-operator rule, as its documentation states it:
    the outputs of aten.mm, of the attention kernels and of max are
    kept, but every second mm of a block (counted apart in the forward
    and in the recomputation) is rerun"""
    from torch.utils.checkpoint import (CheckpointPolicy,
                                        create_selective_checkpoint_contexts)
    ops = torch.ops.aten
    keep = {ops.mm.default, ops.max.default}
    for name in ("_scaled_dot_product_efficient_attention",
                 "_scaled_dot_product_flash_attention",
                 "_scaled_dot_product_cudnn_attention"):
        if hasattr(ops, name):
            keep.add(getattr(ops, name).default)

    def context():
        count = {"forward": 0, "recompute": 0}

        def policy(ctx, op, *args, **kwargs):
            mode = "recompute" if ctx.is_recompute else "forward"
            if op == ops.mm.default:
                count[mode] += 1
                if count[mode] % 2 == 0:
                    return CheckpointPolicy.PREFER_RECOMPUTE
            if op in keep:
                return CheckpointPolicy.MUST_SAVE
            return CheckpointPolicy.PREFER_RECOMPUTE
        return create_selective_checkpoint_contexts(policy)
    return context


class Model(nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dtype) for _ in range(BLOCKS))
        self.norm = nn.RMSNorm(H, eps=1e-5, dtype=dtype)
        self.out = nn.Linear(H, VOCAB, bias=False, dtype=dtype)

    def head(self, x, labels):
        pred = self.out(self.norm(x))
        return F.cross_entropy(pred.flatten(0, 1).float(), labels.flatten())

    def forward(self, x, labels, cos, sin):
        for blk in self.blocks:
            x = blk(x, cos, sin)
        return self.head(x, labels)


class Power:
    """NVML's board power (W) and SM clock (MHz) every 50 ms"""

    def __init__(self):
        import pynvml
        pynvml.nvmlInit()
        self.nv = pynvml
        self.dev = pynvml.nvmlDeviceGetHandleByIndex(
            torch.cuda.current_device())
        self.samples, self.run = [], False

    def limit_w(self):
        return self.nv.nvmlDeviceGetEnforcedPowerLimit(self.dev) / 1e3

    def loop(self):
        while self.run:
            self.samples.append((
                self.nv.nvmlDeviceGetPowerUsage(self.dev) / 1e3,
                self.nv.nvmlDeviceGetClockInfo(self.dev,
                                               self.nv.NVML_CLOCK_SM)))
            time.sleep(0.05)

    def __enter__(self):
        self.samples, self.run = [], True
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.run = False
        self.thread.join()


def step_times(fn, power):
    """the median step (cudatime.timed), NVML sampled while the timed
    steps run, not while the warm-ups compile"""
    for _ in range(WARM):
        fn()
    with power:
        return timed(fn, runs=RUNS, warm=0)


def build(variant):
    fsdp = variant.endswith("-fsdp")
    dtype = torch.float32 if fsdp else torch.bfloat16
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = Model(dtype)
    for blk in model.blocks:
        if "-op" in variant:
            blk.context_fn = op_sac_context()
        elif variant.endswith("-full"):
            blk.context_fn = "full"
    if variant != "eager":
        for i, blk in enumerate(model.blocks):
            model.blocks[i] = torch.compile(blk, fullgraph=True)
    if fsdp:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                                  reduce_dtype=torch.float32)
        for blk in model.blocks:
            fully_shard(blk, mp_policy=mp, reshard_after_forward=True)
        fully_shard(model, mp_policy=mp, reshard_after_forward=True)
    return model


def main(dst):
    global H, HEADS, KV, FFN, VOCAB, B, BLOCKS
    import torch.distributed as dist
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29521")
    dist.init_process_group("nccl", rank=0, world_size=1,
                            device_id=torch.device("cuda", 0))
    torch.cuda.set_device(0)
    power = Power()
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s, power limit %.0f W\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__,
        power.limit_w()))
    out.write("shape,blocks,micro_batch_samples,variant,what,value\n")
    out.flush()
    cos, sin = rotary(S, HEAD_DIM, "cuda")
    if os.environ.get("SDPA") == "flash":
        torch.backends.cuda.enable_cudnn_sdp(False)
    only = os.environ.get("ONLY", "").split(",")
    for shape, (H, HEADS, KV, FFN, VOCAB, B, BLOCKS, variants) in \
            SHAPES.items():
        if only != [""] and shape not in only:
            continue
        run_shape(out, power, shape, variants, cos, sin)
    out.close()
    dist.destroy_process_group()


def kernels(step):
    """one step under torch.profiler: the CUDA kernels' summed time and
    count, and the 20 that take longest, summed by name"""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    total, count, names = 0.0, 0, {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            total += e.device_time / 1e6
            count += 1
            n = e.name.replace(",", ";")[:90]
            names[n] = names.get(n, 0.0) + e.device_time / 1e6
    rows = [("kernel_s", "%.6g" % total), ("kernels", "%d" % count)]
    for n, t in sorted(names.items(), key=lambda kv: -kv[1])[:20]:
        rows.append(("kernel_s:" + n, "%.6g" % t))
    return rows


def run_shape(out, power, shape, variants, cos, sin):
    gen = torch.Generator(device="cuda").manual_seed(1)
    labels = torch.randint(0, VOCAB, (B, S), device="cuda", generator=gen)
    chosen = os.environ.get("VARIANTS", "").split(",")
    variants = tuple(v for v in variants if chosen == [""] or v in chosen)
    tag = "+fa2" if os.environ.get("SDPA") == "flash" else ""
    for variant in variants:
        t0 = time.time()
        try:
            model = build(variant)
            dtype = torch.bfloat16
            x = torch.randn(B, S, H, device="cuda", dtype=dtype,
                            requires_grad=True)

            def step():
                model.zero_grad(set_to_none=True)
                model(x, labels, cos, sin).backward()

            def head():
                xd = x.detach().requires_grad_()
                model.head(xd, labels).backward()
            torch.cuda.reset_peak_memory_stats()
            s = step_times(step, power)
            p = [w for w, _ in power.samples] or [0.0]
            c = [f for _, f in power.samples] or [0]
            rows = [("step_s", "%.6g" % s),
                    ("peak_bytes", "%d" % torch.cuda.max_memory_allocated()),
                    ("power_mean_W", "%.0f" % statistics.mean(p)),
                    ("power_max_W", "%.0f" % max(p)),
                    ("sm_clock_mean_MHz", "%.0f" % statistics.mean(c)),
                    ("samples", "%d" % len(p))]
            if variant == variants[0]:
                rows.append(("head_s", "%.6g" % step_times(head, power)))
            rows.append(("setup_and_timing_s", "%.1f" % (time.time() - t0)))
            if os.environ.get("PROFILE"):
                rows += kernels(step)
            for what, v in rows:
                out.write("%s,%d,%d,%s,%s,%s\n" % (shape, BLOCKS, B,
                                                   variant + tag, what, v))
            out.flush()
            print(shape, variant, rows[:9], flush=True)
            del model, x
        except Exception as exc:  # one variant's failure leaves the others
            msg = ("%s: %s" % (type(exc).__name__, exc)).splitlines()[0]
            out.write("# %s %s failed: %s\n" % (shape, variant, msg[:300]))
            out.flush()
            print(shape, variant, "failed:", msg, flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1])
