#!/bin/sh
# bench.sh - solve time and peak memory of dpsolve (make bench).
#   usage: tools/bench.sh BINDIR OUT.csv
# Table 1: every cell of fig5 (5 models x 64..1024 devices of the TPUv4
# fat-tree, batch 4096) and the same models on 4096 and 16384 devices.
# Table 2: today's largest clusters with their batches of 16M tokens
# (2,048 sequences of 8,192; GPT3-175B 8,192 of 2,048; on the TPU torus
# 4,096 of 4,096 and 8,192 of 2,048): Meta's Llama 3 cluster at 16,384
# and 24,576 GPUs, a rail-optimized H100 cluster cut to 16,384 .. 131,072
# GPUs (-N) and a 32,768-GPU one, a TPU-v4-style torus of 8,192 chips.
# Tables 1 and 2 search what Megatron-LM runs (dpsolve's default, -X
# megatron); BENCH_FRAMEWORK=none searches nestplan's whole space.
# Table 3: searches that need ZeRO (-X none, Megatron having none): the 1T GPT of Megatron's SC'21 table
# at its 3,072 A100 of Selene and batch, without recomputation, sequence
# parallelism or the distributed optimizer (as that run's Megatron-LM
# had; make validate asks this of dpsolve), and Llama 3 405B asked the
# same on 16,384 GPUs of Llama 3's cluster, where no plan fits without
# ZeRO and the search of ZeRO cells has to prove its optimum.
# Table 4: today's mixtures of experts (issue 34): DeepSeek-V3 (latent
# attention, 256 experts, dense layers, a prediction module) on 2,048 and
# 16,384 GPUs of DeepSeek's H800 cluster design, at its batch of 15,360
# sequences of 4,096 (its report, Sec. 4.2); Qwen3-235B-A22B on 4,608
# GB200 (64 NVL72 racks in 8 scalable units) with 16M-token batches
# (4,096 sequences of 4,096).
# Table 6: ZB-H1 searched beside 1F1B (-X none -Y both, issue 35), whose
# points keep three more maxima: Llama 3 405B and GPT3-175B on 16,384 and
# 131,072 GPUs of the rail cluster.
# Table 7: every schedule searched (-X none -Y all): ZB-V and DualPipeV
# too, priced by their orders' forms (sim/form.h), the same cells as
# table 6.
# Every search places the stages both ways (dpsolve's -L both, the
# default): a replica's stages together and each stage's replicas side
# by side.
# Table 5: pipesim (issue 35) on the plan found for Llama 3 405B on
# 131,072 GPUs of the rail cluster, its batch grown to 2,048 micro-batches
# a replica, with every pass written to a timeline.
# One dpsolve process a cell, its own -T statistics (solve time, peak
# RSS).  Prints the tables, the ratio of solve times per doubling of the
# rail cluster, and the targets of issues 4 and 13 and of the ZeRO
# search; writes OUT.csv.
set -eu
[ $# = 2 ] || { echo "usage: bench.sh BINDIR OUT.csv" >&2; exit 2; }
BIN=$1
OUT=$2
. "$(dirname "$0")/output.sh"
out_check bench "$OUT"
MODELS="bertlarge llama2-7b llama3-70b gpt3-175b mixtral-8x7b"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; out_cleanup "$OUT"' EXIT
trap 'exit 1' INT TERM HUP
echo "table,setup,model,devices,global_batch_samples,solve_s,peak_rss_bytes,cells,cells_searched,step_s" > "$tmp/bench.csv"

# table setup network accel model devices batch [options and graphs]
# (default: every variant of results/layers/ACCEL/MODEL/b1)
cell() {
	t=$1 setup=$2 net=$3 acc=$4 m=$5 n=$6 b=$7
	shift 7
	[ $# -gt 0 ] || set -- "results/layers/$acc/$m/b1/index.csv"
	"$BIN/dpsolve" -X "${BENCH_FRAMEWORK:-megatron}" \
	    -a "configs/accelerators/$acc.xml" \
	    -n "configs/networks/$net.xml" -N "$n" -B "$b" -m "$m" \
	    -T "$tmp/st.csv" -o "$tmp/plan.xml" "$@"
	step=$(sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$tmp/plan.xml")
	tail -n 1 "$tmp/st.csv" | awk -F, -v t="$t" -v set="$setup" -v n="$n" \
	    -v m="$m" -v b="$b" -v s="$step" \
	    '{ printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", t, set, m, n, b, $1, $2, $3, $4, s }' \
	    >> "$tmp/bench.csv"
}

for n in 64 128 256 512 1024 4096 16384; do
	for m in $MODELS; do
		cell 1 fattree-tpuv4 fattree-tpuv4-$n tpuv4 $m $n 4096
	done
done
for n in 16384 24576; do
	cell 2 llama3-h100 llama3-h100-24576 h100-80gb llama3-405b $n 2048
	cell 2 llama3-h100 llama3-h100-24576 h100-80gb gpt3-175b $n 8192
	cell 2 llama3-h100 llama3-h100-24576 h100-80gb mixtral-8x22b $n 2048
done
for n in 16384 32768 65536 131072; do
	cell 2 rail-h100 rail-h100-131072 h100-80gb llama3-405b $n 2048
	[ $n != 131072 ] || cp "$tmp/plan.xml" "$tmp/plan-131072.xml"
	cell 2 rail-h100 rail-h100-131072 h100-80gb gpt3-175b $n 8192
	cell 2 rail-h100 rail-h100-131072 h100-80gb mixtral-8x22b $n 2048
done
cell 2 rail-h100-32k rail-h100-32768 h100-80gb llama3-405b 32768 2048
cell 2 rail-h100-32k rail-h100-32768 h100-80gb mixtral-8x22b 32768 2048
cell 2 torus-tpuv4 torus-tpuv4-8192 tpuv4 llama3-70b 8192 4096
cell 2 torus-tpuv4 torus-tpuv4-8192 tpuv4 gpt3-175b 8192 8192
cell 3 selene-zero selene-a100-4480 a100-80gb sc21-gpt-1008b 3072 3072 \
    -X none -r none -D off results/layers/a100-80gb/sc21-gpt-1008b/b1/b1-t*-sp0-e1-c1.csv
cell 3 llama3-h100-zero llama3-h100-24576 h100-80gb llama3-405b 16384 2048 \
    -X none -r none -D off results/layers/h100-80gb/llama3-405b/b1/b1-t*-sp0-e1-c1.csv
for n in 2048 16384; do
	cell 4 deepseek-h800 deepseek-h800-16384 h800-80gb deepseek-v3 $n 15360
done
cell 4 gb200-nvl72 gb200-nvl72-4608 gb200 qwen3-235b-a22b 4608 4096
# tables 6 and 7: the schedules searched, -Y both and -Y all
for t in "6 rail-h100-zbh1 both" "7 rail-h100-all all"; do
	set -- $t
	for n in 16384 131072; do
		cell $1 $2 rail-h100-131072 h100-80gb llama3-405b $n 2048 -X none \
		    -Y $3 results/layers/h100-80gb/llama3-405b/b1/index.csv
		cell $1 $2 rail-h100-131072 h100-80gb gpt3-175b $n 8192 -X none \
		    -Y $3 results/layers/h100-80gb/gpt3-175b/b1/index.csv
	done
done
# pipesim: 2,048 micro-batches of the plan's d replicas of b samples
d=$(sed -n 's/.*<parallelism [^>]* d="\([0-9]*\)".*/\1/p' "$tmp/plan-131072.xml")
b=$(sed -n 's/.*<plan [^>]*micro_batch_samples="\([0-9]*\)".*/\1/p' "$tmp/plan-131072.xml")
B=$((2048 * d * b))
t0=$(date +%s.%N)
"$BIN/pipesim" -a configs/accelerators/h100-80gb.xml \
    -n configs/networks/rail-h100-131072.xml -N 131072 -B "$B" \
    -p "$tmp/plan-131072.xml" -t "$tmp/timeline.csv" -o "$tmp/sim.csv" \
    results/layers/h100-80gb/llama3-405b/b1/index.csv
t1=$(date +%s.%N)
awk -F, -v t0="$t0" -v t1="$t1" -v B="$B" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR == 2 { printf "5,rail-h100-pipesim,llama3-405b,131072,%s,%.6f,0,0,0,%s\n",
	    B, t1 - t0, $c["step_s"] }' \
    "$tmp/sim.csv" >> "$tmp/bench.csv"

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
awk -F, -v load="$load" 'NR == 1 { next }
	$1 != last { printf "%s%-14s %-13s %7s %7s %9s %9s %9s\n", (NR > 2 ? "\n" : ""),
	    "setup", "model", "devices", "batch", "solve_s", "rss_MB", "cells"; last = $1 }
	{ printf "%-14s %-13s %7d %7d %9.3f %9.1f %9d\n", $2, $3, $4, $5, $6, $7 / 1048576, $9
	  if ($1 == 1 && $4 <= 1024) grid += $6
	  if ($1 == 1 && $3 == "gpt3-175b" && $4 == 1024) g1024 = $6
	  if ($1 < 3 && $4 == 16384 && $6 > big) big = $6
	  if ($1 == 4 && $6 > moe) moe = $6
	  if ($1 == 4 && $7 > moerss) moerss = $7
	  if ($4 == 131072 && $1 != 7 && $6 > huge) huge = $6
	  if ($4 == 131072 && $7 > hugerss) hugerss = $7
	  if ($7 > rss) rss = $7
	  if ($2 == "rail-h100") t[$3 "," $4] = $6
	  if ($1 == 3 && $6 > zero) zero = $6
	  if ($1 == 6 && $6 > zb) zb = $6
	  if ($1 == 7 && $6 > all) all = $6
	  if ($1 == 5) sim = $6 }
	END {
	  printf "\nsolve time per doubling of the rail cluster (linear: 2.0x)\n"
	  printf "%-14s %11s %11s %11s\n", "model", "16k->32k", "32k->64k", "64k->128k"
	  split("llama3-405b gpt3-175b mixtral-8x22b", ms, " ")
	  for (i = 1; i <= 3; i++) {
	    m = ms[i]; line = sprintf("%-14s", m)
	    for (n = 16384; n < 131072; n *= 2) {
	      r = t[m "," n] > 0 ? t[m "," 2 * n] / t[m "," n] : 0
	      line = line sprintf(" %10.2fx", r)
	      if (r > worst) worst = r
	    }
	    print line
	  }
	  printf "\ntarget                               measured   limit  met\n"
	  printf "fig5 grid (25 cells), total s     %10.3f %7s  %s\n", grid, "0.5", grid < 0.5 ? "yes" : "NO"
	  printf "gpt3-175b at 1024 devices, s      %10.3f %7s  %s\n", g1024, "1", g1024 < 1 ? "yes" : "NO"
	  printf "slowest cell at 16384 devices, s  %10.3f %7s  %s\n", big, "5", big < 5 ? "yes" : "NO"
	  printf "slowest cell at 131072 devices, s %10.3f %7s  %s\n", huge, "10", huge < 10 ? "yes" : "NO"
	  printf "peak RSS at 131072 devices, MB    %10.1f %7s  %s\n", hugerss / 1048576, "1024", hugerss < 1073741824 ? "yes" : "NO"
	  printf "worst growth per doubling         %9.2fx %7s  %s\n", worst, "~2x", worst < 2.5 ? "yes" : "NO"
	  printf "peak RSS of any cell, MB          %10.1f %7s  %s\n", rss / 1048576, "500", rss < 500 * 1048576 ? "yes" : "NO"
	  printf "slowest ZeRO search (table 3), s  %10.3f %7s  %s\n", zero, "20", zero < 20 ? "yes" : "NO"
	  printf "slowest MoE cell (table 4), s     %10.3f %7s  %s\n", moe, "10", moe < 10 ? "yes" : "NO"
	  printf "peak RSS of table 4, MB           %10.1f %7s  %s\n", moerss / 1048576, "1024", moerss < 1073741824 ? "yes" : "NO"
	  printf "slowest ZB-H1 search (table 6), s %10.3f %7s  %s\n", zb, "10", zb < 10 ? "yes" : "NO"
	  printf "slowest -Y all search (table 7), s%10.3f %7s  %s\n", all, "30", all < 30 ? "yes" : "NO"
	  printf "pipesim, 131072 GPUs x 2048 mb, s %10.3f %7s  %s\n", sim, "5", sim < 5 ? "yes" : "NO"
	  if (grid >= 0.5 || g1024 >= 1 || big >= 5 || huge >= 10 || worst >= 2.5 || zero >= 20 || moe >= 10 || zb >= 10 || all >= 30 || sim >= 5)
	    printf "a time target missed with the load average at %s (1, 5, 15 min): a busy machine, or slower code\n", load
	}' "$tmp/bench.csv"
cp "$tmp/bench.csv" "$OUT.tmp.$$"
out_commit bench "$OUT"
