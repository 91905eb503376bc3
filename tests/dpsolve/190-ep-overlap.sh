#!/bin/sh
# Megatron-Core's combined 1F1B (dpsolve -K, a plan's ep_overlap;
# docs/model.md, "Expert exchange overlap"), against closed forms worked
# out here from Qwen3-30B-A3B's graph (48 alike mixture layers, 8 whole
# experts' ranks splitting the samples, t 1: a layer's only collective is
# its all-to-all, x a quarter of it each way and kind):
# - a layer's pair, as Megatron-Core issues it (combine backward |
#   attention forward, dispatch forward | experts backward and their
#   weights' gradient, dispatch backward | experts forward, combine
#   forward | attention backward, each after its stream and its
#   micro-batch, the weights' gradient after its stream alone; the
#   combine's own compute on the exchange's stream), summed here by awk;
# - one stage, m micro-batches: the first forward and the last backward
#   alone, m - 1 pairs, so the step is (m - 1) x 48 x (alone - pair)
#   shorter; its largest layer's activations more held (its pairs merged
#   layer by layer: one pass's layer kept as the other's frees its own);
# - two stages, two chunks each: the last rank's warm-up (v - 1) S + 1
#   chunks (Megatron's and one), the rest of its m v in pairs, each a
#   chunk's (24 / 2 layers), on the step's longest path: each stage's load
#   (m v - W) / v x 24 x (alone - pair) / (m + (S - 1)/v) lower
#   (stage_s);
# - the launch's two flags (Megatron's flag list); the search (-K both)
#   against both modes evaluated; refused, one line, exit 1, nothing
#   written: full recomputation, a pipeline without interleaving, one
#   expert rank, a dense model, a graph with four of the five columns or
#   an experts' weights' gradient above the row's; pipesim with another
#   schedule; -K beside -E, or on where nothing could run it (exit 2);
# - pipesim's own order of it (below) against the closed form.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/plan-checks.sh

acc=configs/accelerators/h100-80gb.xml
net=configs/networks/spineleaf-h100-128.xml
model=configs/models/qwen3-30b-a3b.xml
graph=$tmp/g.csv
"$BIN/graph-normalize" -c $model -a $acc -V t=1,b=1,e=8,ep=batch \
    -o "$graph" || exit 1
# plan PLAN P V EP RECOMPUTE: Megatron's even split into P stages
plan() {
	{
	printf '<plan micro_batch_samples="8">\n'
	printf '<parallelism d="1" t="1" sp="0" e="8" c="1" ep_batch="1" recompute="%s" virtual_stages="%s" distributed_optimizer="0" overlap_grad_reduce="0" overlap_param_gather="0" ends_in_pipeline_split="0" tp_comm_overlap="0" ep_overlap="%s"/>\n' "$5" "$3" "$4"
	if [ "$2" = 1 ]; then
		printf '<stage first_layer="-1" last_layer="48" zero_stage="0" zero_degree="1"/>\n'
	else
		printf '<stage first_layer="-1" last_layer="23" zero_stage="0" zero_degree="1"/>\n'
		printf '<stage first_layer="24" last_layer="48" zero_stage="0" zero_degree="1"/>\n'
	fi
	printf '</plan>\n'
	} > "$1"
}
solve() {
	"$BIN/dpsolve" -a $acc -n $net -N 16 -B 64 -M 1e12 "$@"
}
# a mixture layer's passes, its experts' share, from the graph
row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR > 1 && $c["all_to_all_bytes"] > 0 { print $c["forward_s"], $c["backward_s"],
    $c["expert_forward_s"], $c["expert_backward_s"],
    $c["expert_weight_gradient_s"], $c["combine_forward_s"],
    $c["combine_backward_s"]; exit }' "$graph")
n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR > 1 && $c["all_to_all_bytes"] > 0 { n++ } END { print n }' "$graph")
[ "$n" = 48 ] || say "Qwen3-30B-A3B: $n mixture rows, not 48"
# saving F B EXPERT_F EXPERT_B EXPERT_W COMBINE_F COMBINE_B X: alone
# less the pair
saving() {
	awk -v f="$1" -v b="$2" -v ef="$3" -v eb="$4" -v ew="$5" -v kf="$6" \
	    -v kb="$7" -v x="$8" '
	function max(a, b) { return a > b ? a : b }
	BEGIN {
		af = f - ef - kf; ab = b - eb - kb
		cb = x + kb; a1 = af		# combine bwd | attention fwd
		df = max(cb, a1) + x		# dispatch fwd after both
		ei = max(a1, cb) + eb - ew	# experts bwd after its combine
		e1 = ei + ew			# and their weights, after it
		db = max(df, ei) + x		# dispatch bwd, not after those
		e2 = max(e1, df) + ef		# experts fwd after its dispatch
		cf = max(db, e2) + x + kf	# combine fwd
		a2 = max(e2, db) + ab		# attention bwd after its dispatch
		printf "%.17g", f + b + 4 * x - max(cf, a2)
	}'
}

# one stage, 8 micro-batches
plan "$tmp/p1.xml" 1 1 0 0
plan "$tmp/p1e.xml" 1 1 1 0
solve -E "$tmp/p1.xml" -o "$tmp/o1.xml" "$graph" &&
    solve -E "$tmp/p1e.xml" -o "$tmp/o1e.xml" "$graph" || exit 1
coll=$(stage "$tmp/o1.xml" 0 collective_s)
x=$(calc "$coll / 48 / 4")
save=$(saving $row "$x")
a=$(attr "$tmp/o1.xml" result step_s)
b=$(attr "$tmp/o1e.xml" result step_s)
close "$(calc "$a - $b")" "$(calc "7 * 48 * $save")" 1e-9 ||
    say "one stage: $a - $b s, not 7 x 48 x $save"
# (at most the exchange and the combine's compute, which leave the
# compute stream)
set -- $row
awk -v s="$save" -v x="$x" -v k="$6" -v kb="$7" \
    'BEGIN { exit !(s > 0 && s <= 4 * x + k + kb) }' ||
    say "one stage: a pair saves $save s of an exchange of 4 x $x s"
layer=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR > 1 && $c["activation_bytes"] > x { x = $c["activation_bytes"] }
    END { printf "%.17g", x }' "$graph")
mem=$(stage "$tmp/o1.xml" 0 memory_bytes)
meme=$(stage "$tmp/o1e.xml" 0 memory_bytes)
close "$meme" "$(calc "$mem + $layer")" 1e-12 ||
    say "one stage: $meme bytes, not the largest layer's activations more ($mem + $layer)"
[ "$(attr "$tmp/o1e.xml" parallelism ep_overlap)" = 1 ] &&
    [ -z "$(attr "$tmp/o1.xml" parallelism ep_overlap)" ] ||
    say "the plan does not record ep_overlap where on alone"

# two stages of two chunks: the last rank warms up 3 chunks of 16
plan "$tmp/p2.xml" 2 2 0 0
plan "$tmp/p2e.xml" 2 2 1 0
solve -E "$tmp/p2.xml" -o "$tmp/o2.xml" "$graph" &&
    solve -E "$tmp/p2e.xml" -o "$tmp/o2e.xml" "$graph" || exit 1
for u in 0 1; do
	w=3
	got=$(calc "$(stage "$tmp/o2.xml" $u stage_s) - $(stage "$tmp/o2e.xml" $u stage_s)")
	want=$(calc "(16 - $w) / 2 * 24 * $save / (8 + 1 / 2)")
	close "$got" "$want" 1e-9 ||
	    say "two stages, rank $u: load $got s lower, not (16 - $w) / 2 x 24 x $save / 8.5"
done

# the launch: Megatron's two flags, both in its list
solve -E "$tmp/p2e.xml" -A $model -f megatron -o "$tmp/launch.sh" "$graph" ||
    exit 1
for f in --overlap-moe-expert-parallel-comm --delay-wgrad-compute; do
	grep -q -- "$f" "$tmp/launch.sh" || say "the launch lacks $f"
	grep -qx -- "$f" tests/megatron/flags-core_v0.15.0.txt ||
	    say "$f is not in Megatron's flag list"
done
grep -q '^#' "$tmp/launch.sh" && grep -q '^# *torchrun' "$tmp/launch.sh" &&
    say "the launch is commented out: $(grep -i 'cannot' "$tmp/launch.sh" | head -n 1)"

# the search: -K both finds a plan no slower than either mode's best
"$BIN/graph-normalize" -D "$tmp/d" -c $model -a $acc -V c=1 \
    -o "$tmp/d/index.csv" || exit 1
for k in off on both; do
	solve -K $k -D off -V off -r none -o "$tmp/s-$k.xml" "$tmp/d/index.csv" ||
	    say "search -K $k failed"
done
sb=$(attr "$tmp/s-both.xml" result step_s)
for k in off on; do
	awk -v a="$sb" -v b="$(attr "$tmp/s-$k.xml" result step_s)" \
	    'BEGIN { exit !(a <= b) }' || say "-K both ($sb s) above -K $k"
done
[ "$(attr "$tmp/s-on.xml" parallelism ep_overlap)" = 1 ] ||
    say "-K on: a plan without ep_overlap"

# refused: one line naming ep_overlap, exit 1, nothing written
refused() {
	rm -f "$tmp/r.xml"
	solve -E "$1" -o "$tmp/r.xml" "$2" 2> "$tmp/err"
	rc=$?
	[ $rc = 1 ] && [ ! -e "$tmp/r.xml" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
	    grep -q "ep_overlap: .*$3" "$tmp/err" ||
	    say "$4: exit $rc, $(cat "$tmp/err")"
}
plan "$tmp/full.xml" 1 1 1 1
refused "$tmp/full.xml" "$graph" "without full recomputation" "full recomputation"
plan "$tmp/nov.xml" 2 1 1 0
refused "$tmp/nov.xml" "$graph" "interleaved" "a pipeline without interleaving"
"$BIN/graph-normalize" -c $model -a $acc -V t=1,b=8 -o "$tmp/e1.csv" || exit 1
sed 's/ e="8" c="1" ep_batch="1"/ e="1" c="1"/' "$tmp/p1e.xml" > "$tmp/e1.xml"
refused "$tmp/e1.xml" "$tmp/e1.csv" "EP > 1" "one expert rank"
"$BIN/graph-normalize" -c configs/models/llama3-8b.xml -a $acc -V t=1,b=8 \
    -o "$tmp/dense.csv" || exit 1
sed 's/ last_layer="48"/ last_layer="32"/' "$tmp/e1.xml" > "$tmp/dense.xml"
refused "$tmp/dense.xml" "$tmp/dense.csv" "mixture-of-experts" "a dense model"
# the graph's columns: all five or none, each within its pass
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "combine_backward_s") k = i }
    { $k = ""; sub(",,", ","); print }' "$graph" > "$tmp/four.csv"
rm -f "$tmp/r.xml"
solve -E "$tmp/p1e.xml" -o "$tmp/r.xml" "$tmp/four.csv" 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/r.xml" ] && grep -q "four.csv:1: .*come together" "$tmp/err" ||
    say "four of the five columns: exit $rc, $(cat "$tmp/err")"
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
    NR == 3 { $c["expert_weight_gradient_s"] = 2 * $c["expert_backward_s"] } { print }' \
    "$graph" > "$tmp/w.csv"
rm -f "$tmp/r.xml"
solve -E "$tmp/p1e.xml" -o "$tmp/r.xml" "$tmp/w.csv" 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/r.xml" ] && grep -q "w.csv:3: expert_weight_gradient_s .* exceeds weight_gradient_s" "$tmp/err" ||
    say "a weights' gradient above its backward pass: exit $rc, $(cat "$tmp/err")"
# pipesim runs the combined 1F1B's own order (Megatron's interleaved
# tables, a warm-up forward pass more, the steady state's passes merged):
# without a pipeline the closed form's step and peak memory to the digit;
# on two stages the same saving as the closed form's, and ranks 0 and 1
# holding interleaved 1F1B's 2 (S - u - 1) + (v - 1) S + 1 chunks at
# their peak, 5 and 3, and the closed form's memory
sim() {
	"$BIN/pipesim" -a $acc -n $net -N 16 -B 64 -M 1e12 -p "$1" -o "$2" \
	    "$graph" || exit 1
}
col() { awk -F, -v k="$2" -v r="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR == r + 2 { print $c[k] }' "$1"; }
sim "$tmp/p1e.xml" "$tmp/s1e.csv"
close "$(col "$tmp/s1e.csv" step_s 0)" "$b" 1e-12 ||
    say "pipesim, one stage: $(col "$tmp/s1e.csv" step_s 0) s, not the closed form's $b"
close "$(col "$tmp/s1e.csv" peak_memory_bytes 0)" "$meme" 1e-12 ||
    say "pipesim, one stage: $(col "$tmp/s1e.csv" peak_memory_bytes 0) bytes, not the closed form's $meme"
sim "$tmp/p2.xml" "$tmp/s2.csv"
sim "$tmp/p2e.xml" "$tmp/s2e.csv"
got=$(calc "$(col "$tmp/s2.csv" step_s 0) - $(col "$tmp/s2e.csv" step_s 0)")
want=$(calc "$(attr "$tmp/o2.xml" result step_s) - $(attr "$tmp/o2e.xml" result step_s)")
close "$got" "$want" 1e-9 ||
    say "pipesim, two stages: the overlap saves $got s, the closed form $want s"
[ "$(col "$tmp/s2e.csv" peak_activation_chunks 0)" = 5 ] &&
    [ "$(col "$tmp/s2e.csv" peak_activation_chunks 1)" = 3 ] ||
    say "pipesim, two stages: peaks of $(col "$tmp/s2e.csv" peak_activation_chunks 0) and $(col "$tmp/s2e.csv" peak_activation_chunks 1) chunks, not 5 and 3"
for u in 0 1; do
	close "$(col "$tmp/s2e.csv" peak_memory_bytes $u)" "$(stage "$tmp/o2e.xml" $u memory_bytes)" 1e-12 ||
	    say "pipesim, two stages, rank $u: $(col "$tmp/s2e.csv" peak_memory_bytes $u) bytes, the closed form $(stage "$tmp/o2e.xml" $u memory_bytes)"
done
# usage errors (exit 2): -K beside -E, -K on where it cannot run
for args in "-K on -E $tmp/p1e.xml" "-K on -r full" "-K on -I only -X none" \
    "-K on -X torchtitan -A $model"; do
	solve $args -o "$tmp/r.xml" "$graph" > /dev/null 2>&1
	rc=$?
	[ $rc = 2 ] || say "dpsolve $args: exit $rc, not 2"
done
# the summary says what a mixture's step leaves out (the host's wait
# for the tokens' counts); a dense graph's does not
solve -f summary "$graph" > "$tmp/summary" 2>&1
grep -q "^not priced: the host's time after each mixture layer's" \
    "$tmp/summary" || say "a mixture's summary names no host time"
"$BIN/graph-normalize" -c configs/models/llama3-8b.xml -a $acc -V t=1,b=1 \
    -o "$tmp/dense.csv" || exit 1
solve -f summary "$tmp/dense.csv" > "$tmp/summary" 2>&1
grep -q "^not priced" "$tmp/summary" && say "a dense summary names a host time"
rm -f "$tmp/sim.csv"
"$BIN/pipesim" -a $acc -n $net -N 16 -B 64 -s zbh1 -p "$tmp/p1e.xml" \
    -o "$tmp/sim.csv" "$graph" 2> "$tmp/err"
rc=$?
[ $rc = 1 ] && [ ! -e "$tmp/sim.csv" ] && grep -q 'ep_overlap' "$tmp/err" ||
    say "pipesim -s zbh1 on a combined 1F1B plan: exit $rc, $(cat "$tmp/err")"
exit $fail
