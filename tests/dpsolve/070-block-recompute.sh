# Block recomputation by hand (Megatron's --recompute-method block
# --recompute-num-layers N; docs/model.md, "What a stage keeps"): of each
# model chunk's layers the first N are recomputed in full, the rest keep
# everything.  SC'21's 1.7B GPT at t = 1, b = 1 in two stages of 12 layers
# (the first with the embedding, the last with the head), batch 8 on 2
# A100 (8 micro-batches), priced by dpsolve -E.  With r the forward time
# a layer runs again (the graph's recompute_s) the first stage computes
#   N = 0 (no recomputation) + N r,   and full recomputation + 12 r,
# so N = 12 (or more, or 0: every layer) is full recomputation;
# interleaved in v = 2 chunks, N = 2 is 4 layers.  At t = 2 the recomputed
# layers run their forward collectives again: none's collectives + N/12 of
# (full's - none's), with sp and --tp-comm-overlap too.  A recomputed
# layer keeps its input, the others everything,
# so its memory falls by the same bytes for each N (linear in N), and the
# one working layer is there from N = 1 on.  Megatron's flags are
# printed; block without full recomputation is refused.  (The plan prints
# bytes to 6 figures: the memory differences are compared to 1e-4.)
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
acc=configs/accelerators/a100-80gb.xml
net=configs/networks/selene-a100-4480.xml
model=configs/models/sc21-gpt-1.7b.xml
"$BIN/graph-normalize" -c $model -a $acc -V t=1,b=1 -o "$tmp/g.csv" || exit 1
r=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["layer_id"] == 0 { print $c["recompute_s"] }' "$tmp/g.csv")
plan() {	# name recompute recompute_layers v [t sp tpo graph devices]
	extra=$([ "$3" -gt 0 ] && echo " recompute_layers=\"$3\"")
	cat > "$tmp/$1.xml" <<PLAN
<plan micro_batch_samples="1">
<parallelism d="1" t="${5:-1}" sp="${6:-0}" e="1" c="1" recompute="$2" virtual_stages="$4" tp_comm_overlap="${7:-0}"$extra/>
<stage first_layer="-1" last_layer="11" zero_stage="0" zero_degree="1"/>
<stage first_layer="12" last_layer="24" zero_stage="0" zero_degree="1"/>
</plan>
PLAN
	"$BIN/dpsolve" -a $acc -n $net -N "${9:-2}" -B 8 -E "$tmp/$1.xml" \
	    -o "$tmp/$1.out" "$tmp/${8:-g}.csv" 2> "$tmp/$1.err" ||
	    { echo "$1: dpsolve -E failed"; cat "$tmp/$1.err"; fail=1; }
}
first() {	# name attribute: of the first stage
	sed -n "s/.*<stage index=\"0\".* $2=\"\([^\"]*\)\".*/\1/p" "$tmp/$1.out"
}
mem() { echo "$(first "$1" activations_bytes) $(first "$1" stash_bytes)" | awk '{ print $1 + $2 }'; }
near() {	# got want what [relative tolerance]
	awk -v g="$1" -v w="$2" -v tol="${4:-1e-9}" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= tol * (w < 0 ? -w : w) + 1e-15) }' ||
	    { echo "$3: $1, by hand $2"; fail=1; }
}
plan none 0 0 1; plan full 1 0 1
for n in 3 6 9 12 20; do plan "b$n" 1 "$n" 1; done
plan v2 0 0 2; plan v2b2 1 2 2
c0=$(first none compute_s)
for n in 3 6 9; do
	near "$(first "b$n" compute_s)" "$(awk -v c="$c0" -v r="$r" -v n="$n" 'BEGIN { printf "%.17g", c + n * r }')" "N = $n: compute"
done
near "$(first full compute_s)" "$(awk -v c="$c0" -v r="$r" 'BEGIN { printf "%.17g", c + 12 * r }')" "full: compute"
near "$(first b12 compute_s)" "$(first full compute_s)" "N = 12: compute of full recomputation"
near "$(mem b12)" "$(mem full)" "N = 12: memory of full recomputation"
near "$(first b20 compute_s)" "$(first full compute_s)" "N = 20, more than the chunk: full recomputation"
sed 's/recompute_layers="3"/recompute_layers="0"/' "$tmp/b3.xml" > "$tmp/b0.xml"
"$BIN/dpsolve" -a $acc -n $net -N 2 -B 8 -E "$tmp/b0.xml" -o "$tmp/b0.out" "$tmp/g.csv" 2> /dev/null ||
    { echo "recompute_layers 0 refused"; fail=1; }
near "$(first b0 compute_s)" "$(first full compute_s)" "N = 0: every layer (uniform)"
near "$(first v2b2 compute_s)" "$(awk -v c="$(first v2 compute_s)" -v r="$r" 'BEGIN { printf "%.17g", c + 4 * r }')" "v = 2, N = 2: compute (4 layers)"
# at t = 2 the recomputed layers run their forward all-reduces again and
# the others not: collectives = none's + N/12 of (full's - none's); the
# same with sequence parallelism and --tp-comm-overlap
for var in "t=2:0:0" "t=2,sp=1:1:1"; do
	V=${var%%:*} rest=${var#*:} sp=${rest%%:*} tpo=${rest#*:}
	"$BIN/graph-normalize" -c $model -a $acc -V "$V,b=1" -o "$tmp/g2.csv" || exit 1
	plan t2none 0 0 1 2 "$sp" "$tpo" g2 4
	plan t2full 1 0 1 2 "$sp" "$tpo" g2 4
	plan t2b4 1 4 1 2 "$sp" "$tpo" g2 4
	cn=$(first t2none collective_s) cf=$(first t2full collective_s)
	awk -v n="$cn" -v f="$cf" 'BEGIN { exit !(f > n) }' ||
	    { echo "$V: full recomputation runs no collectives again ($cf, $cn)"; fail=1; }
	near "$(first t2b4 collective_s)" "$(awk -v n="$cn" -v f="$cf" 'BEGIN { printf "%.17g", n + 4 / 12 * (f - n) }')" "$V, N = 4: collectives"
done
m3=$(mem b3) m6=$(mem b6) m9=$(mem b9)
near "$(awk -v a="$m3" -v b="$m6" 'BEGIN { printf "%.17g", a - b }')" "$(awk -v a="$m6" -v b="$m9" 'BEGIN { printf "%.17g", a - b }')" "memory linear in N" 1e-4
awk -v a="$m3" -v b="$m6" -v n="$(mem none)" -v f="$(mem full)" 'BEGIN { exit !(f < b && b < a && a < n) }' ||
    { echo "memory not between full recomputation and none: $(mem full) $m6 $m3 $(mem none)"; fail=1; }
"$BIN/dpsolve" -A $model -f megatron -a $acc -n $net -N 2 -B 8 -E "$tmp/b3.xml" "$tmp/g.csv" > "$tmp/launch" 2>&1
grep -q -- '--recompute-method block' "$tmp/launch" && grep -q -- '--recompute-num-layers 3' "$tmp/launch" ||
    { echo "no block flags in the launch:"; cat "$tmp/launch"; fail=1; }
sed 's/recompute="1" virtual_stages="1" tp_comm_overlap="0" recompute_layers="3"/recompute="0" virtual_stages="1" tp_comm_overlap="0" recompute_layers="3"/' "$tmp/b3.xml" > "$tmp/bad.xml"
if "$BIN/dpsolve" -a $acc -n $net -N 2 -B 8 -E "$tmp/bad.xml" "$tmp/g.csv" > /dev/null 2> "$tmp/bad.err"; then
	echo "block without full recomputation accepted"; fail=1
fi
grep -q 'recompute_layers' "$tmp/bad.err" && [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] ||
    { echo "block without full recomputation: wanted one line naming recompute_layers:"; cat "$tmp/bad.err"; fail=1; }
exit $fail
