# Tensor-parallel overlap by hand (docs/model.md, "Tensor-parallel
# overlap").  One transformer row at t = 2 with sequence parallelism: a
# column-parallel product entered by an all-gather of X bytes (its
# gradient reduce-scattered backward) and a row-parallel one left by a
# reduce-scatter of X bytes (its gradient gathered backward).  In this
# network model a gather and a reduce-scatter of the same bytes cost the
# same, so the row's collectives without pairs, S0, are 2 x 2 such costs
# (c = S0/4 each).  Then, with products beside them:
#   products of 0 s:  nothing hidden; the column product's input gathered
#                     again backward (sp): S0 + c = 1.25 S0
#   products of 1 s:  its input-gradient reduce-scatter and the gather
#                     again hidden (Megatron-LM's backward): S0 - c = 0.75 S0
# and with --tp-comm-overlap, Transformer Engine's userbuffers (TE
# v1.7-v1.10 defaults): the gathers before the column product and the row
# product's input gradient run in t = 2 chunks through the copy engines
# (a chunk's product hides the next chunk: min(c, g/2) hidden); the
# row product's forward reduce-scatter in 4 splits, the last exposed
# (3/4 min(c, g) hidden); the column product's backward collectives in
# bulk beside it; the split and bulk kernels take 16 of the V100's 80 SMs,
# so each second hidden costs the product s = 0.2 s:
#   products of 1 s:  forward c/4 + 0.2 (3c/4), backward 0.2 c + 0.2 c:
#                     0.8 c = 0.2 S0
#   products of c/2 forward and c backward (c/2 each half):
#                     forward gather c - c/4, reduce-scatter c - 0.8 (3c/8),
#                     backward row gather c - c/4, column reduce-scatter
#                     c - 0.8 c/2, gather again c/2 + 0.2 c/2: 3.4 c = 0.85 S0
# Without sp, a column product's input-gradient all-reduce A hides behind
# its weight gradient (async, 0) unless the runtime blocks (-W blocking, A).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
net=configs/networks/spineleaf-v100-8.xml
acc=configs/accelerators/v100-32gb.xml
X=1e8

graph() {	# file sp ag rs ar pairs
	{
		echo "layer_id,kind,forward_s,backward_s,parameter_bytes,activation_bytes,input_bytes,all_reduce_bytes,all_gather_bytes,reduce_scatter_bytes,t,e,c,sp,micro_batch_samples,tp_overlap"
		echo "0,transformer,0.01,0.02,1000,1000,100,$5,$3,$4,2,1,1,$2,1,$6"
	} > "$1"
}
plan() {	# file sp tpo
	cat > "$1" <<XML
<plan micro_batch_samples="1">
<parallelism d="1" t="2" sp="$2" e="1" c="1" recompute="0" tp_comm_overlap="$3"/>
<stage first_layer="0" last_layer="0" zero_stage="0" zero_degree="1"/>
</plan>
XML
}
coll() {	# graph plan [options]: the stage's collective_s
	g=$1 p=$2
	shift 2
	"$BIN/dpsolve" -a $acc -n $net -N 2 -B 1 "$@" -E "$p" -o "$tmp/out.xml" "$g" ||
	    { echo "dpsolve -E failed on $g"; fail=1; echo 0; return; }
	sed -n 's/.*collective_s="\([^"]*\)".*/\1/p' "$tmp/out.xml"
}
near() {	# what got want
	awk -v got="$2" -v want="$3" -v what="$1" 'BEGIN {
		ok = (want == 0) ? (got < 1e-15 && got > -1e-15) : (got / want > 1 - 1e-9 && got / want < 1 + 1e-9)
		printf "# %s: %.6g s, by hand %.6g s\n", what, got, want
		exit !ok }' || { echo "$1: $2, by hand $3"; fail=1; }
}
two=$(awk -v x=$X 'BEGIN { print 2 * x }')
plan "$tmp/sp.xml" 1 0
plan "$tmp/tpo.xml" 1 1
plan "$tmp/nosp.xml" 0 0
plan "$tmp/nosp-tpo.xml" 0 1
graph "$tmp/none.csv" 1 "$two" "$two" 0 ""
S0=$(coll "$tmp/none.csv" "$tmp/sp.xml")
graph "$tmp/zero.csv" 1 "$two" "$two" 0 "c:$X:0:0 r:$X:0:0"
graph "$tmp/big.csv" 1 "$two" "$two" 0 "c:$X:1:2 r:$X:1:2"
near "products of 0 s" "$(coll "$tmp/zero.csv" "$tmp/sp.xml")" "$(awk -v s="$S0" 'BEGIN { printf "%.17g", 1.25 * s }')"
near "products of 0 s, --tp-comm-overlap" "$(coll "$tmp/zero.csv" "$tmp/tpo.xml")" "$(awk -v s="$S0" 'BEGIN { printf "%.17g", 1.25 * s }')"
near "products of 1 s" "$(coll "$tmp/big.csv" "$tmp/sp.xml")" "$(awk -v s="$S0" 'BEGIN { printf "%.17g", 0.75 * s }')"
near "products of 1 s, --tp-comm-overlap" "$(coll "$tmp/big.csv" "$tmp/tpo.xml")" "$(awk -v s="$S0" 'BEGIN { printf "%.17g", 0.2 * s }')"
half=$(awk -v s="$S0" 'BEGIN { printf "%.17g", s / 8 }')
cfull=$(awk -v s="$S0" 'BEGIN { printf "%.17g", s / 4 }')
graph "$tmp/half.csv" 1 "$two" "$two" 0 "c:$X:$half:$cfull r:$X:$half:$cfull"
near "products of c/2 and c, --tp-comm-overlap" "$(coll "$tmp/half.csv" "$tmp/tpo.xml")" "$(awk -v s="$S0" 'BEGIN { printf "%.17g", 0.85 * s }')"
graph "$tmp/ar-none.csv" 0 0 0 "$X" ""
A=$(coll "$tmp/ar-none.csv" "$tmp/nosp.xml")
graph "$tmp/ar.csv" 0 0 0 "$X" "c:$X:1:2"
near "no sp, async" "$(coll "$tmp/ar.csv" "$tmp/nosp.xml")" 0
near "no sp, blocking" "$(coll "$tmp/ar.csv" "$tmp/nosp.xml" -W blocking)" "$A"
# pairs beyond the row's bytes hide no more than the row was charged for
# their kind: two column pairs of X against an all-reduce of X (no sp)
# beside a reduce-scatter of X leave the reduce-scatter whole
graph "$tmp/rs.csv" 0 0 "$X" 0 ""
graph "$tmp/over.csv" 0 0 "$X" "$X" "c:$X:1:2 c:$X:1:2"
near "pairs beyond the row's bytes" "$(coll "$tmp/over.csv" "$tmp/nosp.xml")" "$(coll "$tmp/rs.csv" "$tmp/nosp.xml")"
# --tp-comm-overlap without sequence parallelism is refused
if "$BIN/dpsolve" -a $acc -n $net -N 2 -B 1 -E "$tmp/nosp-tpo.xml" -o "$tmp/x.xml" "$tmp/ar.csv" 2> "$tmp/err"; then
	echo "tp_comm_overlap without sp: accepted"; fail=1
fi
grep -q "tp_comm_overlap: needs sequence parallelism" "$tmp/err" || { echo "no message:"; cat "$tmp/err"; fail=1; }
exit $fail
