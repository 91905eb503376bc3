#!/usr/bin/env python3
"""Megatron-LM's own argument parsing of the launches dpsolve -f megatron
prints: for each launch (a .sh file), its flags after the torchrun line,
with a world of the launch's GPUs (RANK 0, WORLD_SIZE nproc x nnodes),
through megatron.training.arguments.parse_args and validate_args and the
model's TransformerConfig (core_transformer_config_from_args), which
checks the pipeline split, its layout and the MoE settings, and the
number of micro-batches (init_num_microbatches_calculator), which
checks the global batch.  Without Transformer Engine installed, its
version is read as 2.8 where Megatron's rules ask for it (the FP8
recipes').  Needs PyTorch and Megatron-LM's megatron/ package on PYTHONPATH (core_v0.15.0,
the version tests/megatron/flags-core_v0.15.0.txt pins); not part of
make check.  A launch commented out (one Megatron cannot run) is checked
to fail.

    PYTHONPATH=MEGATRON python3 tests/megatron/parse-check.py LAUNCH.sh ...

Prints a line a launch: ok, or the first line of Megatron's error."""
import os
import shlex
import sys


def flags_of(path):
    """The torchrun line's arguments after the script, the GPUs, and
    whether the launch is commented out (Megatron cannot run it)."""
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines)
                 if l.lstrip("# ").startswith("torchrun "))
    commented = lines[start].startswith("#")
    body = " ".join(l.lstrip("#").strip().rstrip("\\").strip()
                    for l in lines[start:])
    words = shlex.split(body)
    nproc = int(words[words.index("--nproc-per-node") + 1])
    nnodes = int(words[words.index("--nnodes") + 1])
    script = next(w for w in words if w.endswith(".py"))
    return words[words.index(script) + 1:], nproc * nnodes, commented


def check(path):
    flags, world, commented = flags_of(path)
    # what Megatron asks of the environment; --no-rope-fusion where
    # Transformer Engine is not installed (the check needs no kernels)
    os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE=str(world),
                      CUDA_DEVICE_MAX_CONNECTIONS="1")
    extra = ["--mock-data", "--train-iters", "10", "--lr", "1e-4"]
    try:
        import transformer_engine  # noqa: F401
    except ImportError:
        extra.append("--no-rope-fusion")
        # the FP8 rules ask Transformer Engine's version (None without
        # it): answer as Transformer Engine 2.8 would, so that the check
        # covers Megatron's own rules, not the machine's install
        import megatron.core.utils as mcu
        from packaging.version import Version
        mcu._te_version = Version("2.8.0")
    sys.argv = ["pretrain.py"] + flags + extra
    from megatron.training import arguments
    from megatron.core import num_microbatches_calculator as nmc
    try:
        args = arguments.parse_args()
        arguments.validate_args(args, {})
        arguments.core_transformer_config_from_args(args)
        # the global batch over micro-batches and data-parallel ranks,
        # as initialize_megatron sets it up (global_vars.py)
        nmc.unset_num_microbatches_calculator()
        nmc.init_num_microbatches_calculator(
            0, args.rampup_batch_size, args.global_batch_size,
            args.micro_batch_size, args.data_parallel_size)
    except BaseException as e:  # argparse exits; asserts; ValueErrors
        msg = (str(e) or type(e).__name__).splitlines()[0][:200]
        return ("ok (refused as the launch says: %s)" % msg) if commented \
            else "FAIL: %s: %s" % (type(e).__name__, msg)
    return "FAIL: Megatron accepts a launch printed as one it cannot run" \
        if commented else "ok"


if __name__ == "__main__":
    bad = 0
    for p in sys.argv[1:]:
        try:
            r = check(p)
        except Exception as e:
            r = "FAIL (harness): %s: %s" % (type(e).__name__, e)
        print("%s: %s" % (os.path.basename(p), r), flush=True)
        bad += r.startswith("FAIL")
    sys.exit(1 if bad else 0)
