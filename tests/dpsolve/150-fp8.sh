# FP8 training (issue 34, item 4): graph-normalize -D -V fp8=RECIPE lists
# every variant twice, in bf16 and with Transformer Engine's linear
# layers in FP8, and dpsolve chooses among them: Llama 2 7B on 128 H100s.
# A search over both is never slower than over bf16 alone (a larger
# space), and here picks FP8; its plan records the recipe, -E prices it
# again to the bit, and the launch says --fp8-format hybrid --fp8-recipe
# delayed (e4m3 for DeepSeek's block scales).  The FP8 parameter gather
# (-Q, searched by default): chosen here, launched as --fp8-param-gather
# (MXFP8's with --reuse-grad-buf-for-mxfp8-param-ag), left out under
# -Q off (a slower plan), every printed flag one of Megatron-LM's.
# Refused: a recipe the device lacks (MXFP8 on the H100), a word that is
# no recipe, a plan naming FP8 without its graph, a plan naming no recipe
# there is, an FP8 graph without its weight copies' columns, -Q on with
# -D off, -Q with -E.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
acc=configs/accelerators/h100-80gb.xml
net=configs/networks/spineleaf-h100-128.xml
model=configs/models/llama2-7b.xml
say() { echo "$*"; fail=1; }
megatron_flags() {	# launch.sh: every flag one of Megatron-LM's
	for f in $(grep -o -- '--[a-z0-9-]*' "$1" | sort -u); do
		case $f in --nproc-per-node|--nnodes) continue ;; esac
		grep -qx -- "$f" tests/megatron/flags-core_v0.15.0.txt ||
		    say "$1: $f is not a Megatron-LM flag"
	done
}
run() { "$BIN/dpsolve" -A $model -a $acc -n $net -N 128 -B 1024 "$@"; }
step() { sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$1"; }

"$BIN/graph-normalize" -D "$tmp/bf16" -a $acc -c $model -V b=1,t=2,c=1 \
    -o "$tmp/bf16/index.csv" &&
"$BIN/graph-normalize" -D "$tmp/fp8" -a $acc -c $model -V b=1,t=2,c=1,fp8=delayed \
    -o "$tmp/fp8/index.csv" || exit 1
n16=$(($(wc -l < "$tmp/bf16/index.csv") - 1))
n8=$(($(wc -l < "$tmp/fp8/index.csv") - 1))
[ "$n8" -eq $((2 * n16)) ] || say "-V fp8: $n8 variants, want twice $n16"
[ "$(awk -F, 'NR > 1 && $NF == "delayed"' "$tmp/fp8/index.csv" | wc -l)" -eq "$n16" ] ||
    say "-V fp8: not half of them FP8"
run -o "$tmp/bf16.xml" "$tmp/bf16/index.csv" &&
run -o "$tmp/fp8.xml" "$tmp/fp8/index.csv" || exit 1
awk -v a="$(step "$tmp/fp8.xml")" -v b="$(step "$tmp/bf16.xml")" \
    'BEGIN { exit !(a <= b) }' || say "FP8 searched: slower than bf16 alone"
grep -q 'fp8_recipe="delayed"' "$tmp/fp8.xml" || say "FP8 not chosen: $(grep parallelism "$tmp/fp8.xml")"
run -E "$tmp/fp8.xml" -o "$tmp/fp8-e.xml" "$tmp/fp8/index.csv" &&
    [ "$(step "$tmp/fp8-e.xml")" = "$(step "$tmp/fp8.xml")" ] ||
    say "-E of the FP8 plan: $(step "$tmp/fp8-e.xml"), searched $(step "$tmp/fp8.xml")"
run -E "$tmp/fp8.xml" -f megatron -o "$tmp/fp8.sh" "$tmp/fp8/index.csv" ||
    say "FP8 launch failed"
grep -q -- '--fp8-format hybrid ' "$tmp/fp8.sh" &&
    grep -q -- '--fp8-recipe delayed ' "$tmp/fp8.sh" || say "launch: no FP8 flags"
grep -q 'cannot run' "$tmp/fp8.sh" && say "FP8 launch: cannot run"
# the FP8 gather: chosen (128 replicas gather every step), launched
grep -q 'fp8_param_gather="1"' "$tmp/fp8.xml" || say "FP8 gather not chosen"
grep -q -- '--fp8-param-gather ' "$tmp/fp8.sh" || say "launch: no --fp8-param-gather"
megatron_flags "$tmp/fp8.sh"
run -Q off -o "$tmp/nogather.xml" "$tmp/fp8/index.csv" || say "-Q off failed"
grep -q 'fp8_param_gather' "$tmp/nogather.xml" && say "-Q off: gathers in FP8"
awk -v a="$(step "$tmp/fp8.xml")" -v b="$(step "$tmp/nogather.xml")" \
    'BEGIN { exit !(a < b) }' || say "FP8 gather: not faster than without"
run -Q on -D off -o "$tmp/x.xml" "$tmp/fp8/index.csv" 2> /dev/null
[ $? -eq 2 ] || say "-Q on -D off: not a usage error"
run -Q on -E "$tmp/fp8.xml" -o "$tmp/x.xml" "$tmp/fp8/index.csv" 2> /dev/null
[ $? -eq 2 ] || say "-Q with -E: not a usage error"
# MXFP8 on the B200: gathered in bf16 through the gradient buffer
"$BIN/graph-normalize" -c $model -a configs/accelerators/b200-180gb.xml -V t=1,fp8=mxfp8 \
    -o "$tmp/mx.csv" &&
    "$BIN/dpsolve" -A $model -a configs/accelerators/b200-180gb.xml \
    -n configs/networks/dgx-b200-1024.xml -N 64 -B 512 -Q on -D on -f megatron \
    -o "$tmp/mx.sh" "$tmp/mx.csv" || say "MXFP8 launch failed"
grep -q -- '--fp8-param-gather ' "$tmp/mx.sh" &&
    grep -q -- '--reuse-grad-buf-for-mxfp8-param-ag ' "$tmp/mx.sh" ||
    say "MXFP8 launch: $(grep -o -- '--[a-z0-9-]*' "$tmp/mx.sh" | tr '\n' ' ')"
megatron_flags "$tmp/mx.sh"
"$BIN/graph-normalize" -c $model -a $acc -V t=2,sp=1,fp8=blockwise -o "$tmp/block.csv" &&
    run -f megatron -o "$tmp/block.sh" "$tmp/block.csv" &&
    grep -q -- '--fp8-format e4m3 ' "$tmp/block.sh" &&
    grep -q -- '--fp8-recipe blockwise ' "$tmp/block.sh" ||
    say "blockwise: not launched in e4m3"

# refused
"$BIN/graph-normalize" -c $model -a $acc -V fp8=mxfp8 -o "$tmp/x.csv" 2> "$tmp/err" &&
    say "MXFP8 built on the H100"
grep -q "runs no FP8 recipe 'mxfp8'" "$tmp/err" || say "unclear: $(cat "$tmp/err")"
[ -e "$tmp/x.csv" ] && say "a refused graph was written"
"$BIN/graph-normalize" -c $model -a $acc -V fp8=fp4 -o "$tmp/x.csv" 2> /dev/null
[ $? -eq 2 ] || say "-V fp8=fp4: not a usage error"
run -E "$tmp/fp8.xml" -o "$tmp/x.xml" "$tmp/bf16/index.csv" 2> "$tmp/err" &&
    say "an FP8 plan priced on bf16 graphs"
grep -q 'fp8_recipe=delayed' "$tmp/err" || say "unclear: $(cat "$tmp/err")"
sed 's/fp8_recipe="delayed"/fp8_recipe="fp4"/' "$tmp/fp8.xml" > "$tmp/bad.xml"
run -E "$tmp/bad.xml" -o "$tmp/x.xml" "$tmp/fp8/index.csv" 2> "$tmp/err" &&
    say "fp8_recipe fp4 read"
grep -q "fp8_recipe: 'fp4'" "$tmp/err" || say "unclear: $(cat "$tmp/err")"
# an FP8 graph's three columns come together
for col in fp8_weight_bytes fp8_expert_weight_bytes; do
	awk -F, -v OFS=, -v c=$col 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
		{ s = ""; for (i = 1; i <= NF; i++) if (i != k) s = s (s == "" ? "" : ",") $i; print s }' \
	    "$tmp/block.csv" > "$tmp/nocopies.csv"
	run -o "$tmp/x.xml" "$tmp/nocopies.csv" 2> "$tmp/err" && say "FP8 graph without $col read"
	grep -q "column 'fp8_recipe' without column '$col'" "$tmp/err" ||
	    say "unclear: $(cat "$tmp/err")"
done
exit $fail
