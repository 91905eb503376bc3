#!/usr/bin/env python3
"""What a GPU's speed is after a minute of work rather than in a burst:
the time a call and the SM clock, power and temperature, every half
second while the call runs back to back.

    python3 tests/device/sustained.py OUT.csv [SECONDS]

The other device scripts time 20-30 calls after a few warm-ups, a burst
of well under a second, at whatever clock the GPU holds then; a training
step runs its kernels for minutes on end under the board's power limit.
Three workloads, one after the other, each SECONDS long (default 45): an
8,192-cubed bf16 matrix product (the densest work there is), Llama 3
70B's layer as a tensor rank of t = 8 runs it at 8,192 tokens, forward
and backward, and the GPT 1.7B layer of Megatron-LM's weak-scaling table
(t = 1, 4,096 tokens, attention dropout), both from gpt-layer.py.  The
host stays at most two calls ahead, so a sample's clock and power belong
to the calls it times.  The settings of the GPU are left as they are.
OUT.csv: workload,t_s,seconds_per_call,sm_clock_MHz,power_W,temperature_C,
clock_event_reasons (NVML's bit mask) and a comment line naming the GPU,
CUDA and PyTorch; stdout: each workload's first two seconds against its
last ten.  Not part of make check: it needs a GPU."""
import importlib.util
import os
import statistics
import sys
import time

import pynvml
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
spec = importlib.util.spec_from_file_location(
    "gpt_layer", os.path.join(HERE, "gpt-layer.py"))
gpt_layer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpt_layer)


def gpu_state(handle):
    clock = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
    power = pynvml.nvmlDeviceGetPowerUsage(handle) / 1e3
    temp = pynvml.nvmlDeviceGetTemperature(handle,
                                           pynvml.NVML_TEMPERATURE_GPU)
    try:
        reasons = pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle)
    except (AttributeError, pynvml.NVMLError):
        reasons = pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(handle)
    return clock, power, temp, reasons


def sustain(handle, fn, seconds, window=0.5):
    rows = []
    pending = []
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    start.record()
    t0 = last = time.perf_counter()
    n = 0
    while True:
        fn()
        e = torch.cuda.Event(enable_timing=True)
        e.record()
        pending.append(e)
        n += 1
        if len(pending) > 2:
            pending.pop(0).synchronize()
        now = time.perf_counter()
        if now - last >= window:
            state = gpu_state(handle)   # while the last calls still run
            e.synchronize()
            rows.append((now - t0, start.elapsed_time(e) / 1e3 / n) + state)
            start, n, last, pending = e, 0, now, []
            if now - t0 >= seconds:
                return rows


def workloads():
    a, b, c = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    yield "gemm-8192", lambda: torch.mm(a, b, out=c)
    del a, b, c
    for name, s, h, make in (
            ("llama3-70b-t8", gpt_layer.S_LLAMA, 8192,
             lambda: gpt_layer.llama_layer(8192, 64, 8, 28672, 8,
                                           gpt_layer.S_LLAMA)),
            ("mlm24-1.7b-t1", gpt_layer.S, 2048,
             lambda: gpt_layer.layer(2048, 16, 8192, 1, 0.1))):
        run, params = make()
        x = torch.randn(s, 1, h, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)

        def both():
            y = run(x)
            torch.autograd.grad(y, [x] + params, torch.ones_like(y))
        yield name, both
        del run, params, x


def main(dst, seconds):
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    out = open(dst, "w")
    out.write("# %s, CUDA %s, torch %s\n" % (
        torch.cuda.get_device_name(), torch.version.cuda, torch.__version__))
    out.write("workload,t_s,seconds_per_call,sm_clock_MHz,power_W,"
              "temperature_C,clock_event_reasons\n")
    for name, fn in workloads():
        idle = gpu_state(handle)
        rows = sustain(handle, fn, seconds)
        for r in rows:
            out.write("%s,%.2f,%.6g,%d,%.1f,%d,%d\n" % ((name,) + r))
        out.flush()
        first = [r[1] for r in rows if r[0] <= 2.0]
        last = [r[1] for r in rows if r[0] >= rows[-1][0] - 10]
        clocks = [r[2] for r in rows if r[0] >= rows[-1][0] - 10]
        print("%s: idle %d MHz %d C; first 2 s %.4g s a call, last 10 s "
              "%.4g (x%.3f) at %d MHz, %.0f W" % (
                  name, idle[0], idle[2], statistics.median(first),
                  statistics.median(last),
                  statistics.median(last) / statistics.median(first),
                  statistics.median(clocks), rows[-1][3]), flush=True)
    out.close()


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 45.0)
