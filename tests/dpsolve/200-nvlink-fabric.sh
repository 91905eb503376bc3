#!/bin/sh
# NVLink SHARP's all-reduce (a level's nvls_efficiency) prices plain data
# parallelism's gradient all-reduce, and only that: the distributed
# optimizer's reduce-scatter and all-gather keep the ring.  Llama 3 8B on
# one node of 8 H100 (450 GB/s, NCCL's payload 370.8, 3 us), one stage,
# DP 8, priced with and without the fabric (e = 0.742):
# - plain: the gradient all-reduce of B bytes is 7/4 B / 370.8e9 + 14
#   alpha by the ring and B / (0.742 x 370.8e9) + 2 alpha in the fabric,
#   so (ring - 14 alpha) / (fabric - 2 alpha) = 7/4 x 0.742;
# - distributed optimizer: the step's reductions the same to the bit
#   with and without the fabric, the ring's reduce-scatter of the fp32
#   gradients and all-gather of the bf16 weights: 7 alpha each, and 3/4
#   of the ring all-reduce's bytes;
# - FSDP2 over the 8 (gathers and reduce-scatters only): the step the
#   same to the bit.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/plan-checks.sh

acc=configs/accelerators/h100-80gb.xml
for e in 0 0.742; do
	cat > "$tmp/net-$e.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<network name="node">
  <description>8 H100 on NVLink</description>
  <level name="node" fanout="8" bandwidth_GBps="450" latency_s="3e-6" protocol_overhead="0.176"$([ $e = 0 ] || echo " nvls_efficiency=\"$e\"")/>
</network>
EOF
done
"$BIN/graph-normalize" -a $acc -c configs/models/llama3-8b.xml -V b=1,t=1 \
    -o "$tmp/g.csv" || exit 1
for opt in 0 1 fsdp; do
	cat > "$tmp/plan-$opt.xml" <<EOF
<plan micro_batch_samples="1">
<parallelism d="8" t="1" sp="0" e="1" c="1" recompute="1" virtual_stages="1" distributed_optimizer="$([ $opt = 1 ] && echo 1 || echo 0)" overlap_grad_reduce="0" overlap_param_gather="0" ends_in_pipeline_split="0" tp_comm_overlap="0"$([ $opt = fsdp ] && echo ' fsdp="1"')/>
<stage first_layer="-1" last_layer="32" zero_stage="0" zero_degree="1"/>
</plan>
EOF
	for e in 0 0.742; do
		"$BIN/dpsolve" -a $acc -n "$tmp/net-$e.xml" -B 64 -M 1e12 -X none \
		    -E "$tmp/plan-$opt.xml" -o "$tmp/p-$opt-$e.xml" "$tmp/g.csv" ||
		    exit 1
	done
done
sync() { calc "$(stage "$1" 0 sync_total_s) - $(stage "$1" 0 optimizer_s)"; }
ring=$(sync "$tmp/p-0-0.xml")
fabric=$(sync "$tmp/p-0-0.742.xml")
close "$(calc "($ring - 14 * 3e-6) / ($fabric - 2 * 3e-6)")" \
    "$(calc "7 / 4 * 0.742")" 1e-9 ||
    say "plain DP 8: ring $ring s, fabric $fabric s, not 7/4 x 0.742 apart"
a=$(sync "$tmp/p-1-0.xml")
b=$(sync "$tmp/p-1-0.742.xml")
[ "$a" = "$b" ] ||
    say "distributed optimizer: $a s by the ring, $b s beside the fabric"
close "$(calc "$a - 14 * 3e-6")" "$(calc "3 / 4 * ($ring - 14 * 3e-6)")" 1e-9 ||
    say "distributed optimizer: $a s, not 3/4 of the ring's bytes ($ring s)"
a=$(attr "$tmp/p-fsdp-0.xml" result step_s)
b=$(attr "$tmp/p-fsdp-0.742.xml" result step_s)
[ -n "$a" ] && [ "$a" = "$b" ] ||
    say "FSDP2: a step of $a s by the ring, $b s beside the fabric"
exit $fail
