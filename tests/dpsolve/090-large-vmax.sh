# A search over more interleavings is over a larger plan space, so it is
# never slower: dpsolve -v 48 and -v 64 find a step no longer than -v 21.
# GPT 175B (Korthikanti et al.'s shape) at t 8 on 64 A100 of Selene, a
# batch of 64, every recomputation kind and both optimizers: 762 run
# modes at -v 64 (3 kinds x 2 optimizers x 127 interleavings), over the
# byte the search once kept a cell's mode in, which dropped the modes past
# 255 (every selective one at -v 48) and found a plan 4% slower.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
acc=configs/accelerators/a100-80gb.xml
"$BIN/graph-normalize" -D "$tmp/g" -V t=8,c=1,b=1 -a $acc \
    -c configs/models/korthikanti-gpt-175b.xml -o "$tmp/g/index.csv" || exit 1
for v in 21 48 64; do
	"$BIN/dpsolve" -a $acc -n configs/networks/selene-a100-4480.xml -N 64 \
	    -B 64 -v $v -o "$tmp/v$v.xml" "$tmp/g/index.csv" 2> "$tmp/err" ||
	    { cat "$tmp/err"; exit 1; }
	sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$tmp/v$v.xml" > "$tmp/step$v"
done
awk -v a="$(cat "$tmp/step21")" -v b="$(cat "$tmp/step48")" -v c="$(cat "$tmp/step64")" 'BEGIN {
	printf "# step: %s s at -v 21, %s at -v 48, %s at -v 64\n", a, b, c
	exit !(a > 0 && b <= a && c <= b) }'
