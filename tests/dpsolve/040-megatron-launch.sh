# dpsolve -f megatron: every flag it prints is one of Megatron-LM's own
# (tests/megatron/flags-core_v0.15.0.txt, copied from its arguments.py at a
# named commit), for a dense decoder with interleaving, a GQA decoder, a
# mixture of experts (context parallel: its exchange as priced),
# DeepSeek-V3, an encoder and a decoder priced with FlashAttention-2;
# the model's and the plan's numbers
# are the ones written; a decoder's uneven split is launched with its
# layout; plans Megatron cannot run (an encoder's uneven split, a global
# batch that is no multiple of b d) are printed commented out with the
# reason.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
list=tests/megatron/flags-core_v0.15.0.txt
say() { echo "$*"; fail=1; }

launch() {	# name model accelerator network [dpsolve options...]
	name=$1 model=$2 accel=$3 net=$4
	shift 4
	"$BIN/graph-normalize" -D "$tmp/$name" -a "configs/accelerators/$accel.xml" \
	    ${VARIANT:+-V "$VARIANT"} -c "configs/models/$model.xml" \
	    -o "$tmp/$name/index.csv" || return 1
	"$BIN/dpsolve" -A "configs/models/$model.xml" -a "configs/accelerators/$accel.xml" \
	    -n "configs/networks/$net.xml" -f megatron -o "$tmp/$name.sh" \
	    -c "$tmp/$name.csv" "$@" "$tmp/$name/index.csv" || return 1
	for f in $(grep -o -- '--[a-z0-9-]*' "$tmp/$name.sh" | sort -u); do
		case $f in --nproc-per-node|--nnodes) continue ;; esac
		grep -qx -- "$f" "$list" || say "$name: $f is not a Megatron-LM flag"
	done
}

has() {	# name line
	grep -qxF -- "    $2 \\" "$tmp/$1.sh" || grep -qxF -- "    $2" "$tmp/$1.sh" ||
	    say "$1: no '$2' in: $(cat "$tmp/$1.sh")"
}

launch gpt3 gpt3-175b tpuv4 fattree-tpuv4-1024 || say "gpt3: dpsolve failed"
has gpt3 "--num-layers 96"
has gpt3 "--hidden-size 12288"
has gpt3 "--ffn-hidden-size 49152"
has gpt3 "--num-attention-heads 96"
has gpt3 "--seq-length 2048"
has gpt3 "--global-batch-size 4096"
# the fused attention priced: Transformer Engine's own choice (auto) on
# a device with no measured fused kernel (the TPU here), its cuDNN
# kernels (fused) on the H100 (llama3), FlashAttention-2 (flash) under
# -V attn=fa2 (fa2, below)
has gpt3 "--attention-backend auto"
has gpt3 "--bf16"
grep -q '^torchrun --nproc-per-node [0-9]* --nnodes [0-9]* pretrain_gpt.py' "$tmp/gpt3.sh" ||
    say "gpt3: no torchrun line"
grep -q 'cannot run' "$tmp/gpt3.sh" && say "gpt3: the searched plan should run"
# the plan's own numbers: p, t and v from the search
p=$(sed -n 's/^# .*: p=\([0-9]*\) .*/\1/p' "$tmp/gpt3.sh")
has gpt3 "--pipeline-model-parallel-size $p"
v=$(sed -n 's/^# .* v=\([0-9]*\),.*/\1/p' "$tmp/gpt3.sh")
if [ "$v" -gt 1 ]; then
	has gpt3 "--num-layers-per-virtual-pipeline-stage $((96 / p / v))"
fi

launch llama3 llama3-70b h100-80gb spineleaf-h100-1024 || say "llama3: dpsolve failed"
has llama3 "--group-query-attention"
has llama3 "--num-query-groups 8"
has llama3 "--attention-backend fused"
has llama3 "--normalization RMSNorm"
has llama3 "--swiglu"
has llama3 "--position-embedding-type rope"
has llama3 "--untie-embeddings-and-output-weights"
has llama3 "--disable-bias-linear"
has llama3 "--attention-dropout 0"
# what the price assumed and Megatron would otherwise choose itself: the
# rotary base, the vocabulary (NullTokenizer adds an end-of-document
# token)
has llama3 "--rotary-base 500000"
has llama3 "--tokenizer-type NullTokenizer"
has llama3 "--vocab-size 128255"

launch mixtral mixtral-8x7b h100-80gb spineleaf-h100-128 -g bf16 ||
    say "mixtral: dpsolve failed"
has mixtral "--num-experts 8"
has mixtral "--moe-router-topk 2"
has mixtral "--grad-reduce-in-bf16"
# the exchange priced (the all-to-all, not Megatron's default gather),
# and the local experts as one grouped product where a rank holds several
has mixtral "--moe-token-dispatcher-type alltoall"
has mixtral "--rotary-base 1000000"
e=$(sed -n 's/^# .* e=\([0-9]*\) .*/\1/p' "$tmp/mixtral.sh")
if [ "$((8 / e))" -gt 1 ]; then
	has mixtral "--moe-grouped-gemm"
else
	grep -q -- '--moe-grouped-gemm' "$tmp/mixtral.sh" &&
	    say "mixtral: one expert a rank, grouped"
fi
# DeepSeek-V3 on 1,024 H100s: latent attention, fine-grained and shared
# experts, leading dense layers, group-limited routing and the prediction
# module, each flag's value read from the model config here
VARIANT=b=1 launch dsv3 deepseek-v3 h100-80gb dgx-h100-6144 -N 1024 -B 4096 ||
    say "dsv3: dpsolve failed"
unset VARIANT	# (sh may keep an assignment made before a function)
x() { sed -n "s|.*<$1>\(.*\)</$1>.*|\1|p" configs/models/deepseek-v3.xml; }
has dsv3 "--multi-latent-attention"
has dsv3 "--q-lora-rank $(x q_lora_rank)"
has dsv3 "--kv-lora-rank $(x kv_lora_rank)"
has dsv3 "--qk-head-dim $(x head_dim)"
has dsv3 "--qk-pos-emb-head-dim $(x qk_rope_head_dim)"
has dsv3 "--v-head-dim $(x v_head_dim)"
has dsv3 "--moe-ffn-hidden-size $(x expert_ffn_hidden)"
has dsv3 "--moe-shared-expert-intermediate-size $(x shared_expert_ffn_hidden)"
has dsv3 "--moe-layer-freq '([0]*$(x dense_layers)+[1]*$(($(x layers) - $(x dense_layers))))'"
has dsv3 "--moe-router-num-groups $(x router_groups)"
has dsv3 "--moe-router-group-topk $(x router_group_topk)"
has dsv3 "--mtp-num-layers $(x mtp_depth)"
grep -q 'cannot run' "$tmp/dsv3.sh" && say "dsv3: the searched plan should run"
# a global batch (128) smaller than some variants' micro-batches (256
# experts' ranks splitting 256 samples): those are left out, the rest
# searched
awk -F, 'NR > 1 && $6 > 128 { n++ } END { exit !n }' "$tmp/dsv3/index.csv" ||
    say "dsv3: no variant with a micro-batch above 128"
"$BIN/dpsolve" -a configs/accelerators/h100-80gb.xml -n configs/networks/dgx-h100-6144.xml \
    -N 1024 -B 128 -o "$tmp/dsv3-128.xml" "$tmp/dsv3/index.csv" ||
    say "dsv3: a batch of 128 not searched"
# a layout puts the prediction module with the loss, last
grep -q -- "--pipeline-model-parallel-layout" "$tmp/dsv3.sh" &&
    ! grep -q -- "m,L' " "$tmp/dsv3.sh" && say "dsv3: a layout without m,L"

# context parallelism launched as priced: keys and values all-gathered
# before the attention, not Megatron's default ring (which overlaps)
for f in "$tmp"/*.sh; do
	grep -q -- '--context-parallel-size' "$f" || continue
	grep -q -- '--cp-comm-type all_gather' "$f" ||
	    say "$(basename "$f"): context parallel without --cp-comm-type all_gather"
done

VARIANT=b=1,attn=fa2 launch fa2 llama3-8b h100-80gb spineleaf-h100-128 -N 16 -B 64 ||
    say "fa2: dpsolve failed"
unset VARIANT
has fa2 "--attention-backend flash"
# one kernel a search: the launch names one
"$BIN/graph-normalize" -c configs/models/llama3-8b.xml -a configs/accelerators/h100-80gb.xml \
    -V b=1,t=2,sp=1 -o "$tmp/fused-t2.csv" || say "fused-t2: graph-normalize failed"
if "$BIN/dpsolve" -a configs/accelerators/h100-80gb.xml -n configs/networks/spineleaf-h100-128.xml \
    -N 16 -B 64 -o "$tmp/mixed.xml" "$tmp/fa2/b1-t1-sp0-e1-c1.csv" "$tmp/fused-t2.csv" 2> "$tmp/err"; then
	say "fa2 and fused graphs searched together"
fi
grep -q "column 'attention_kernel': priced for 'fused', but .* for 'fa2' (one kernel a search)" "$tmp/err" ||
    say "mixed kernels: $(cat "$tmp/err")"
launch bert bertlarge h100-80gb spineleaf-h100-128 || say "bert: dpsolve failed"
grep -q 'pretrain_bert.py' "$tmp/bert.sh" || say "bert: not pretrain_bert.py"
has bert "--attention-backend unfused"

# 4097 = 17 x 241 samples: nestplan's whole space (-X none) picks a d
# they do not split over, and the launch is commented out with the
# reason; Megatron's space (the default) finds one they do, d 17
"$BIN/graph-normalize" -D "$tmp/l2" -V b=1 -a configs/accelerators/h100-80gb.xml \
    -c configs/models/llama2-7b.xml -o "$tmp/l2/index.csv" || say "l2: failed"
"$BIN/dpsolve" -A configs/models/llama2-7b.xml -a configs/accelerators/h100-80gb.xml \
    -n configs/networks/spineleaf-h100-128.xml -B 4097 -f megatron \
    -o "$tmp/odd-megatron.sh" "$tmp/l2/index.csv" || say "odd batch: dpsolve failed"
grep -q 'cannot run' "$tmp/odd-megatron.sh" &&
    say "odd batch: Megatron's space found a plan it cannot run: $(cat "$tmp/odd-megatron.sh")"
d=$(sed -n 's/^# .*: p=[0-9]* d=\([0-9]*\) .*/\1/p' "$tmp/odd-megatron.sh")
[ -n "$d" ] && [ $((4097 % d)) = 0 ] || say "odd batch: d $d does not divide 4097"
"$BIN/dpsolve" -X none -A configs/models/llama2-7b.xml -a configs/accelerators/h100-80gb.xml \
    -n configs/networks/spineleaf-h100-128.xml -B 4097 -f megatron \
    -o "$tmp/odd.sh" "$tmp/l2/index.csv" || say "odd batch: dpsolve -X none failed"
grep -q '^# Megatron-LM cannot run this plan: a global batch of 4097' "$tmp/odd.sh" ||
    say "odd batch: no reason given: $(cat "$tmp/odd.sh")"
grep -q '^torchrun' "$tmp/odd.sh" && say "odd batch: runnable line printed"
grep -q '^# torchrun' "$tmp/odd.sh" || say "odd batch: no commented launch"

# an uneven split with three different stage lengths (-E on a plan the
# search wrote, its middle stage moved by one layer): a decoder's launch
# gives every stage's layers (--pipeline-model-parallel-layout, the
# embedding E before the first, the loss L after the last); an encoder's
# launch has no such flag, and is commented out with the reason
uneven() {	# name model index
	"$BIN/dpsolve" -a configs/accelerators/h100-80gb.xml -n configs/networks/spineleaf-h100-128.xml \
	    -B 64 -r none -v 1 -D off -N 16 -M "$4" -o "$tmp/$1-plan.xml" "$3" ||
	    { say "$1: dpsolve failed"; return 1; }
	stages=$(grep -c '<stage ' "$tmp/$1-plan.xml")
	[ "$stages" -ge 4 ] ||
	    { say "$1: wanted 4 or more stages at $4 bytes, got $stages"; return 1; }
	awk '/<stage index="1"/ { sub(/last_layer="[0-9]*"/, "last_layer=\"" L "\"") } 1' \
	    L="$(sed -n 's/.*<stage index="1" [^>]*last_layer="\([0-9]*\)".*/\1/p' "$tmp/$1-plan.xml" | awk '{ print $1 - 1 }')" \
	    "$tmp/$1-plan.xml" |
	awk '/<stage index="2"/ { sub(/first_layer="[0-9]*"/, "first_layer=\"" F "\"") } 1' \
	    F="$(sed -n 's/.*<stage index="2" [^>]*first_layer="\([0-9]*\)".*/\1/p' "$tmp/$1-plan.xml" | awk '{ print $1 - 1 }')" |
	    sed 's/ layers="[0-9]*"//' > "$tmp/$1-uneven.xml"	# as priced: now stale
	"$BIN/dpsolve" -A "configs/models/$2.xml" -a configs/accelerators/h100-80gb.xml \
	    -n configs/networks/spineleaf-h100-128.xml -B 64 -N 16 -M "$4" \
	    -E "$tmp/$1-uneven.xml" -f megatron -o "$tmp/$1-uneven.sh" "$3" \
	    2>/dev/null || { say "$1: dpsolve -E failed"; return 1; }
}
if uneven l2 llama2-7b "$tmp/l2/index.csv" 2e10; then
	# the layout the stages say: transformer layers 0..31 (the embedding
	# is -1, the head 32)
	want=$(awk -F'"' '/<stage / {
		for (i = 1; i < NF; i += 2) { if ($i ~ /first_layer=$/) f = $(i + 1); if ($i ~ /last_layer=$/) l = $(i + 1) }
		lo = f < 0 ? 0 : f; hi = l > 31 ? 31 : l; n = hi - lo + 1
		s = s (s == "" ? "" : "|") (f < 0 ? "E" : "") (n == 1 ? "t" : n > 1 ? "t*" n : "") (l > 31 ? ",L" : "") }
		END { print s }' "$tmp/l2-uneven.xml")
	has l2-uneven "--pipeline-model-parallel-layout '$want'"
	grep -q 'cannot run' "$tmp/l2-uneven.sh" &&
	    say "l2 uneven: a decoder's uneven split should run: $(cat "$tmp/l2-uneven.sh")"
	grep -q -- '--decoder-first-pipeline-num-layers\|--num-layers-per-virtual' "$tmp/l2-uneven.sh" &&
	    say "l2 uneven: the layout with another split flag"
fi
"$BIN/graph-normalize" -D "$tmp/bert" -V b=1 -a configs/accelerators/h100-80gb.xml \
    -c configs/models/bertlarge.xml -o "$tmp/bert/index.csv" || say "bert: failed"
if uneven bert bertlarge "$tmp/bert/index.csv" 1.5e9; then
	grep -q 'cannot run this plan: an uneven split' "$tmp/bert-uneven.sh" ||
	    say "bert uneven: no reason given: $(cat "$tmp/bert-uneven.sh")"
	grep -q -- '^[# ]*--pipeline-model-parallel-layout' "$tmp/bert-uneven.sh" &&
	    say "bert uneven: a layout for an encoder"
fi

# a launch starts as many ranks as the plan has devices (torchrun's
# nproc x nnodes), a host's GPUs a node: Qwen3-30B-A3B on 100 GPUs of GB200
# NVL72 racks (72 GPUs an NVLink domain, 4 a host), and Llama 2 7B on 12
# H100s (8 a node: 3 nodes of 4)
VARIANT=b=1 launch gb qwen3-30b-a3b gb200 gb200-nvl72-4608 -N 100 -B 1000 ||
    say "gb: dpsolve failed"
unset VARIANT
"$BIN/dpsolve" -A configs/models/llama2-7b.xml -a configs/accelerators/h100-80gb.xml \
    -n configs/networks/spineleaf-h100-128.xml -N 12 -B 48 -f megatron \
    -o "$tmp/twelve.sh" "$tmp/l2/index.csv" || say "twelve: dpsolve failed"
for f in "$tmp"/*.sh; do
	n=$(sed -n 's/^# .* \([0-9]*\) devices, .*/\1/p' "$f")
	set -- $(sed -n 's/^[# ]*torchrun --nproc-per-node \([0-9]*\) --nnodes \([0-9]*\) .*/\1 \2/p' "$f")
	[ -n "$n" ] && [ $# = 2 ] && [ $(($1 * $2)) = "$n" ] ||
	    say "$(basename "$f"): torchrun starts ${1:-?} x ${2:-?} ranks for $n devices"
done
grep -q -- '--nproc-per-node 4 ' "$tmp/gb.sh" || say "gb: not 4 a GB200 host"

# the same plan searched with --tp-comm-overlap (its variant has sequence
# parallelism): the launch says so
"$BIN/dpsolve" -A configs/models/llama2-7b.xml -a configs/accelerators/h100-80gb.xml \
    -n configs/networks/spineleaf-h100-128.xml -B 64 -r none -v 1 -D off -N 16 \
    -M 2e10 -U on -f megatron -o "$tmp/tpo.sh" "$tmp/l2/index.csv" ||
    say "tpo: dpsolve failed"
if grep -q -- '--sequence-parallel' "$tmp/tpo.sh"; then
	has tpo "--tp-comm-overlap"
else
	say "tpo: the plan has no sequence parallelism: $(cat "$tmp/tpo.sh")"
fi
exit $fail
