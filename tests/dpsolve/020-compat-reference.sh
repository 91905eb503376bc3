# dpsolve -C nest on every NEST cell of the artifact's reference file: the
# plan it finds is at least as fast as the artifact's own DP result, in the
# artifact's units (the reference lists them; ours is exact over the
# artifact's plan space, docs/compat.md).
set -u
A=${ARTIFACT:-../shared/nest-artifact}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cells=0
awk -F, 'NR > 1 && $5 == "nest" { print $1, $2, $3, $4, $7, $10 }' \
    "$A/check/nest_dp_reference.csv" > "$tmp/cells"
while read -r setup model devices mbs want t; do
	line=$(awk -F, -v m="$model" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	    $c["model"] == m { print $c["graph_prefix"], $c["activation_recomputation"] }' \
	    "$A/models.csv")
	set -- $line
	graph=$(printf '%s' "$1" | sed "s/MBS/$mbs/; s/_tmp_T/_tmp_$t/")
	if ! "$BIN/dpsolve" -C nest -S "$A/setups.csv" -s "$setup" -N "$devices" \
	    -w "$t" -r "$2" -o "$tmp/plan.csv" "$A/$setup/$graph"; then
		echo "$setup $model $devices: dpsolve failed"; fail=1; continue
	fi
	got=$(awk -F, 'NR == 2 { print $4 }' "$tmp/plan.csv")
	if ! awk -v g="$got" -v w="$want" 'BEGIN { exit !(g <= w * (1 + 1e-9)) }'; then
		echo "$setup $model $devices: ours $got, the artifact's $want"
		fail=1
	fi
	cells=$((cells + 1))
done < "$tmp/cells"
[ "$cells" -eq 10 ] || { echo "$cells NEST cells, want 10"; fail=1; }
exit $fail
