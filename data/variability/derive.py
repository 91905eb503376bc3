#!/usr/bin/env python3
"""Per-device relative speed tables from the published measurements of
Sinha et al. (SC'22) and Jain et al. (PAL, SC'24), as their artifact
hal-uw/blox-pal (MIT licence) ships them under aggregated_data/.

Run by hand, not by make (the artifact is not a build input):

    python3 data/variability/derive.py BLOX_PAL_CHECKOUT data/variability

Each output row is one device: its median time over its runs divided by
the median of every device's median, so that the median device reads 1
and a device 5% slower 1.05.  Nothing is fitted; rows are sorted by
device name so that the file is the same bytes on every run.
"""
import csv
import os
import statistics
import sys
from collections import defaultdict


def write(path, rows, time_name):
    fleet = statistics.median(t for _, _, t in rows)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["device", "runs", time_name, "relative_time"])
        for dev, runs, t in sorted(rows):
            w.writerow([dev, runs, "%.9g" % t, "%.6f" % (t / fleet)])


def per_device(path, device_col, time_col, scale):
    times = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            times[r[device_col]].append(float(r[time_col]) * scale)
    return [(d, len(v), statistics.median(v)) for d, v in times.items()]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: derive.py BLOX_PAL_CHECKOUT OUT_DIR")
    src, out = sys.argv[1], sys.argv[2]
    agg = os.path.join(src, "aggregated_data")
    # SGEMM (cuBLAS, 25,536-square fp32 matrices, 100 kernels a run) on
    # TACC Longhorn's V100s: column perf is a run's mean kernel time, ms
    write(os.path.join(out, "sgemm-v100-longhorn.csv"),
          per_device(os.path.join(agg, "sim", "sgemm-longhorn-agg.csv"),
                     "uuid", "perf", 1e-3), "median_kernel_s")
    # ResNet-50 training on TACC Lonestar6's A100s, one run a device:
    # column perf is its median iteration time, s
    write(os.path.join(out, "resnet50-a100-lonestar6.csv"),
          per_device(os.path.join(agg, "ls6", "resnet-ls6-agg.csv"),
                     "uuid", "perf", 1.0), "median_iteration_s")


if __name__ == "__main__":
    main()
