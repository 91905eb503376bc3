#!/bin/sh
# The README's "Plan your own run" recipe, its sh block as written, in a
# copy of the tree (the files git tracks or would, with the tools this
# suite was built with, so nothing is compiled again): it exits 0 and
# prints a summary and a launch, and the launch is the run asked for,
# read here from the recipe's own inputs and not from the tools: the
# layers, widths, heads and vocabulary of Qwen3-8B's config.json, 8 GPUs
# a node over 16 nodes (the cluster the recipe writes), the global
# batch, and TP x PP x CP x DP of the summary equal to the 128 GPUs.
# Then make plan without GPUS fails naming what is missing.
# Only with the release tools (BIN=bin): the Makefile runs those.
set -u
[ "$BIN" = bin ] || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
w=$tmp/w
. tests/make/tree.inc
copy_tree "$w"
# the time stamps kept, the tools copied here stay up to date
cp -pR bin "$w/" && mkdir -p "$w/build" &&
    cp -pR build/rel build/deps.ok build/deps.sig "$w/build/" ||
    { echo "cannot copy the tools" >&2; exit 1; }
sed -n '/^## Plan your own run/,/^## /p' README.md |
    awk '/^```sh$/ { inside = 1; next } /^```$/ { if (inside) exit } inside' \
    > "$tmp/recipe.sh"
lines=$(wc -l < "$tmp/recipe.sh")
[ "$lines" -ge 3 ] && [ "$lines" -le 15 ] ||
    { echo "the recipe is $lines lines (3 to 15)"; exit 1; }
( cd "$w" && MAKEFLAGS= MAKELEVEL= sh -e "$tmp/recipe.sh" ) > "$tmp/out" 2>&1 ||
    { echo "the recipe failed:"; tail -n 20 "$tmp/out"; exit 1; }
fail=0
json=tests/model-import/hf/Qwen3-8B/config.json
field() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" "$json"; }
for want in "--num-layers $(field num_hidden_layers)" \
    "--hidden-size $(field hidden_size)" \
    "--ffn-hidden-size $(field intermediate_size)" \
    "--num-attention-heads $(field num_attention_heads)" \
    "--num-query-groups $(field num_key_value_heads)" \
    "--vocab-size $(($(field vocab_size) - 1))" \
    "--nproc-per-node 8 --nnodes 16" "--global-batch-size 1024"; do
	grep -q -- "$want" "$tmp/out" || { echo "no '$want' in the launch"; fail=1; }
done
# Qwen3 (model_type qwen3) normalizes each query and key head
grep -q '"model_type": "qwen3"' "$json" && ! grep -q -- "--qk-layernorm" "$tmp/out" &&
    { echo "a qwen3 launch without --qk-layernorm"; fail=1; }
# TP a PP b CP c ... DP d: their product, the GPUs asked for
devices=$(sed -n 's/^plan (Megatron-LM.s terms): //p' "$tmp/out" | awk '{
	n = 1
	for (i = 1; i < NF; i++)
		if ($i ~ /^(TP|PP|CP|DP)$/) { v = $(i + 1); sub(/[^0-9].*/, "", v); n *= v }
	print n
}')
[ "$devices" = 128 ] || { echo "TP x PP x CP x DP = '$devices', not 128"; fail=1; }
for f in plan.xml summary.txt launch.sh; do
	[ -s "$w/results/plans/qwen3-8b-my-cluster-128gpus-1024/$f" ] ||
	    { echo "no $f kept"; fail=1; }
done
( cd "$w" && MAKEFLAGS= MAKELEVEL= make plan MODEL=qwen3-8b \
    CLUSTER=my-cluster BATCH=1024 ) > "$tmp/bad" 2>&1 &&
    { echo "make plan without GPUS succeeded"; fail=1; }
grep -q "make plan needs GPUS=" "$tmp/bad" ||
    { echo "make plan without GPUS:"; cat "$tmp/bad"; fail=1; }
[ $fail -eq 0 ] || { echo "the recipe's output:"; cat "$tmp/out"; }
[ -n "${SHOW:-}" ] && cat "$tmp/out"
exit $fail
