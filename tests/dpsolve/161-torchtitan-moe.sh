# torchtitan's mixtures (issue 36, items 1-2): Qwen3-30B-A3B on 64 H100,
# -X torchtitan.  The job names torchtitan's qwen3 flavor, every key is one
# of v0.2.2's, its degrees make the 64 GPUs as ParallelDims multiplies
# them (dp_replicate x dp_shard x cp x tp x pp), the expert degrees are
# ones ParallelDims accepts (etp 1 or tp; ep dividing dp_shard x cp x tp /
# etp and the 128 experts), and the experts' shard group the summary
# names is torchtitan's efsdp, dp_shard x cp x tp / (etp x ep).  Qwen3 is
# not pipelined by torchtitan v0.2.2 (no pipelining_fn): the search keeps
# one stage, and a pipelined plan's job says why it cannot run; nor does
# it dispatch Qwen3's tokens by DeepEP (-H deepep refused).  DeepSeek-V3
# 671B without its prediction module: torchtitan's deepseek_v3 flavor,
# DeepEP as its backend, no context ranks; with it, no flavor.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
acc=configs/accelerators/h100-80gb.xml
net=configs/networks/spineleaf-h100-128.xml
model=configs/models/qwen3-30b-a3b.xml
say() { echo "$*"; fail=1; }
run() { "$BIN/dpsolve" -A $model -a $acc -n $net -N 64 -B 512 "$@"; }
val() { sed -n "s/^$2 = //p" "$1"; }

"$BIN/graph-normalize" -D "$tmp/g" -a $acc -c $model -V b=1 \
    -o "$tmp/g/index.csv" || exit 1
run -X torchtitan -f torchtitan -o "$tmp/job.toml" "$tmp/g/index.csv" ||
    say "-X torchtitan failed"
grep -q 'cannot run' "$tmp/job.toml" && say "$(grep cannot "$tmp/job.toml")"
. tests/torchtitan/toml-keys.inc
toml_keys "$tmp/job.toml"
[ "$(val "$tmp/job.toml" name)" = '"qwen3"' ] &&
    [ "$(val "$tmp/job.toml" flavor)" = '"30B-A3B"' ] ||
    say "model: $(val "$tmp/job.toml" name) $(val "$tmp/job.toml" flavor)"
rep=$(val "$tmp/job.toml" data_parallel_replicate_degree)
shard=$(val "$tmp/job.toml" data_parallel_shard_degree)
cp=$(val "$tmp/job.toml" context_parallel_degree)
tp=$(val "$tmp/job.toml" tensor_parallel_degree)
pp=$(val "$tmp/job.toml" pipeline_parallel_degree)
ep=$(val "$tmp/job.toml" expert_parallel_degree)
etp=$(val "$tmp/job.toml" expert_tensor_parallel_degree)
[ "$pp" = 1 ] || say "qwen3 pipelined over $pp stages"
[ $((rep * shard * cp * tp * pp)) -eq 64 ] ||
    say "$rep x $shard x $cp x $tp x $pp is not 64"
if [ -z "$ep" ]; then
	say "no expert parallelism"
else
	[ "$etp" = 1 ] || [ "$etp" = "$tp" ] || say "etp $etp with tp $tp"
	[ $((shard * cp * tp % (etp * ep))) -eq 0 ] && [ $((128 % ep)) -eq 0 ] ||
	    say "ep $ep does not divide $shard x $cp x $tp / $etp or 128"
	efsdp=$((shard * cp * tp / (etp * ep)))
	grep -q "an expert's weights sharded over the $efsdp devices" "$tmp/job.toml" ||
	    say "efsdp $efsdp: $(grep -o "an expert's weights[^(]*" "$tmp/job.toml")"
fi
# torchtitan's accumulation: whole local batches over the batch ranks
[ $((512 % ($(val "$tmp/job.toml" local_batch_size) * rep * shard))) -eq 0 ] ||
    say "512 is not whole local batches over $rep x $shard ranks"

# a pipelined FSDP2 plan: nestplan's whole space pipelines it (4 stages)
run -X none -I only -o "$tmp/any.xml" "$tmp/g/index.csv" || exit 1
grep -q '<parallelism p="[2-9]' "$tmp/any.xml" ||
    say "-X none: not pipelined: $(grep '<parallelism' "$tmp/any.xml")"
run -E "$tmp/any.xml" -f torchtitan -o "$tmp/piped.toml" "$tmp/g/index.csv" ||
    say "no job for the pipelined plan"
grep -q "cannot run this plan: [0-9]* stages: torchtitan v0.2.2 does not pipeline qwen3" \
    "$tmp/piped.toml" || say "pipelined: $(grep cannot "$tmp/piped.toml")"
run -X torchtitan -H deepep -o "$tmp/x.xml" "$tmp/g/index.csv" 2> "$tmp/err" &&
    say "-X torchtitan -H deepep planned Qwen3"
grep -q 'DeepEP for its DeepSeek-V3 alone' "$tmp/err" || say "unclear: $(cat "$tmp/err")"

# DeepSeek-V3 671B as torchtitan trains it, without the multi-token
# prediction module it has no code for, on 2,048 H800 with DeepSeek's
# batch, DeepEP's dispatch: torchtitan's deepseek_v3 flavor, DeepEP as
# its backend with whole experts, no tensor or context ranks (its latent
# attention split otherwise than priced, its flex attention)
ds=$tmp/ds.xml
sed 's/<mtp_depth>1</<mtp_depth>0</' configs/models/deepseek-v3.xml > "$ds"
"$BIN/graph-normalize" -D "$tmp/ds" -a configs/accelerators/h800-80gb.xml \
    -c "$ds" -V b=1 -o "$tmp/ds/index.csv" || exit 1
dsrun() {	# model.xml, then dpsolve's other arguments
	m=$1
	shift
	"$BIN/dpsolve" -A "$m" -a configs/accelerators/h800-80gb.xml \
	    -n configs/networks/deepseek-h800-16384.xml -N 2048 -B 15360 \
	    -X torchtitan "$@"
}
dsrun "$ds" -H deepep -f torchtitan -o "$tmp/ds.toml" "$tmp/ds/index.csv" ||
    say "DeepSeek-V3: no job"
grep -q 'cannot run' "$tmp/ds.toml" && say "$(grep cannot "$tmp/ds.toml")"
[ "$(val "$tmp/ds.toml" name)" = '"deepseek_v3"' ] &&
    [ "$(val "$tmp/ds.toml" flavor)" = '"671B"' ] &&
    [ "$(val "$tmp/ds.toml" expert_parallel_comm_backend)" = '"deepep"' ] &&
    [ "$(val "$tmp/ds.toml" expert_tensor_parallel_degree)" = 1 ] &&
    [ "$(val "$tmp/ds.toml" context_parallel_degree)" = 1 ] &&
    [ "$(val "$tmp/ds.toml" tensor_parallel_degree)" = 1 ] ||
    say "DeepSeek-V3 job: $(grep -v '^#' "$tmp/ds.toml" | grep -v module_fqns | tr '\n' ' ')"
[ $(($(val "$tmp/ds.toml" data_parallel_replicate_degree) * \
    $(val "$tmp/ds.toml" data_parallel_shard_degree) * \
    $(val "$tmp/ds.toml" tensor_parallel_degree) * \
    $(val "$tmp/ds.toml" pipeline_parallel_degree))) -eq 2048 ] ||
    say "DeepSeek-V3: the degrees do not make 2,048 GPUs"
grep -q '^expert_parallel_comm_backend = ' "$tmp/ds.toml" &&
    grep -qx parallelism.expert_parallel_comm_backend tests/torchtitan/keys-v0.2.2.txt ||
    say "expert_parallel_comm_backend: not printed or not torchtitan's key"
# a plan of 2 tensor and 2 context ranks (nestplan's whole space finds
# one): torchtitan splits latent attention otherwise than priced, and
# its flex attention has no context parallelism
"$BIN/graph-normalize" -a configs/accelerators/h800-80gb.xml -c "$ds" \
    -V b=1,t=2,c=2,e=8 -o "$tmp/tc.csv" || exit 1
dsrun "$ds" -X none -I only -L stage -o "$tmp/tc.xml" "$tmp/tc.csv" &&
    dsrun "$ds" -E "$tmp/tc.xml" -f torchtitan -o "$tmp/tc.toml" "$tmp/tc.csv" ||
    say "DeepSeek-V3 with tensor and context ranks: no plan or job"
grep -q 'cannot run this plan: 2 tensor ranks of latent attention' "$tmp/tc.toml" &&
    grep -q 'cannot run this plan: [0-9]* context ranks (the model.s flavor attends with flex' "$tmp/tc.toml" ||
    say "tensor and context ranks: $(grep cannot "$tmp/tc.toml")"
# with its prediction module (the config as published): no flavor
"$BIN/graph-normalize" -a configs/accelerators/h800-80gb.xml \
    -c configs/models/deepseek-v3.xml -V b=1,t=1,c=1,e=8 -o "$tmp/mtp.csv" || exit 1
dsrun configs/models/deepseek-v3.xml -o "$tmp/x.xml" "$tmp/mtp.csv" 2> "$tmp/err" &&
    say "-X torchtitan planned DeepSeek-V3 with its prediction module"
grep -q 'has no flavor of this shape' "$tmp/err" || say "unclear: $(cat "$tmp/err")"
exit $fail
