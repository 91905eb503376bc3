# Expert ranks that split the micro-batch's samples (Megatron-LM's plain
# expert parallelism, inside the data-parallel group) against the folded
# split of the same tokens (MoE parallel folding: the expert ranks share
# a sequence, as context ranks do): Mixtral 8x7B at t 1, e 8, a micro-batch
# of 8 sequences (one a rank when split), p 4 d 4 on 128 H100, priced by
# dpsolve -E.  The two do the same work on the same tokens; folded, the
# keys and values of all 8 sequences are gathered over the 8 ranks and
# their gradients reduce-scattered back, split they are not exchanged at
# all.  So the split plan's step is the folded plan's priced on a copy of
# its graph whose context columns are zero, to the byte; its compute is
# the folded plan's.  The plan keeps ep_batch through -E; Megatron's
# launch has a micro-batch of one a rank and no context parallelism where
# the fold has 8 and 8.  The same equality at t 2 with sequence
# parallelism and e 4.  A split that folds 2 of its 8 ranks over a
# sequence prices its key/value exchange over those 2, as the plain fold
# of e 2 does, and launches as Megatron's CP 2 and EP 8 over DP 16.  A
# search over both splits picks the split here
# and is no slower than one over the folds.  -D lists both splits by
# default.  Refusals: a split plan without its graph, ep_batch 2, a split
# beside context parallelism, at e 1, or ep=both for one graph; a split
# graph with c 2, with a key/value exchange, or without the variant.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
acc=configs/accelerators/h100-80gb.xml
net=configs/networks/spineleaf-h100-128.xml
model=configs/models/mixtral-8x7b.xml
say() { echo "$*"; fail=1; }

"$BIN/graph-normalize" -c $model -a $acc -V t=1,e=8,b=1,ep=batch -o "$tmp/split.csv" &&
"$BIN/graph-normalize" -c $model -a $acc -V t=1,e=8,b=8 -o "$tmp/fold.csv" || exit 1
# the folded graph without its key/value exchange
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^context_/) z[i] = 1; print; next }
	{ for (i in z) $i = 0; print }' "$tmp/fold.csv" > "$tmp/nokv.csv"
printf 'file\nsplit.csv\nfold.csv\n' > "$tmp/index.csv"

# (each stage's replicas side by side, as Megatron's default order places
# them: its --use-tp-pp-dp-mapping fails with these expert layouts)
plan() {	# name ep_batch-attribute
	cat > "$tmp/$1.xml" <<PLAN
<plan micro_batch_samples="8">
<parallelism d="4" t="1" sp="0" e="8" c="1" recompute="0" distributed_optimizer="1" overlap_grad_reduce="1" overlap_param_gather="1" stage_major="1"$2/>
<stage first_layer="-1" last_layer="7" zero_stage="0" zero_degree="1"/>
<stage first_layer="8" last_layer="15" zero_stage="0" zero_degree="1"/>
<stage first_layer="16" last_layer="23" zero_stage="0" zero_degree="1"/>
<stage first_layer="24" last_layer="32" zero_stage="0" zero_degree="1"/>
</plan>
PLAN
}
price() {	# plan graph-or-index out
	"$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 -E "$tmp/$1.xml" \
	    -o "$tmp/$3" "$2" 2> "$tmp/$3.err" ||
	    { say "$1 on $2: dpsolve -E failed: $(cat "$tmp/$3.err")"; return 1; }
}
attr() {	# file element attribute: the first such element's
	sed -n "s/.*<$2 [^>]*\b$3=\"\([^\"]*\)\".*/\1/p" "$1" | head -n 1
}
plan split ' ep_batch="1"'
plan fold ''
price split "$tmp/index.csv" split.out
price fold "$tmp/index.csv" fold.out
price fold "$tmp/nokv.csv" nokv.out

[ "$(attr "$tmp/split.out" result step_s)" = "$(attr "$tmp/nokv.out" result step_s)" ] ||
    say "split step $(attr "$tmp/split.out" result step_s), the fold without its exchange $(attr "$tmp/nokv.out" result step_s)"
[ "$(attr "$tmp/split.out" stage compute_s)" = "$(attr "$tmp/fold.out" stage compute_s)" ] ||
    say "split compute $(attr "$tmp/split.out" stage compute_s), folded $(attr "$tmp/fold.out" stage compute_s)"
awk -v s="$(attr "$tmp/split.out" stage collective_s)" -v f="$(attr "$tmp/fold.out" stage collective_s)" \
    'BEGIN { exit !(f > s) }' || say "the fold's collectives are not dearer than the split's"
[ "$(attr "$tmp/split.out" parallelism ep_batch)" = 1 ] || say "-E dropped ep_batch"
[ -z "$(attr "$tmp/fold.out" parallelism ep_batch)" ] || say "a folded plan wrote ep_batch"
# the priced plan prices again to the same bytes
cp "$tmp/split.out" "$tmp/again.xml"
price again "$tmp/index.csv" again.out && cmp -s "$tmp/split.out" "$tmp/again.out" ||
    say "-E of -E's output changed it"

# Megatron's launch: a rank's micro-batch, context parallelism only folded
launch() {	# name [graph-or-index]: a plan's launch, which Megatron runs
	"$BIN/dpsolve" -A $model -a $acc -n $net -N 128 -B 1024 -E "$tmp/$1.xml" \
	    -f megatron -o "$tmp/$1.sh" "${2:-$tmp/index.csv}" 2> "$tmp/$1.sh.err" ||
	    say "$1: -f megatron failed: $(cat "$tmp/$1.sh.err")"
	! grep -q 'cannot run' "$tmp/$1.sh" ||
	    say "$1: Megatron refused: $(grep 'cannot run' "$tmp/$1.sh")"
}
has() { grep -q -- "$2" "$tmp/$1.sh" || say "$1: no '$2' in the launch"; }
launch split
launch fold
has split '--micro-batch-size 1 '
has split '--expert-model-parallel-size 8 '
has split "the 8 expert ranks split each micro-batch's 8 samples: Megatron's data-parallel size 32, 1 a rank"
grep -q -- '--context-parallel-size' "$tmp/split.sh" && say "split: context parallelism launched"
has fold '--micro-batch-size 8 '
has fold '--context-parallel-size 8 '
has fold '--expert-model-parallel-size 8 '

# a split with a fold (Megatron's EP 8 over CP 2 and 4 of its DP 16):
# each fold of 2 shares one sequence's keys and values, as the plain fold
# of e 2 at one sequence does, so the two price that exchange alike, over
# 2 adjacent devices (over the 8 of e it would cost 7/8 of the bytes a
# ring, not 1/2); -E keeps ep_fold; the launch has context parallelism
# 2, a rank's one sequence and Megatron's data-parallel size 16
"$BIN/graph-normalize" -c $model -a $acc -V t=1,e=8,b=1,ep=batch,fold=2 -o "$tmp/both.csv" &&
"$BIN/graph-normalize" -c $model -a $acc -V t=1,e=2,b=1 -o "$tmp/fold2e.csv" || exit 1
for g in both fold2e; do
	awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^context_/) z[i] = 1; print; next }
		{ for (i in z) $i = 0; print }' "$tmp/$g.csv" > "$tmp/$g-nokv.csv"
done
sed 's/micro_batch_samples="8"/micro_batch_samples="4"/; s/ e="8" c="1" / e="8" c="1" ep_batch="1" ep_fold="2" /' \
    "$tmp/fold.xml" > "$tmp/both.xml"
sed 's/micro_batch_samples="8"/micro_batch_samples="1"/; s/ d="4" t="1" sp="0" e="8" / d="16" t="1" sp="0" e="2" /' \
    "$tmp/fold.xml" > "$tmp/fold2e.xml"
cp "$tmp/both.xml" "$tmp/both-nokv.xml"
cp "$tmp/fold2e.xml" "$tmp/fold2e-nokv.xml"
for g in both both-nokv fold2e fold2e-nokv; do
	price $g "$tmp/$g.csv" $g.out
done
awk -v a="$(attr "$tmp/both.out" stage collective_s)" -v b="$(attr "$tmp/both-nokv.out" stage collective_s)" \
    -v c="$(attr "$tmp/fold2e.out" stage collective_s)" -v d="$(attr "$tmp/fold2e-nokv.out" stage collective_s)" \
    'BEGIN { x = a - b; y = c - d; exit !(y > 0 && (x - y) * (x - y) < 1e-18 * y * y) }' ||
    say "the fold's key/value exchange: $(attr "$tmp/both.out" stage collective_s) - $(attr "$tmp/both-nokv.out" stage collective_s), the e 2 fold's $(attr "$tmp/fold2e.out" stage collective_s) - $(attr "$tmp/fold2e-nokv.out" stage collective_s)"
[ "$(attr "$tmp/both.out" parallelism ep_fold)" = 2 ] || say "-E dropped ep_fold"
launch both "$tmp/both.csv"
has both '--micro-batch-size 1 '
has both '--context-parallel-size 2 '
has both '--expert-model-parallel-size 8 '
has both "Megatron's context-parallel size 2, data-parallel size 16, 1 a rank"
# -D lists the folds of 2 and 4 (up to c 4) beside the two splits
"$BIN/graph-normalize" -D "$tmp/allc" -V t=1,b=1 -c $model -a $acc -o "$tmp/allc.csv" || say "-D c 4 failed"
head -n 1 "$tmp/allc.csv" | grep -q ',ep_fold$' || say "-D: no ep_fold column"
grep -q '^b2-t1-sp0-e8-c1-epb-fold4.csv,1,8,1,0,2,8,1,1,none,4$' "$tmp/allc.csv" ||
    say "-D: no fold of 4 of e 8 at b 1 a sample rank: $(grep fold "$tmp/allc.csv" | head -n 3)"

# the experts' tensor split between 1 and t (Megatron's ETP 2 beside TP
# 4): -E keeps expert_t 2 and the launch says so, with EP 2 (the 4 tensor
# ranks, two groups of 2)
"$BIN/graph-normalize" -c $model -a $acc -V t=4,sp=1,b=1,et=2 -o "$tmp/etp.csv" || exit 1
sed 's/micro_batch_samples="8"/micro_batch_samples="1"/; s/ d="4" t="1" sp="0" e="8" / d="8" t="4" sp="1" e="1" expert_t="2" /' \
    "$tmp/fold.xml" > "$tmp/etp.xml"
price etp "$tmp/etp.csv" etp.out
[ "$(attr "$tmp/etp.out" parallelism expert_t)" = 2 ] || say "-E dropped expert_t 2"
launch etp "$tmp/etp.csv"
has etp '--tensor-model-parallel-size 4 '
has etp '--expert-tensor-parallel-size 2 '
has etp '--expert-model-parallel-size 2 '

# the same at t 2 with sequence parallelism, e 4 (a copy is still 8 GPUs)
"$BIN/graph-normalize" -c $model -a $acc -V t=2,sp=1,e=4,b=2,ep=batch -o "$tmp/split2.csv" &&
"$BIN/graph-normalize" -c $model -a $acc -V t=2,sp=1,e=4,b=8 -o "$tmp/fold2.csv" || exit 1
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^context_/) z[i] = 1; print; next }
	{ for (i in z) $i = 0; print }' "$tmp/fold2.csv" > "$tmp/nokv2.csv"
sed 's/ t="1" sp="0" e="8" / t="2" sp="1" e="4" /' "$tmp/split.xml" > "$tmp/split2.xml"
sed 's/ t="1" sp="0" e="8" / t="2" sp="1" e="4" /' "$tmp/fold.xml" > "$tmp/fold2.xml"
price split2 "$tmp/split2.csv" split2.out
price fold2 "$tmp/nokv2.csv" nokv2.out
[ "$(attr "$tmp/split2.out" result step_s)" = "$(attr "$tmp/nokv2.out" result step_s)" ] ||
    say "t 2 sp e 4: split step $(attr "$tmp/split2.out" result step_s), the fold without its exchange $(attr "$tmp/nokv2.out" result step_s)"

# a search over both splits finds the split here (the fold's exchange is
# dear), and is at least as fast as one over the folds alone, a subset
for ep in both fold; do
	"$BIN/graph-normalize" -D "$tmp/s-$ep" -V t=1,c=1,b=1,ep=$ep -c $model -a $acc \
	    -o "$tmp/s-$ep/index.csv" &&
	"$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 -o "$tmp/s-$ep.xml" "$tmp/s-$ep/index.csv" ||
	    say "the search over $ep failed"
done
[ "$(attr "$tmp/s-both.xml" parallelism ep_batch)" = 1 ] || say "the search over both splits chose a fold"
awk -v a="$(attr "$tmp/s-both.xml" result throughput_samples_per_s)" \
    -v f="$(attr "$tmp/s-fold.xml" result throughput_samples_per_s)" 'BEGIN { exit !(a >= f) }' ||
    say "the search over both splits is slower than over the folds"

# -D lists both splits unless told
"$BIN/graph-normalize" -D "$tmp/all" -V t=1,c=1 -c $model -a $acc -o "$tmp/all.csv" || say "-D failed"
head -n 1 "$tmp/all.csv" | grep -q ',ep_batch$' || say "-D: no ep_batch column"
grep -q '^b8-t1-sp0-e8-c1-epb.csv,1,8,1,0,8,8,1$' "$tmp/all.csv" ||
    say "-D: no split of e 8 at b 1 a rank: $(grep epb "$tmp/all.csv" | head -n 3)"
grep -q '^b8-t1-sp0-e8-c1.csv,1,8,1,0,8,8,0$' "$tmp/all.csv" || say "-D: no fold of e 8 at b 8"

# refusals: one line, exit 1 (bad input) or 2 (usage)
refuse() {	# name want-rc want-message command...
	name=$1 rc=$2 msg=$3
	shift 3
	"$@" > /dev/null 2> "$tmp/err"
	got=$?
	[ "$got" = "$rc" ] || say "$name: exit $got, not $rc"
	grep -q -- "$msg" "$tmp/err" || say "$name: no '$msg' in: $(cat "$tmp/err")"
}
printf 'file\nfold.csv\n' > "$tmp/foldonly.csv"
refuse "split plan, no graph" 1 "no graph given for the variant t=1 e=8 c=1 sp=0 b=8 ep_batch=1" \
    "$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 -E "$tmp/split.xml" "$tmp/foldonly.csv"
plan two ' ep_batch="2"'
refuse "ep_batch 2" 1 "ep_batch: 2 is not 0 or 1" \
    "$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 -E "$tmp/two.xml" "$tmp/index.csv"
refuse "split beside c" 1 "a batch split of the experts needs c = 1" \
    "$BIN/graph-normalize" -c $model -a $acc -V t=1,e=2,c=2,ep=batch -o "$tmp/bad.csv"
refuse "split at e 1" 2 "it needs e > 1" \
    "$BIN/graph-normalize" -c $model -a $acc -V t=1,ep=batch -o "$tmp/bad.csv"
refuse "both for one graph" 2 "with -D only" \
    "$BIN/graph-normalize" -c $model -a $acc -V e=2,ep=both -o "$tmp/bad.csv"
refuse "unknown split" 2 "ep=sideways is not fold, batch or both" \
    "$BIN/graph-normalize" -c $model -a $acc -V e=2,ep=sideways -o "$tmp/bad.csv"
[ -e "$tmp/bad.csv" ] && say "a refused graph was written"
# a layer graph that says it splits by samples beside context parallelism
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "c") k = i; print; next } { $k = 2; print }' \
    "$tmp/split.csv" > "$tmp/badc.csv"
refuse "split graph with c 2" 1 "column 'ep_batch': a batch split needs" \
    "$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 "$tmp/badc.csv"
# ... or that exchanges keys and values anyway
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "context_all_gather_bytes") k = i; print; next }
	$1 == -1 { $k = 1000 } { print }' "$tmp/split.csv" > "$tmp/badkv.csv"
refuse "split graph with a key/value exchange" 1 "badkv.csv:2: column 'context_all_gather_bytes': 1000 bytes" \
    "$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 "$tmp/badkv.csv"
# ... or names the split without the variant
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^(t|e|c|sp|micro_batch_samples)$/) z[i] = 1 }
	{ o = ""; for (i = 1; i <= NF; i++) if (!(i in z)) o = o (o == "" ? "" : ",") $i; print o }' \
    "$tmp/split.csv" > "$tmp/bare.csv"
refuse "ep_batch without the variant" 1 "column 'ep_batch' without the variant's columns" \
    "$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 "$tmp/bare.csv"
# a split's fold: only beside a split, below e and dividing it, one graph
plan lonefold ' ep_fold="2"'
refuse "a fold without a split" 1 "ep_fold: 2 without ep_batch 1" \
    "$BIN/dpsolve" -a $acc -n $net -N 128 -B 1024 -E "$tmp/lonefold.xml" "$tmp/index.csv"
refuse "fold 3 of 8" 2 "fold=3 does not divide e=8" \
    "$BIN/graph-normalize" -c $model -a $acc -V t=1,e=8,ep=batch,fold=3 -o "$tmp/bad.csv"
refuse "fold 8 of 8" 1 "a divisor of e = 8 below it" \
    "$BIN/graph-normalize" -c $model -a $acc -V t=1,e=8,ep=batch,fold=8 -o "$tmp/bad.csv"
refuse "a fold under -D" 2 "with ep=batch, without -D" \
    "$BIN/graph-normalize" -D "$tmp/nod" -c $model -a $acc -V ep=batch,fold=2 -o "$tmp/nod.csv"
exit $fail
