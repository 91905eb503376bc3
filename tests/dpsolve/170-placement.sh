#!/bin/sh
# The stages' placement (docs/model.md, Plans; dpsolve -L): Llama 3 8B,
# two stages of 32 replicas on 64 GPUs of a leaf-spine network.  A
# replica's stages one after another put stage 1's first copy on device
# 1; stage-major (stage_major="1"), each stage's replicas side by side,
# on device 32, and -E reads it back to the same step.  -L both finds the
# faster of -L replica and -L stage.  The Megatron launch prints
# --use-tp-pp-dp-mapping for the first and nothing for the second (its
# default order); torchtitan's job runs the second, FSDP2 kept over two
# stages, and refuses the first.  Refused: ZeRO copies placed stage-major,
# -L with -E or -X torchtitan, -L sideways.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "$*"; fail=1; }
acc=configs/accelerators/h100-80gb.xml
model=configs/models/llama3-8b.xml
run() {
	"$BIN/dpsolve" -A $model -a $acc \
	    -n configs/networks/spineleaf-h100-128.xml -N 64 -B 512 "$@"
}
step() { sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$1"; }
first() { sed -n 's/.*<stage index="1" .* first_device="\([^"]*\)".*/\1/p' "$1"; }

"$BIN/graph-normalize" -D "$tmp/g" -a $acc -c $model -V b=1,t=1,c=1 \
    -o "$tmp/g/index.csv" || exit 1
graph=$tmp/g/$(sed -n '2s/,.*//p' "$tmp/g/index.csv")
plan() {	# extra attributes of <parallelism>
	cat <<EOF
<plan micro_batch_samples="1">
<parallelism d="32" t="1" sp="0" e="1" c="1" recompute="1" virtual_stages="1" distributed_optimizer="1" overlap_grad_reduce="1" overlap_param_gather="0" ends_in_pipeline_split="0" tp_comm_overlap="0"$1/>
<stage first_layer="-1" last_layer="15" zero_stage="0" zero_degree="1"/>
<stage first_layer="16" last_layer="32" zero_stage="0" zero_degree="1"/>
</plan>
EOF
}
plan "" > "$tmp/replica.xml"
plan ' stage_major="1"' > "$tmp/stage.xml"
run -X none -E "$tmp/replica.xml" -o "$tmp/replica-e.xml" "$graph" &&
run -X none -E "$tmp/stage.xml" -o "$tmp/stage-e.xml" "$graph" || exit 1
[ "$(first "$tmp/replica-e.xml")" = 1 ] || say "replica-major: stage 1 at $(first "$tmp/replica-e.xml")"
[ "$(first "$tmp/stage-e.xml")" = 32 ] || say "stage-major: stage 1 at $(first "$tmp/stage-e.xml")"
grep -q ' stage_major="1"' "$tmp/stage-e.xml" || say "stage-major not written"
grep -q ' stage_major=' "$tmp/replica-e.xml" && say "replica-major written as stage-major"
run -X none -E "$tmp/stage-e.xml" -o "$tmp/again.xml" "$graph" &&
    [ "$(step "$tmp/again.xml")" = "$(step "$tmp/stage-e.xml")" ] ||
    say "-E of the priced stage-major plan: $(step "$tmp/again.xml"), not $(step "$tmp/stage-e.xml")"

# the launches
run -X none -E "$tmp/replica.xml" -f megatron -o "$tmp/replica.sh" "$graph" &&
run -X none -E "$tmp/stage.xml" -f megatron -o "$tmp/stage.sh" "$graph" || exit 1
grep -q -- '--use-tp-pp-dp-mapping' "$tmp/replica.sh" ||
    say "replica-major launch without --use-tp-pp-dp-mapping"
grep -q -- '--use-tp-pp-dp-mapping' "$tmp/stage.sh" &&
    say "stage-major launch with --use-tp-pp-dp-mapping"
grep -q 'placed otherwise' "$tmp/stage.sh" && say "stage-major: $(grep 'placed otherwise' "$tmp/stage.sh")"
sed 's/ distributed_optimizer="1" overlap_grad_reduce="1"/ distributed_optimizer="0" overlap_grad_reduce="0" fsdp="2"/' \
    "$tmp/stage.xml" > "$tmp/tt-stage.xml"
sed 's/ stage_major="1"//' "$tmp/tt-stage.xml" > "$tmp/tt-replica.xml"
run -X none -E "$tmp/tt-stage.xml" -f torchtitan -o "$tmp/stage.toml" "$graph" &&
run -X none -E "$tmp/tt-replica.xml" -f torchtitan -o "$tmp/replica.toml" "$graph" || exit 1
grep -q 'cannot run' "$tmp/stage.toml" && say "torchtitan, stage-major: $(grep 'cannot run' "$tmp/stage.toml")"
grep -q 'cannot run this plan: a pipeline with 32 data-parallel ranks' "$tmp/replica.toml" ||
    say "torchtitan, replica-major: $(grep 'cannot run' "$tmp/replica.toml")"

# the search: both placements' best is the faster one's
for l in replica stage both; do
	run -X none -L $l -o "$tmp/s-$l.xml" "$tmp/g/index.csv" || say "-L $l failed"
done
awk -v a="$(step "$tmp/s-both.xml")" -v r="$(step "$tmp/s-replica.xml")" \
    -v s="$(step "$tmp/s-stage.xml")" 'BEGIN { exit !(a == (r < s ? r : s)) }' ||
    say "-L both: $(step "$tmp/s-both.xml"), replica $(step "$tmp/s-replica.xml"), stage $(step "$tmp/s-stage.xml")"

# refused
awk '/<stage / && !done { sub(/zero_stage="0" zero_degree="1"/, "zero_stage=\"1\" zero_degree=\"2\" devices=\"2\""); done = 1 }
    { sub(/ d="32"/, " d=\"16\""); print }' "$tmp/stage.xml" > "$tmp/bad.xml"
grep -q 'zero_degree="2"' "$tmp/bad.xml" || say "no ZeRO copies in the bad plan"
run -X none -E "$tmp/bad.xml" -o "$tmp/x.xml" "$graph" 2> "$tmp/err" &&
    say "ZeRO copies priced stage-major"
grep -q 'ZeRO copies placed stage-major' "$tmp/err" || say "unclear: $(cat "$tmp/err")"
for args in "-L stage -E $tmp/stage.xml" "-L stage -X torchtitan" "-L sideways"; do
	# shellcheck disable=SC2086
	run $args -o "$tmp/x.xml" "$graph" 2> /dev/null
	[ $? -eq 2 ] || say "dpsolve $args: not a usage error"
done
[ -e "$tmp/x.xml" ] && say "a refused run wrote its output"
exit $fail
