#!/bin/sh
# validate.sh - the analytic model against published measurements of real
# training runs (make validate; README, "How far to trust the numbers").
#
#   sh tools/validate.sh BINDIR OUT.csv [runs.csv ...]
#   (VALIDATE_PLANS=DIR keeps each published plan as priced, DIR/RUN.xml;
#   VALIDATE_GANTT=DIR draws each published plan's step as pipesim
#   simulates it, DIR/gantt-RUN.png and .svg;
#   VALIDATE_CONFIGS=DIR reads the models, accelerators and networks from
#   DIR instead of configs, as tools/validate-sensitivity.sh does;
#   VALIDATE_SPEEDS=TABLE prices the straggler_step_s column from that
#   table of measured device speeds, empty: the column left empty)
#   sh tools/validate.sh --summary OUT.csv
#
# Each run of a runs table (docs/formats.md, "Published runs": run, model,
# accelerator, network, devices, t, p, d, global_batch_samples,
# micro_batch_samples, virtual_stages, recompute, overlap_grad_reduce,
# gradients, ddp (torch: PyTorch's DDP, whose buckets copy the gradients;
# local: Megatron's), one measurement (measured_step_s,
# measured_tokens_per_s_per_gpu, measured_tflops_per_gpu, measured_mfu_pct
# or measured_hfu_pct), source; optional: flops_count (hardware, the
# default, or model: whose FLOPs a TFLOP/s figure counts),
# p2p_scatter_gather (1: Megatron-LM of 2021-22 sent the
# pipeline's activations in t pieces, dpsolve -P), sequence_parallel,
# distributed_optimizer, overlap_param_gather (--overlap-param-gather:
# the distributed optimizer's parameter gather during the next step's
# forward pass), tp_comm_overlap (--tp-comm-overlap: Transformer Engine's
# userbuffers, with sequence parallelism), tp_grad_blocking (1: Megatron-LM
# before 2021-08-30, whose column-parallel products reduced their input
# gradient after their weight gradient instead of beside it), c (context parallelism; t p c d = devices),
# ends_in_pipeline_split (Megatron's --account-for-embedding-in-pipeline-
# split and --account-for-loss-in-pipeline-split: the two ends count as a
# layer each), recompute_num_layers (--recompute-method block
# --recompute-num-layers N), decoder_first_pipeline_num_layers and
# decoder_last_pipeline_num_layers (Megatron-Core's uneven split),
# expert_t (1: whole experts beside t, --expert-tensor-parallel-size 1;
# default t), dispatcher (alltoall, the default, or deepep: DeepEP's or
# HybridEP's hierarchical kernels, dpsolve -H deepep), fp8_recipe
# (none, the default, delayed, tensorwise, blockwise or mxfp8; float8 or
# float8-tp, torchao's without or with its tensor parallelism, beside
# fsdp),
# fp8_param_gather (--fp8-param-gather: FP8 weights kept and gathered in
# FP8, with the distributed optimizer; with fsdp and float8, torchao's
# float8 all-gather with its precomputed scales; dpsolve -Q) and
# seq_length (the run's sequence where it is not the model config's:
# the model is priced with that <seq_len>), fsdp (none, the default;
# resharded or kept: torchtitan's FSDP2 in place of Megatron's data
# parallelism, resharded after forward on one stage, kept gathered when
# pipelined; docs/model.md, "FSDP2"), fsdp_shard (HSDP: the units sharded
# over groups of that many replicas; 0 or absent, all d), recompute
# op (torchtitan's per-operator checkpointing, beside FSDP2), and
# stage_major (1, the default: each stage's replicas side by side, as
# every framework here places them by default: Megatron-LM's rank order
# tp-cp-ep-dp-pp, of 2021 too, DeepSpeed's pipe-data-model topology,
# torchtitan's mesh; 0: a replica's stages one after another, a run
# launched with Megatron's --use-tp-pp-dp-mapping), and attention_kernel
# (fused, the default: the accelerator's own fused attention, cuDNN's on
# Hopper; fa2: FlashAttention-2, graph-normalize -V attn=fa2), and
# ep_overlap (1: Megatron-Core's --overlap-moe-expert-parallel-comm, the
# combined 1F1B; dpsolve -K)) is
# priced exactly as it was run: its variant's per-layer graph
# (graph-normalize), Megatron's split over p stages (even, or as the
# first and last stages' layers say), and dpsolve -E.  A step time is taken as it is; tokens a second a GPU
# give B s / (rate x GPUs); TFLOP/s a GPU give F / (TFLOP/s x GPUs) with
# the FLOPs a step that Megatron-LM counts (num_floating_point_operations
# in training.py, core_r0.8.0: forward and backward, the model FLOPs of
# MFU), with, in the hardware count (the default), what recomputation
# runs again as Narayanan et al. count it (SC'21, Eq. 3):
#   F = 12 B s l h^2 (r ((1 + G/A + s/h) + k g f/h) + q + V/(2 l h))
# (A heads, G key/value heads, f the MLP's width, k experts a token, g
# 3/2 for a gated MLP, r 4/3 under full recomputation, 1 + min(l, N p v)
# / 3l under block recomputation of N layers a chunk, else 1; q s/3h
# under selective, the attention core's forward, else 0; r 1 and q 0 in
# the model count); for GPT models, SC'21's 96 B s l h^2 (1 + s/6h +
# V/16lh) and 72 ... V/12lh.  A utilization is that share of the
# accelerator's peak_matmul_flops_per_s in TFLOP/s.
# dpsolve then searches its own plan on the run's cluster and batch (the
# features the run's Megatron-LM had: tensor and pipeline parallelism
# with interleaving, sequence and context parallelism (up to the run's
# degree) and the distributed optimizer only if the run used them,
# recomputation none or full, and selective if the run used it, overlap
# and scatter/gather as the run had them; either placement of the
# stages; any micro-batch size of 1, 2,
# 4, 8 or the run's, no larger than the batch) and the ratio of its
# predicted throughput to the published plan's, both
# priced by the same model, is reported: once with any of those
# recomputation kinds, once with the run's own (the layout alone).
# Memory points: the ZeRO paper's 7.5B example through memmodel, and
# Korthikanti et al.'s per-layer activation forms.
# The published plan is also priced with every GPU the expected slowest
# of the run's (dpsolve -J; docs/model.md, "Stragglers"), from the
# measured speeds of VALIDATE_SPEEDS (default
# data/variability/sgemm-v100-longhorn.csv; empty: not priced), in a
# column of its own (straggler_step_s): shown, never the prediction.
# Prints one progress line a run, the same plans' errors as pipesim
# simulates them and with the expected slowest GPU, and, last,
#   validate: N runs, median |err| X%, worst Y% (run)
set -eu

# The last line: the runs' step-time errors and the memory points'.
summary() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		NR > 1 && $1 == "measured" { e = $6 < 0 ? -$6 : $6; err[++n] = e
		  if (e > worst) { worst = e; wrun = $2 }
		  # pipesim'"'"'s step of the same plan, and the plan with the
		  # expected slowest GPU of the run, where the table has them
		  track("simulated_step_s", serr, sw)
		  track("straggler_step_s", gerr, gw) }
		NR > 1 && $1 == "memory" { e = $6 < 0 ? -$6 : $6; if (e > mworst) mworst = e; m++ }
		# a step column'"'"'s |error| against the measured one, into a (its
		# count, worst and worst run in w)
		function track(col, a, w,   e) {
		  if (!(col in c) || $c[col] == "") return
		  e = 100 * ($c[col] - $3) / $3; if (e < 0) e = -e
		  a[++w["n"]] = e; if (e > w["worst"]) { w["worst"] = e; w["run"] = $2 }
		}
		function median(a, k,   i, j, x) {
		  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
		      if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		  return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		END {
		  if (sw["n"] > 0)
		    printf "validate: the same plans simulated by pipesim: median |err| %.1f%%, worst %.1f%% (%s)\n",
		        median(serr, sw["n"]), sw["worst"], sw["run"]
		  if (gw["n"] > 0)
		    printf "validate: with every GPU the expected slowest of its run (straggler_step_s): median |err| %.1f%%, worst %.1f%% (%s)\n",
		        median(gerr, gw["n"]), gw["worst"], gw["run"]
		  printf "validate: %d runs, median |err| %.1f%%, worst %.1f%% (%s); %d memory points, worst %.1f%%\n",
		      n, median(err, n), worst, wrun, m, mworst }' "$1"
}
if [ "${1:-}" = --summary ] && [ $# = 2 ]; then
	summary "$2"
	exit 0
fi
[ $# -gt 2 ] || { echo "usage: validate.sh BINDIR OUT.csv runs.csv ... | --summary OUT.csv" >&2; exit 2; }
BIN=$1
OUT=$2
shift 2
. "$(dirname "$0")/output.sh"
out_check validate "$OUT"
CONFIGS=${VALIDATE_CONFIGS:-configs}
SPEEDS=${VALIDATE_SPEEDS-data/variability/sgemm-v100-longhorn.csv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; out_cleanup "$OUT"' EXIT
trap 'exit 1' INT TERM HUP

field() {	# model.xml element
	sed -n "s/.*<$2>\([^<]*\)<\/$2>.*/\1/p" "$1" | head -n 1
}

# A tool that prices plans (dpsolve, pipesim) on the run's cluster, batch
# and gradient buffers (the loop's variables at the time of the call),
# then the given options
priced() {	# tool options...
	_tool=$1
	shift
	"$BIN/$_tool" -a "$CONFIGS/accelerators/$acc.xml" \
	    -n "$CONFIGS/networks/$net.xml" -N "$devices" -B "$B" -g "$gflag" \
	    -G "$ddpflag" -P "$sgflag" -W "$tpwait" "$@"
}
solve() {
	priced dpsolve "$@"
}

header="kind,run,published,predicted,unit,error_pct,plan,fits,peak_memory_bytes,own_plan,own_over_published,own_peak_memory_bytes,own_same_recompute_plan,own_same_recompute_over_published,compute_s,collectives_s,p2p_s,bubble_s,exposed_sync_s,simulated_step_s,straggler_step_s,not_modelled"
echo "$header" > "$tmp/out.csv"

# A runs table's rows in one order, whatever its columns' order, each
# checked: named columns, known words, positive whole numbers, t p d =
# devices, configs that exist; the optional columns default to 0
# (Megatron-Core: no scatter/gather, sequence parallelism or distributed
# optimizer).  The source, last, may hold commas.
rows() {	# table
	[ -r "$1" ] || { echo "validate: $1: cannot read the runs table" >&2; return 1; }
	awk -F, -v file="$1" -v C="$CONFIGS" '
	function bad(what) { printf "validate: %s:%d: %s\n", file, NR, what > "/dev/stderr"; failed = 1; exit 1 }
	function whole(name,   x) { x = $col[name]; if (x !~ /^[1-9][0-9]*$/) bad(name " \"" x "\" is not a positive whole number"); return x }
	function opt_whole(name, absent) { return (name in col && $col[name] != "") ? whole(name) : absent }
	function flag(name,   x) { if (!(name in col)) return 0; x = $col[name]; if (x != "0" && x != "1") bad(name " \"" x "\" is not 0 or 1"); return x }
	function word(name, words,   x, w, k, n) { x = $col[name]; n = split(words, w, " "); for (k = 1; k <= n; k++) if (x == w[k]) return x; bad(name " \"" x "\" is not one of: " words) }
	# a config element'"'"'s number: the first <tag>value< whose value
	# matches the pattern, or `absent`
	function number_of(kind, name, tag, pattern, absent,   f, line, x) {
		f = C "/" kind "/" name ".xml"; x = absent
		while ((getline line < f) > 0) if (match(line, "<" tag ">" pattern "<")) { x = substr(line, RSTART + length(tag) + 2, RLENGTH - length(tag) - 3) + 0; break }
		close(f); return x }
	function layers_of(name) { return number_of("models", name, "layers", "[0-9]+", 0) }
	function experts_of(name) { return number_of("models", name, "experts", "[0-9]+", 1) }
	function peak_of(name) { return number_of("accelerators", name, "peak_matmul_flops_per_s", "[^<]*", 0) }
	function config(kind, name) { if (name !~ /^[A-Za-z0-9._-]+$/ || (getline junk < (C "/" kind "/" name ".xml")) < 0) bad(kind " \"" name "\": no " C "/" kind "/" name ".xml"); close(C "/" kind "/" name ".xml"); return name }
	NR == 1 {
		sub(/\r$/, ""); sub(/^\357\273\277/, "")
		for (i = 1; i <= NF; i++) { if ($i in col) bad("column \"" $i "\" twice"); col[$i] = i }
		n = split("run model accelerator network devices t p d global_batch_samples micro_batch_samples virtual_stages recompute overlap_grad_reduce gradients ddp source", need, " ")
		for (i = 1; i <= n; i++) if (!(need[i] in col)) bad("no column \"" need[i] "\"")
		nm = split("measured_step_s measured_tokens_per_s_per_gpu measured_tflops_per_gpu measured_mfu_pct measured_hfu_pct", measures, " ")
		for (i = 1; i <= nm; i++) if (measures[i] in col) k++
		if (!k) bad("no measurement column (measured_step_s, measured_tokens_per_s_per_gpu, measured_tflops_per_gpu, measured_mfu_pct or measured_hfu_pct)")
		if (col["source"] != NF) bad("\"source\" must be the last column")
		next
	}
	/^\r?$/ { next }	# a blank line, as at the end of a file
	{
		sub(/\r$/, "")
		if ($col["run"] !~ /^[A-Za-z0-9._-]+$/) bad("run \"" $col["run"] "\" is not a name")
		if (seen[$col["run"]]++) bad("run \"" $col["run"] "\" twice")
		devices = whole("devices"); t = whole("t"); p = whole("p"); d = whole("d")
		c = ("c" in col) ? whole("c") : 1
		if (t * p * c * d != devices) bad("t p " (c > 1 ? "c " : "") "d = " t * p * c * d ", not devices " devices)
		# expert parallelism as Megatron counts it: e of the
		# data-parallel ranks, each its own micro-batch (batch), or
		# of the context-parallel ranks, sharing one (fold)
		# e is the --expert-model-parallel-size of Megatron; with the
		# experts own tensor split below t the t/expert_t groups of a
		# tensor group are expert ranks too, so the e of the planner
		# (its expert ranks a tensor group) is e expert_t / t
		EP = opt_whole("e", 1)
		et = opt_whole("expert_t", t)
		if (t % et) bad("expert_t " et ": the experts'"'"' tensor split divides t (" t ")")
		if ((EP * et) % t) bad("e " EP ": Megatron'"'"'s expert ranks are t/expert_t " t / et " a tensor group, so a multiple of it")
		E = EP * et / t
		esplit = ("expert_split" in col && $col["expert_split"] != "") ? word("expert_split", "batch fold") : "batch"
		if (E > 1 && esplit == "batch" && c == 1 && d % E) bad("e " E " does not divide d " d " (expert_split batch: the expert ranks are data-parallel ranks)")
		# beside context parallelism, Megatron-Core lays the expert
		# ranks over all the context ranks first, then over d
		if (E > 1 && esplit == "batch" && c > 1 && (E % c || E == c || d % (E / c))) bad("e " E " with c " c ": a batch split beside context parallelism takes the c context ranks and e/c data-parallel ranks (e a multiple of c above it, e/c dividing d " d ")")
		if (E > 1 && esplit == "fold" && c % E) bad("e " E " does not divide c " c " (expert_split fold: the expert ranks are context-parallel ranks)")
		if (E == 1 && "expert_split" in col && $col["expert_split"] != "") bad("expert_split " esplit " needs e > 1")
		model = config("models", $col["model"])
		if (EP > 1 && experts_of(model) % EP) bad("e " EP ": does not divide the " experts_of(model) " experts of " model)
		# the tensor split of the experts (a divisor of t, down to 1:
		# whole experts, the tensor ranks expert ranks too), the
		# dispatch (DeepEP and HybridEP kernels, whole experts only)
		# and the FP8 recipe
		if (et < t && flag("sequence_parallel") != 1) bad("expert_t " et " below t " t " needs sequence_parallel 1")
		disp = ("dispatcher" in col && $col["dispatcher"] != "") ? word("dispatcher", "alltoall deepep") : "alltoall"
		if (disp == "deepep" && et > 1) bad("dispatcher deepep needs whole experts (expert_t 1, or t 1)")
		fp8 = ("fp8_recipe" in col && $col["fp8_recipe"] != "") ? word("fp8_recipe", "none delayed tensorwise blockwise mxfp8 float8 float8-tp") : "none"
		# torchtitan'"'"'s FSDP2 (and HSDP) in place of Megatron'"'"'s data
		# parallelism, and its per-operator checkpointing beside it
		fsdp = ("fsdp" in col && $col["fsdp"] != "") ? word("fsdp", "none resharded kept") : "none"
		# Megatron'"'"'s FP8 gather, or torchao'"'"'s float8 all-gather under FSDP2
		torchao = fp8 == "float8" || fp8 == "float8-tp"
		if (flag("fp8_param_gather") == 1 && (fsdp == "none" ? fp8 == "none" || flag("distributed_optimizer") != 1 : !torchao)) bad("fp8_param_gather 1 needs an fp8_recipe and distributed_optimizer 1 (or fsdp with fp8_recipe float8 or float8-tp)")
		if (torchao != (fsdp != "none" && fp8 != "none")) bad("fp8_recipe " fp8 " with fsdp " fsdp ": torchao'"'"'s float8 runs beside FSDP2, Transformer Engine'"'"'s recipes without it")
		fshard = ("fsdp_shard" in col && $col["fsdp_shard"] != "" && $col["fsdp_shard"] != "0") ? whole("fsdp_shard") : 0
		rcw = word("recompute", "none full selective op")
		if (fsdp != "none" && (flag("distributed_optimizer") || flag("overlap_grad_reduce") || flag("overlap_param_gather") || flag("tp_comm_overlap"))) bad("fsdp " fsdp ": FSDP2 replaces Megatron'"'"'s data parallelism (distributed_optimizer, overlap_grad_reduce, overlap_param_gather and tp_comm_overlap 0)")
		if (fshard > 0 && (fsdp == "none" || d % fshard || fshard >= d)) bad("fsdp_shard " fshard ": HSDP needs fsdp and a shard group dividing d " d " into two groups or more")
		if (rcw == "op" && fsdp == "none") bad("recompute op: torchtitan'"'"'s per-operator checkpointing runs beside FSDP2 (fsdp resharded or kept)")
		if (rcw == "selective" && fsdp != "none") bad("recompute selective: Megatron'"'"'s, not beside FSDP2 (torchtitan'"'"'s is op)")
		L = layers_of(model)
		# Megatron splits the layers evenly; with
		# --account-for-{embedding,loss}-in-pipeline-split the embedding
		# and the loss count as a layer each
		ends = flag("ends_in_pipeline_split")
		v = whole("virtual_stages")
		# or unevenly: --decoder-first-pipeline-num-layers F and
		# --decoder-last-pipeline-num-layers Z, the other stages even
		F = opt_whole("decoder_first_pipeline_num_layers", 0)
		Z = opt_whole("decoder_last_pipeline_num_layers", 0)
		if (F + Z > 0) {
			if (ends) bad("decoder_first/last_pipeline_num_layers with ends_in_pipeline_split 1: one or the other")
			if (p < 2) bad("decoder_first/last_pipeline_num_layers need p > 1")
			mid = p - (F > 0) - (Z > 0); rest = L - F - Z
			if (rest < 0 || (mid == 0 && rest != 0) || (mid > 0 && (rest % mid || rest < mid))) bad("p " p ": " L " layers less the first stage" "'"'"'s " F " and the last" "'"'"'s " Z " do not split evenly over the other " mid)
			each = mid > 0 ? rest / mid : 0
			if ((F ? F : each) % v || (Z ? Z : each) % v || (mid > 0 && each % v)) bad("virtual_stages " v ": do not divide every stage" "'"'"'s layers (" (F ? F : each) ", " each ", " (Z ? Z : each) ")")
			big = F > Z ? F : Z; if (each > big) big = each
		} else {
			if (L < 1 || (L + 2 * ends) % p) bad("p " p ": the model'"'"'s " L " layers" (ends ? " and its two ends" : "") " do not split evenly")
			big = (L + 2 * ends) / p
		}
		B = whole("global_batch_samples"); b = whole("micro_batch_samples")
		if (B % (d * b)) bad("global_batch_samples " B " is not a multiple of d x micro_batch_samples = " d * b)
		# what the interleaved schedule of Megatron needs (as dpsolve -E)
		if (v > 1 && p < 2) bad("virtual_stages " v ": interleaving needs p > 1")
		if (v > 1 && (B / (d * b)) % p) bad("virtual_stages " v ": the " B / (d * b) " micro-batches are not a multiple of p " p)
		if (F + Z == 0 && ((L + 2 * ends) / p) % v) bad("virtual_stages " v ": do not divide the " (L + 2 * ends) / p " layers a stage")
		if (flag("sequence_parallel") == 1 && t == 1) bad("sequence_parallel 1 needs t > 1")
		# --recompute-method block --recompute-num-layers N: N of each
		# model chunk (of its (L + 2 ends) / (p v) layers) recomputed
		rl = opt_whole("recompute_num_layers", 0)
		if (rl > 0 && $col["recompute"] != "full") bad("recompute_num_layers " rl " needs recompute full")
		if (rl > big / v) bad("recompute_num_layers " rl ": a model chunk has at most " big / v " layers")
		# Megatron-LM asserts both (arguments.py, core_r0.8.0)
		if (flag("overlap_param_gather") == 1 && flag("distributed_optimizer") != 1) bad("overlap_param_gather 1 needs distributed_optimizer 1")
		if (flag("overlap_param_gather") == 1 && flag("overlap_grad_reduce") != 1) bad("overlap_param_gather 1 needs overlap_grad_reduce 1")
		if (flag("tp_comm_overlap") == 1 && flag("sequence_parallel") != 1) bad("tp_comm_overlap 1 needs sequence_parallel 1")
		# Megatron-Core asserts these of the combined 1F1B (TransformerConfig, core_v0.15.0)
		if (flag("ep_overlap") == 1 && (EP < 2 || rcw == "full" || rcw == "op" || rl > 0 || (p > 1 && v < 2) || fsdp != "none")) bad("ep_overlap 1 needs expert parallelism (EP > 1), no full recomputation, interleaving where p > 1, and no fsdp")
		# exactly one measurement a row, in whichever form it was published
		m = ""
		for (i = 1; i <= nm; i++) {
			if (!(measures[i] in col) || $col[measures[i]] == "") continue
			if (m != "") bad("both " mname " and " measures[i] ": give one measurement")
			m = $col[measures[i]]; mname = measures[i]
			if (m !~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ || m + 0 <= 0 || m + 0 > 1e18) bad(mname " \"" m "\" is not a positive number")
		}
		if (m == "") bad("no measurement: one of " measures[1] ", " measures[2] ", " measures[3] ", " measures[4] ", " measures[5])
		# FLOPs counted as the model has them (MFU, the TFLOP/s Megatron-Core logs)
		# or as the hardware ran them (HFU: the recomputed
		# forward passes too, as SC21 Eq. 3 counts; the default)
		count = ("flops_count" in col) ? $col["flops_count"] : ""
		if (count != "" && count != "hardware" && count != "model") bad("flops_count \"" count "\" is not one of: hardware model")
		if (mname == "measured_mfu_pct" || mname == "measured_hfu_pct") {
			want = mname == "measured_mfu_pct" ? "model" : "hardware"
			if (count != "" && count != want) bad("flops_count " count " with " mname ": " mname " counts the " want " FLOPs")
			if (m + 0 > 100) bad(mname " \"" m "\" is above 100")
			count = want
			# a share of the accelerator'"'"'s dense matmul peak, in TFLOP/s
			peak = peak_of(config("accelerators", $col["accelerator"]))
			if (peak <= 0) bad("accelerator " $col["accelerator"] ": no <peak_matmul_flops_per_s> for " mname)
			m = sprintf("%.17g", m / 100 * peak / 1e12); mname = "measured_tflops_per_gpu"
		} else if (count != "" && mname != "measured_tflops_per_gpu")
			bad("flops_count " count " with " mname ": it says how FLOPs were counted")
		if (count == "") count = "hardware"
		if (rcw == "op" && count == "hardware" && mname == "measured_tflops_per_gpu") bad("recompute op with a hardware FLOP count: what per-operator checkpointing reruns is not counted (give tokens a second or the model count)")
		# the fused attention kernel: FlashAttention-2 where the
		# accelerator has its rate
		attn = ("attention_kernel" in col && $col["attention_kernel"] != "") ? word("attention_kernel", "fused fa2") : "fused"
		if (attn == "fa2" && number_of("accelerators", config("accelerators", $col["accelerator"]), "efficiency kind=\"fa2_attention\"", "[^<]*", "") == "") bad("attention_kernel fa2: accelerator \"" $col["accelerator"] "\" has no FlashAttention-2 rate (<efficiency kind=\"fa2_attention\">)")
		sub(/^measured_/, "", mname); tf = mname "=" m "=" count
		src = $col["source"]
		for (i = col["source"] + 1; i <= NF; i++) src = src "," $i
		print $col["run"], model,
		    config("accelerators", $col["accelerator"]), config("networks", $col["network"]),
		    devices, t, p, d, B, b,
		    v, rcw,
		    flag("overlap_grad_reduce"), word("gradients", "fp16 bf16 fp32"),
		    word("ddp", "torch local"), flag("p2p_scatter_gather"),
		    flag("sequence_parallel"), flag("distributed_optimizer"),
		    flag("overlap_param_gather"), flag("tp_comm_overlap"),
		    flag("tp_grad_blocking"), c, ends, rl, F, Z, E, esplit,
		    fp8, flag("fp8_param_gather"), et, disp,
		    opt_whole("seq_length", 0), fsdp, fshard,
		    ("stage_major" in col && $col["stage_major"] != "") ? flag("stage_major") : 1,
		    attn, flag("ep_overlap"), tf, src
		runs++
	}
	END {
		if (failed) exit 1
		if (NR == 0) { printf "validate: %s: empty, not a runs table\n", file > "/dev/stderr"; exit 1 }
		if (!runs) { printf "validate: %s:1: a header and no runs\n", file > "/dev/stderr"; exit 1 }
	}' OFS=, "$1"
}

for table in "$@"; do
	rows "$table" > "$tmp/rows" || exit 1
	while IFS=, read -r run model acc net devices t p d B b v rc ovl grads ddp sg sp dopt ovlp tpo tpb c ends rl F Z E split fp8 f8g et disp seq fsdp fshard sm attn epo measure source; do
		mx=$CONFIGS/models/$model.xml
		# the run's sequence: a copy of the model with that <seq_len>;
		# learned positions keep their table (the config's sequence, the
		# default of <max_positions>), or grow to the run's
		s0=$(field "$mx" seq_len)
		if [ "$seq" -gt 0 ] && [ "$seq" != "$s0" ]; then
			pos=
			if [ "$(field "$mx" position)" != rotary ] &&
			    [ -z "$(field "$mx" max_positions)" ]; then
				pos="<max_positions>$((seq > s0 ? seq : s0))</max_positions>"
			fi
			sed "s|<seq_len>[0-9]*</seq_len>|<seq_len>$seq</seq_len>$pos|" \
			    "$mx" > "$tmp/$run.model.xml"
			mx=$tmp/$run.model.xml
			[ "$(field "$mx" seq_len)" = "$seq" ] || {
				echo "validate: $run: seq_length $seq: no <seq_len> to replace in $model.xml" >&2
				exit 1; }
		fi
		L=$(field "$mx" layers) h=$(field "$mx" hidden) s=$(field "$mx" seq_len)
		V=$(field "$mx" vocab) A=$(field "$mx" heads) G=$(field "$mx" kv_heads)
		f=$(field "$mx" ffn_hidden) k=$(field "$mx" top_k)
		gated=$([ "$(field "$mx" mlp)" = gated ] && echo 1.5 || echo 1)
		[ -n "$G" ] || G=$A
		[ -n "$(field "$mx" experts)" ] && [ -n "$k" ] || k=1
		gflag=$([ "$grads" = fp32 ] && echo fp32 || echo bf16)
		ddpflag=$([ "$ddp" = torch ] && echo torch || echo megatron)
		sgflag=$([ "$sg" = 1 ] && echo on || echo off)
		tpwait=$([ "$tpb" = 1 ] && echo blocking || echo async)
		rcn=$(case $rc in none) echo 0 ;; full) echo 1 ;; selective) echo 2 ;; op) echo 3 ;; esac)
		fsdpn=$(case $fsdp in none) echo 0 ;; resharded) echo 1 ;; kept) echo 2 ;; esac)
		# the run in the planner's terms, a copy of the variant t e c
		# devices: a batch split's e ranks are e of Megatron's d, its
		# micro-batch e of theirs; a fold's are e of Megatron's c
		pc=$c pd=$d pb=$b epv= epb=0 fold=1
		if [ "$E" -gt 1 ] && [ "$split" = batch ] && [ "$c" -gt 1 ]; then
			# the c context ranks and E/c data-parallel ones
			fold=$c pc=1 pd=$((d / (E / c))) pb=$((b * (E / c)))
			epv=",e=$E,ep=batch,fold=$c" epb=1
		elif [ "$E" -gt 1 ] && [ "$split" = batch ]; then
			pd=$((d / E)) pb=$((b * E)) epv=",e=$E,ep=batch" epb=1
		elif [ "$E" -gt 1 ]; then
			pc=$((c / E)) epv=",e=$E,ep=fold"
		fi
		# whole experts, FP8 and the dispatch as the run had them
		etv=$([ "$et" != "$t" ] && echo ",et=$et" || :)
		fp8v=$([ "$fp8" != none ] && echo ",fp8=$fp8" || :)
		# and the fused attention's kernel (graph-normalize -V attn=)
		[ "$attn" = fused ] || fp8v="$fp8v,attn=$attn"
		hflag=$([ "$disp" = deepep ] && echo deepep || echo alltoall)
		# the variant the run used, and Megatron's even split
		"$BIN/graph-normalize" -c "$mx" -a "$CONFIGS/accelerators/$acc.xml" \
		    -V "t=$t,b=$b,sp=$sp,c=$pc$epv$etv$fp8v" -o "$tmp/$run.csv"
		awk -v L="$L" -v p="$p" -v d="$pd" -v t="$t" -v b="$pb" -v v="$v" \
		    -v rc="$rcn" -v ovl="$ovl" -v ovlp="$ovlp" -v sp="$sp" -v dopt="$dopt" \
		    -v c="$pc" -v e="$E" -v epb="$epb" -v et="$et" -v fp8="$fp8" \
		    -v disp="$disp" -v f8g="$f8g" -v fold="$fold" \
		    -v fsdp="$fsdpn" -v fshard="$fshard" -v sm="$sm" -v attn="$attn" \
		    -v epo="$epo" \
		    -v ends="$ends" -v tpo="$tpo" -v rl="$rl" -v F="$F" -v Z="$Z" 'BEGIN {
			printf "<plan micro_batch_samples=\"%d\">\n", b
			printf "<parallelism d=\"%d\" t=\"%d\" sp=\"%d\" e=\"%d\" c=\"%d\" recompute=\"%d\" virtual_stages=\"%d\" distributed_optimizer=\"%d\" overlap_grad_reduce=\"%d\" overlap_param_gather=\"%d\" ends_in_pipeline_split=\"%d\" tp_comm_overlap=\"%d\"%s%s%s%s%s%s%s%s%s%s%s%s/>\n", d, t, sp, e, c, rc, v, dopt, ovl, ovlp, ends, tpo, (rl > 0 ? " recompute_layers=\"" rl "\"" : ""), (epb ? " ep_batch=\"1\"" : ""), (fold > 1 ? " ep_fold=\"" fold "\"" : ""), (et != t ? " expert_t=\"" et "\"" : ""), (fp8 != "none" ? " fp8_recipe=\"" fp8 "\"" : ""), (disp == "deepep" ? " deepep=\"1\"" : ""), (f8g == 1 ? " fp8_param_gather=\"1\"" : ""), (fsdp > 0 ? " fsdp=\"" fsdp "\"" : ""), (fshard > 0 ? " fsdp_shard=\"" fshard "\"" : ""), (sm == 1 ? " stage_major=\"1\"" : ""), (attn != "fused" ? " attention_kernel=\"" attn "\"" : ""), (epo == 1 ? " ep_overlap=\"1\"" : "")
			# the rows of the graph: the embedding -1, the layers, the head L
			if (F + Z > 0) {
				each = p - (F > 0) - (Z > 0) > 0 ? (L - F - Z) / (p - (F > 0) - (Z > 0)) : 0
				at = 0
				for (i = 0; i < p; i++) {
					n = i == 0 && F ? F : i == p - 1 && Z ? Z : each
					printf "<stage first_layer=\"%d\" last_layer=\"%d\" zero_stage=\"0\" zero_degree=\"1\"/>\n", i ? at : -1, i == p - 1 ? L : at + n - 1
					at += n
				}
			} else if (ends) {
				k = (L + 2) / p
				for (i = 0; i < p; i++)
					printf "<stage first_layer=\"%d\" last_layer=\"%d\" zero_stage=\"0\" zero_degree=\"1\"/>\n", i * k - 1, (i + 1) * k - 2
			} else {
				k = L / p
				for (i = 0; i < p; i++)
					printf "<stage first_layer=\"%d\" last_layer=\"%d\" zero_stage=\"0\" zero_degree=\"1\"/>\n", i ? i * k : -1, i == p - 1 ? L : (i + 1) * k - 1
			}
			print "</plan>" }' > "$tmp/$run.plan.xml"
		# a run that was made: its memory against the whole device, not
		# dpsolve's cap for a plan to launch (which the own plans below
		# are searched under)
		whole=$(field "$CONFIGS/accelerators/$acc.xml" memory_GiB |
		    awk '{ printf "%.0f", $1 * 1073741824 }')
		solve -E "$tmp/$run.plan.xml" -M "$whole" -o "$tmp/$run.out.xml" \
		    "$tmp/$run.csv" 2> "$tmp/$run.err" ||
		    { cat "$tmp/$run.err" >&2; exit 1; }
		# the same plan with every GPU the expected slowest of the run's
		# (its step read below, as the plan's)
		strag=
		if [ -n "$SPEEDS" ]; then
			strag=$tmp/$run.strag.xml
			solve -E "$tmp/$run.plan.xml" -M "$whole" -J "$SPEEDS" \
			    -o "$strag" "$tmp/$run.csv" 2> "$tmp/$run.err" ||
			    { cat "$tmp/$run.err" >&2; exit 1; }
		fi
		# the same plan's step simulated pass by pass (pipesim), its
		# Gantt chart drawn where asked; Megatron-LM of 2021-22 (the
		# scatter/gather's) held its stages for their transfers
		# interleaved too, before it overlapped them
		simulated=
		priced pipesim $([ "$sg" = 1 ] && echo "-x hold") \
		    -M "$whole" -p "$tmp/$run.plan.xml" -o "$tmp/$run.sim.csv" \
		    -t "$tmp/$run.timeline.csv" "$tmp/$run.csv" 2> "$tmp/$run.err" ||
		    { cat "$tmp/$run.err" >&2; exit 1; }
		simulated=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		    NR == 2 { print $c["step_s"] }' "$tmp/$run.sim.csv")
		if [ -n "${VALIDATE_GANTT:-}" ]; then
			mkdir -p "$VALIDATE_GANTT" &&
			sh "$(dirname "$0")/plot.sh" gantt "$tmp/$run.timeline.csv" \
			    "$VALIDATE_GANTT" "gantt-$run" || exit 1
		fi
		# the plan as priced, stage by stage, kept where asked
		if [ -n "${VALIDATE_PLANS:-}" ]; then
			mkdir -p "$VALIDATE_PLANS" && cp "$tmp/$run.out.xml" "$VALIDATE_PLANS/$run.xml"
		fi
		# dpsolve's own plan on the same cluster and batch
		# (context parallelism only if the run used it, up to its degree)
		"$BIN/graph-normalize" -D "$tmp/$run.d" -V "c=$([ "$fold" -gt 1 ] && echo "$c" || echo "$pc")$fp8v" -c "$mx" \
		    -a "$CONFIGS/accelerators/$acc.xml" -o "$tmp/$run.all.csv"
		# the run's own micro-batch too, so that the search space holds
		# the published plan
		case $b in
		1|2|4|8) ;;
		*) "$BIN/graph-normalize" -D "$tmp/$run.d" -V "c=$([ "$fold" -gt 1 ] && echo "$c" || echo "$pc"),b=$b$fp8v" -c "$mx" \
			-a "$CONFIGS/accelerators/$acc.xml" -o "$tmp/$run.pub.csv"
		   tail -n +2 "$tmp/$run.pub.csv" >> "$tmp/$run.all.csv" ;;
		esac
		# the features the run's Megatron-LM had: sequence parallelism
		# and the distributed optimizer if it used them, selective
		# recomputation if it used it (none and full it always had)
		# (and no micro-batch larger than the batch)
		awk -F, -v sp="$sp" -v B="$B" 'NR == 1 || ($5 <= sp && $6 <= B)' "$tmp/$run.all.csv" \
		    > "$tmp/$run.d/index.csv"
		overlap=$([ "$ovl" = 1 ] && echo on || echo off)
		dsearch=$([ "$dopt" = 1 ] && echo both || echo off)
		rsearch=$([ "$rc" = selective ] && echo all || echo both)
		tpsearch=$([ "$tpo" = 1 ] && echo on || echo off)
		qsearch=$([ "$f8g" = 1 ] && echo both || echo off)
		ksearch=$([ "$epo" = 1 ] && echo both || echo off)
		# a torchtitan run: what torchtitan runs (FSDP2 and HSDP, its
		# recomputation kinds: none, full and per operator)
		# (Megatron-LM runs either placement: its default order, or
		# --use-tp-pp-dp-mapping)
		set -- -L both
		if [ "$fsdp" != none ]; then
			set -- -X torchtitan -A "$mx"
			rsearch=all
		fi
		# (torchtitan of 2025-06 ran float8 tensor parallelism, which
		# v0.2.2, the -X torchtitan of dpsolve, no longer turns on: its
		# FSDP2 plans unfiltered, so that the published one is searched)
		if [ "$fp8" = float8-tp ] && [ "$t" -gt 1 ]; then
			set -- -X none -I only -A "$mx"
		fi
		solve "$@" -D "$dsearch" -r "$rsearch" -V "$overlap" -U "$tpsearch" \
		    -H "$hflag" -Q "$qsearch" -K "$ksearch" -o "$tmp/$run.own.xml" \
		    "$tmp/$run.d/index.csv"
		# and with the run's own recomputation kind: the layout alone
		solve "$@" -D "$dsearch" -r "$rc" -V "$overlap" -U "$tpsearch" \
		    -H "$hflag" -Q "$qsearch" -K "$ksearch" -o "$tmp/$run.same.xml" \
		    "$tmp/$run.d/index.csv"
		awk -v run="$run" -v B="$B" -v s="$s" -v L="$L" -v h="$h" -v V="$V" \
		    -v A="$A" -v G="$G" -v f="$f" -v k="$k" -v gated="$gated" \
		    -v rl="$rl" -v p="$p" -v nv="$v" \
		    -v tf="$measure" -v n="$devices" -v rc="$rc" \
		    -v plan="t$t p$p$([ "$c" -gt 1 ] && echo " c$c") d$d$([ "$E" -gt 1 ] && echo " e$((E * t / et))$([ "$split" = fold ] && echo ' fold')") b$b v$v$([ "$sp" = 1 ] && echo ' sp')$([ "$dopt" = 1 ] && echo ' distopt')$([ "$tpo" = 1 ] && echo ' tpo')$([ "$ends" = 1 ] && echo ' ends')$([ "$rl" -gt 0 ] && echo " block$rl")$([ "$F$Z" != 00 ] && echo " first$F last$Z")$([ "$et" != "$t" ] && echo " etp$et")$([ "$fp8" != none ] && echo " fp8-$fp8")$([ "$f8g" = 1 ] && echo " fp8-gather")$([ "$disp" = deepep ] && echo " deepep")$([ "$fsdp" != none ] && echo " fsdp-$fsdp")$([ "$fshard" -gt 0 ] && echo " hsdp$fshard")$([ "$rc" = op ] && echo " op-sac")$([ "$sm" = 0 ] && echo " replica-major")$([ "$attn" = fa2 ] && echo " fa2")$([ "$epo" = 1 ] && echo " ep-overlap")" \
		    -v pub="$tmp/$run.out.xml" -v own="$tmp/$run.own.xml" \
		    -v simulated="$simulated" -v strag="$strag" \
		    -v same="$tmp/$run.same.xml" '
		function attr(line, name,   m) {
			if (match(line, " " name "=\"[^\"]*\"") == 0) return ""
			m = substr(line, RSTART + length(name) + 3, RLENGTH - length(name) - 4)
			return m
		}
		# a priced plan: its label, step, fit and peak memory, and where
		# its step goes: m micro-batches of the bottleneck stage (its
		# compute, its collectives and ZeRO gathers, its point-to-point
		# traffic), the fill and drain ((S - 1)/v slots of it) and the
		# exposed gradient reduction with the optimizer step
		function scan(file, what,   line, peak, mem, S, i, comp, coll, p2p, v, mb, ee, eb, ef, mc, md) {
			peak = 0; S = 0
			while ((getline line < file) > 0) {
				if (line ~ /<parallelism /) {
					# in Megatron'"'"'s terms, as the run'"'"'s own plan:
					# a batch split'"'"'s expert ranks among d, with
					# b / e samples each; a fold'"'"'s among c; a
					# split with a fold f, f among c and e / f
					# among d
					ee = attr(line, "e") + 0; eb = attr(line, "ep_batch") + 0
					ef = attr(line, "ep_fold") + 0; if (ef < 1) ef = 1
					mc = attr(line, "c") * (ee > 1 && !eb ? ee : ef)
					md = attr(line, "d") * (ee > 1 && eb ? ee / ef : 1)
					what["plan"] = "t" attr(line, "t") " p" attr(line, "p") (mc > 1 ? " c" mc : "") " d" md (ee > 1 ? " e" ee * attr(line, "t") / (attr(line, "expert_t") != "" ? attr(line, "expert_t") : attr(line, "t")) (eb ? "" : " fold") : "") " b" (eb ? bsz * ef / ee : bsz) " v" attr(line, "virtual_stages") " rc" attr(line, "recompute") (attr(line, "sp") == 1 ? " sp" : "") (attr(line, "distributed_optimizer") == 1 ? " distopt" : "") (attr(line, "tp_comm_overlap") == 1 ? " tpo" : "") (attr(line, "ends_in_pipeline_split") == 1 ? " ends" : "") (attr(line, "expert_t") != "" ? " etp" attr(line, "expert_t") : "") (attr(line, "fp8_recipe") != "" ? " fp8-" attr(line, "fp8_recipe") : "") (attr(line, "fp8_param_gather") == 1 ? " fp8-gather" : "") (attr(line, "deepep") == 1 ? " deepep" : "") (attr(line, "fsdp") == 1 ? " fsdp-resharded" : attr(line, "fsdp") == 2 ? " fsdp-kept" : "") (attr(line, "fsdp_shard") > 0 ? " hsdp" attr(line, "fsdp_shard") : "") (attr(line, "stage_major") == 1 ? " stage-major" : "") (attr(line, "attention_kernel") != "" ? " " attr(line, "attention_kernel") : "") (attr(line, "ep_overlap") == 1 ? " ep-overlap" : "")
					v = attr(line, "virtual_stages") + 0
				}
				if (line ~ /<plan /) bsz = attr(line, "micro_batch_samples")
				if (line ~ /<stage /) {
					mem = attr(line, "memory_bytes") + 0; if (mem > peak) peak = mem
					i = attr(line, "index") + 0; S++
					comp[i] = attr(line, "compute_s")
					coll[i] = attr(line, "collective_s") + attr(line, "zero_s")
					p2p[i] = attr(line, "p2p_in_s") + attr(line, "p2p_out_s")
				}
				if (line ~ /<result /) {
					what["step"] = attr(line, "step_s"); what["fits"] = attr(line, "fits")
					i = attr(line, "bottleneck_stage") + 0; mb = attr(line, "microbatches")
					what["compute"] = mb * comp[i]; what["coll"] = mb * coll[i]; what["p2p"] = mb * p2p[i]
					what["bubble"] = (S - 1) / (v > 0 ? v : 1) * attr(line, "bottleneck_s")
					what["sync"] = attr(line, "sync_s")
				}
			}
			close(file)
			what["peak"] = peak
		}
		BEGIN {
			split(tf, meas, "=")
			if (meas[1] == "step_s")
				measured = meas[2]
			else if (meas[1] == "tokens_per_s_per_gpu")
				measured = B * s / (meas[2] * n)
			else {
				# the count of Megatron-LM (num_floating_point_operations,
				# training.py, core_r0.8.0): the forward and backward
				# passes of attention (q and output projections, G/A
				# of them for the keys and values, s/h for the scores
				# and context), the MLP (f/h, k experts a token, 3/2
				# gated) and the logits; under full recomputation the
				# forward pass of the layers once more (Narayanan et al., SC21,
				# Eq. 3).  For GPT models it is the count of SC21:
				#   72 B s l h^2 (1 + s/6h + V/12lh), 96 ... V/16lh
				# (block recomputation: the recomputed share of
				# the layers, N of each of the p v chunks)
				layer = (1 + G / A + s / h) + f / h * k * gated
				rfac = rc != "full" || meas[3] == "model" ? 1 : rl > 0 ? 1 + (rl * p * nv < L ? rl * p * nv : L) / (3 * L) : 4 / 3
				# selective: the attention core'"'"'s forward once more
				# (a third of its s/h), in the hardware count
				core = rc == "selective" && meas[3] == "hardware" ? s / (3 * h) : 0
				F = 12 * B * s * L * h * h * (rfac * layer + core + V / (2 * L * h))
				measured = F / (meas[2] * 1e12 * n)
			}
			scan(pub, a); scan(own, o); scan(same, r)
			straggler = ""
			if (strag != "") { scan(strag, g); straggler = g["step"] }
			err = 100 * (a["step"] - measured) / measured
			printf "measured,%s,%.6g,%.6g,step_s,%.2f,%s,%s,%.6g,%s,%.4f,%.6g,%s,%.4f,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%s,fp16 loss scaling and the timing of DDP buckets not modelled (their memory is)\n",
			    run, measured, a["step"], err, plan, a["fits"], a["peak"], o["plan"], a["step"] / o["step"], o["peak"], r["plan"], a["step"] / r["step"],
			    a["compute"], a["coll"], a["p2p"], a["bubble"], a["sync"], simulated == "" ? "" : sprintf("%.6g", simulated), straggler == "" ? "" : sprintf("%.6g", straggler)
		}' >> "$tmp/out.csv"
		tail -n 1 "$tmp/out.csv" | awk -F, '{ printf "validate %s: measured %.3g s, predicted %.3g s (%+.1f%%; %s%s), own plan %.2fx (%.2fx with its recomputation)\n", $2, $3, $4, $6, $20 == "" ? "not simulated" : sprintf("simulated %.3g s, %+.1f%%", $20, 100 * ($20 - $3) / $3), $21 == "" ? "" : sprintf("; slowest GPU %.3g s, %+.1f%%", $21, 100 * ($21 - $3) / $3), $11, $14 }' >&2
	done < "$tmp/rows"
done

# The ZeRO paper's 7.5B model (Rajbhandari et al. 2020, Section 1 and
# Figure 1): 64-way data parallelism, mixed-precision Adam; memmodel with
# one row of 7.5B parameters (no activations) at each ZeRO stage.
printf 'layer_id,parameter_bytes,activation_bytes,input_bytes\n0,15e9,0,0\n' > "$tmp/zero.csv"
{
	echo "stage,first_layer,last_layer,devices,zero_stage,zero_degree,position_from_end,microbatches"
	for zs in 0 1 2 3; do
		echo "zero$zs,0,0,64,$zs,$([ $zs = 0 ] && echo 1 || echo 64),1,1"
	done
} > "$tmp/zero-stages.csv"
"$BIN/memmodel" -M 1e12 -s "$tmp/zero-stages.csv" -o "$tmp/zero.out" "$tmp/zero.csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ split("120 31.4 16.6 1.9", pub, " "); k = NR - 1
	  got = $c["total_bytes"] / 1e9
	  printf "memory,zero-7.5b-%s,%.6g,%.6g,GB,%.2f,64-way data parallel ZeRO-%d,,,,,,,,,,,,,,,\n",
	      $c["stage"], pub[k], got, 100 * (got - pub[k]) / pub[k], k - 1 }' \
    "$tmp/zero.out" >> "$tmp/out.csv"

# Korthikanti et al. 2022, Table 2: the activations a layer keeps with
# tensor and sequence parallelism (t = 8, b = 1), 34sbh/t with selective
# recomputation and 2sbh/t (its input) with full, against the analytic
# graph's, for the GPT shapes of its Table 3 that have configs here.
for model in gpt3-175b sc21-gpt-529.6b sc21-gpt-1008b; do
	mx=$CONFIGS/models/$model.xml
	h=$(field "$mx" hidden) s=$(field "$mx" seq_len)
	"$BIN/graph-normalize" -c "$mx" -a "$CONFIGS/accelerators/a100-80gb.xml" \
	    -V t=8,sp=1,b=1 -o "$tmp/k-$model.csv"
	awk -F, -v m="$model" -v h="$h" -v s="$s" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["kind"] == "transformer" {
		sel = 34 * s * h / 8; full = 2 * s * h / 8
		printf "memory,korthikanti-%s-selective,%.6g,%.6g,bytes,%.2f,t8 sp b1 selective,,,,,,,,,,,,,,,\n", m, sel, $c["selective_bytes"], 100 * ($c["selective_bytes"] - sel) / sel
		printf "memory,korthikanti-%s-full,%.6g,%.6g,bytes,%.2f,t8 sp b1 full,,,,,,,,,,,,,,,\n", m, full, $c["checkpoint_bytes"], 100 * ($c["checkpoint_bytes"] - full) / full
		exit }' "$tmp/k-$model.csv" >> "$tmp/out.csv"
done

cp "$tmp/out.csv" "$OUT.tmp.$$"
out_commit validate "$OUT"
summary "$OUT"
