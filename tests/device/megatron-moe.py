#!/usr/bin/env python3
"""Megatron-Core's own mixture-of-experts layer, forward and backward,
on the GPU at hand: what a step spends beside its kernels.

    MCORE=path/to/megatron-core python3 tests/device/megatron-moe.py OUT.csv

MCORE: a directory holding Megatron-LM's `megatron` package (core_v0.15.0
was used; not vendored here).  One process, one GPU: tensor, pipeline
and expert parallel sizes 1.  The layer is MoELayer built from
Megatron-Core's local spec (its own linear layers, no Transformer
Engine): the router with its auxiliary loss and forced load balancing
(as Megatron-Bridge's benchmarks run), the all-to-all token dispatcher
(its permutation, its host synchronisation for the tokens an expert,
no exchange at one rank), SequentialMLP experts (one product pair an
expert), the unpermutation; bf16, one sequence [s, b, h] = [4,096, 1,
2,048] of Qwen3-30B-A3B's shape (h 2,048, experts 768 wide, gated SiLU,
top 8).  Three cases: 16 experts, which is one expert rank's share of
Qwen3-30B-A3B at EP 8 (16 local experts of 2,048 tokens each), all 128
experts at one rank (256 tokens each), and the first again with four
sequences a micro-batch (8,192 tokens an expert).  Each: the wall time of a
forward and backward, synchronised, the median of 20 after 5 warm-ups,
and under torch.profiler the CUDA kernels' summed time and count for one
such pass; their difference is time the GPU waited for the host.
OUT.csv: case,experts,tokens,what,value and a comment line naming the
GPU, CUDA and PyTorch.  Not part of make check: it needs a GPU."""
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.environ.get("MCORE", ".devcheck/mcore"))
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29517")

S, H = 4096, 2048


def build(experts):
    # core_v0.15.0's router names te_general_gemm even where Transformer
    # Engine is absent; None selects its torch fallback
    import megatron.core.transformer.moe.moe_utils as moe_utils
    if not hasattr(moe_utils, "te_general_gemm"):
        moe_utils.te_general_gemm = None
    from megatron.core.models.gpt.gpt_layer_specs import \
        get_gpt_layer_local_spec
    from megatron.core.transformer.spec_utils import build_module
    from megatron.core.transformer.transformer_config import \
        TransformerConfig
    cfg = TransformerConfig(
        num_layers=1, hidden_size=H, num_attention_heads=32,
        num_query_groups=4, kv_channels=128, ffn_hidden_size=6144,
        moe_ffn_hidden_size=768, num_moe_experts=experts, moe_router_topk=8,
        gated_linear_unit=True, activation_func=torch.nn.functional.silu,
        add_bias_linear=False, bf16=True, params_dtype=torch.bfloat16,
        pipeline_dtype=torch.bfloat16, moe_token_dispatcher_type="alltoall",
        moe_router_load_balancing_type="aux_loss", moe_aux_loss_coeff=1e-3,
        moe_router_force_load_balancing=True, moe_grouped_gemm=False)
    spec = get_gpt_layer_local_spec(num_experts=experts,
                                    moe_grouped_gemm=False)
    return build_module(spec.submodules.mlp, config=cfg).cuda()


def measure(out, case, experts, b):
    layer = build(experts)
    x = torch.randn(S, b, H, device="cuda", dtype=torch.bfloat16,
                    requires_grad=True)
    g = torch.randn(S, b, H, device="cuda", dtype=torch.bfloat16)

    def step():
        y = layer(x)[0]
        y.backward(g)
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    walls = []
    for _ in range(20):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        walls.append(time.perf_counter() - t0)
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU,
                             ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kernel_us, kernels, names = 0.0, 0, {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            kernel_us += e.device_time
            kernels += 1
            names[e.name] = names.get(e.name, 0.0) + e.device_time
    tokens = S * b * 8 // experts
    for what, v in (("wall_s", statistics.median(walls)),
                    ("kernel_s", kernel_us / 1e6), ("kernels", kernels)):
        out.write("%s,%d,%d,%s,%.6g\n" % (case, experts, tokens, what, v))
    for name, us in sorted(names.items(), key=lambda kv: -kv[1])[:12]:
        out.write("%s,%d,%d,kernel_s:%s,%.6g\n" % (
            case, experts, tokens,
            name[:70].replace(",", ";").replace("\n", " "), us / 1e6))
    out.flush()


def main(dst):
    torch.distributed.init_process_group("nccl", rank=0, world_size=1)
    from megatron.core import parallel_state
    from megatron.core.tensor_parallel.random import \
        model_parallel_cuda_manual_seed
    parallel_state.initialize_model_parallel(1, 1)
    model_parallel_cuda_manual_seed(1234)
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("case,experts,tokens,what,value\n")
    for case, experts, b in (("qwen3-30b-a3b-ep8-rank", 16, 1),
                             ("qwen3-30b-a3b-ep1", 128, 1),
                             ("qwen3-30b-a3b-ep8-rank-b4", 16, 4)):
        try:
            measure(out, case, experts, b)
        except Exception as e:          # the other case may still run
            out.write("%s,%d,,error,%s\n" % (
                case, experts, repr(e)[:200].replace(",", ";")))
            out.flush()
    out.close()


if __name__ == "__main__":
    main(sys.argv[1])
