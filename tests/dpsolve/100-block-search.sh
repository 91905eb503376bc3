# dpsolve -R: block recomputation (Megatron's --recompute-method block
# --recompute-num-layers N) searched beside the kinds, for N up to R
# layers a model chunk.  The space with it holds the space without, so the
# step is never longer: GPT-3 175B on the 128 H100 of the spine-leaf
# network, batch 1536, at 32-46 GB a device.  Where memory is between
# what no recomputation and full recomputation need (38 GB here) it wins
# outright and the plan says so: recompute_layers, which dpsolve -E prices
# to the step the search reported, and which Megatron's launch prints.
# (tests/unit/t-dp.c works a block plan by hand and checks the search
# against every plan of random small spaces.)  -R without full
# recomputation in the range, with -E or with the artifact's plan space
# (-C nest) is a usage error.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
acc=configs/accelerators/h100-80gb.xml
net=configs/networks/spineleaf-h100-128.xml
model=configs/models/gpt3-175b.xml
"$BIN/graph-normalize" -D "$tmp/g" -a $acc -c $model -o "$tmp/g/index.csv" ||
    exit 1
step() { sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$1"; }
for M in 32e9 38e9 46e9; do
	for R in 0 8; do
		"$BIN/dpsolve" -M $M -R $R -a $acc -n $net -N 128 -B 1536 \
		    -o "$tmp/$M-$R.xml" "$tmp/g/index.csv" 2> "$tmp/err" ||
		    { echo "-M $M -R $R failed"; cat "$tmp/err"; fail=1; }
	done
	awk -v a="$(step "$tmp/$M-0.xml")" -v b="$(step "$tmp/$M-8.xml")" -v M=$M 'BEGIN {
		printf "# %s bytes: step %s s without block recomputation, %s with\n", M, a, b
		exit !(a > 0 && b > 0 && b <= a) }' ||
	    { echo "-M $M: longer with block recomputation"; fail=1; }
done
x=$tmp/38e9-8.xml
grep -q 'recompute="1"[^>]*recompute_layers="[1-9]' "$x" ||
    { echo "38e9: the plan is not block recomputation"; fail=1; }
awk -v a="$(step "$tmp/38e9-0.xml")" -v b="$(step "$x")" 'BEGIN { exit !(b < a) }' ||
    { echo "38e9: block recomputation does not win"; fail=1; }
# the plan, priced as given, and launched
sed -n '/<plan/,/<\/plan>/p' "$x" > "$tmp/plan.xml"
"$BIN/dpsolve" -M 38e9 -a $acc -n $net -N 128 -B 1536 -E "$tmp/plan.xml" \
    -o "$tmp/e.xml" "$tmp/g/index.csv" 2> "$tmp/err" ||
    { echo "-E failed"; cat "$tmp/err"; fail=1; }
[ "$(step "$tmp/e.xml")" = "$(step "$x")" ] ||
    { echo "-E prices the plan at $(step "$tmp/e.xml") s, the search at $(step "$x")"; fail=1; }
n=$(sed -n 's/.*recompute_layers="\([0-9]*\)".*/\1/p' "$x" | head -n 1)
"$BIN/dpsolve" -M 38e9 -a $acc -n $net -N 128 -B 1536 -E "$tmp/plan.xml" \
    -A $model -f megatron -o "$tmp/launch.sh" "$tmp/g/index.csv" 2> "$tmp/err" &&
    grep -q -- "--recompute-method block" "$tmp/launch.sh" &&
    grep -q -- "--recompute-num-layers $n\b" "$tmp/launch.sh" ||
    { echo "the launch does not recompute $n layers a chunk"; cat "$tmp/err"; fail=1; }
# refusals
for args in "-r none" "-r selective" "-E $tmp/plan.xml" "-C nest"; do
	"$BIN/dpsolve" -R 2 $args -a $acc -n $net -N 128 -B 1536 -o "$tmp/r.xml" \
	    "$tmp/g/index.csv" 2> "$tmp/err"
	rc=$?
	[ $rc = 2 ] && grep -q -- '-R' "$tmp/err" ||
	    { echo "-R 2 $args: exit $rc, not 2"; cat "$tmp/err"; fail=1; }
done
exit $fail
