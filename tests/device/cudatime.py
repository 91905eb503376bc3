"""The timing the device scripts share: the median of `runs` calls of
fn after `warm` warm-ups, each between two CUDA events, in seconds."""
import torch


def timed(fn, runs=30, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    times.sort()
    return times[len(times) // 2]


def queued(fn, runs=30, warm=5, flush=None, sleep_cycles=20_000_000):
    """As a training step runs kernels: all `runs` calls of fn enqueued
    behind a sleeping kernel, so that the GPU runs them back to back and
    the host's launch time (10-20 us a PyTorch call, which `timed` counts
    for a small product) stays hidden.  Each call between its own two
    events; with `flush`, a call of flush before each (a write over a
    buffer larger than L2, so that fn's operands come from memory).  The
    median, in seconds."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    torch.cuda._sleep(sleep_cycles)     # 10 ms at 1.98 GHz: the host runs ahead
    for i in range(runs):
        if flush is not None:
            flush()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends))
    return times[len(times) // 2]
