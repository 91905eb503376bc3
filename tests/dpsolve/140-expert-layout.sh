# The experts' own layout (issue 34): whole experts beside tensor
# parallelism (expert_t 1, Megatron's --expert-tensor-parallel-size 1)
# and DeepEP's hierarchical dispatch (-H deepep).  DeepSeek-V3 on 2,048
# H800s (8 a node, the nodes at 50 GB/s a GPU, a router group a node's
# experts: 256 experts in 8 groups, a token in 4 of them).
# - A search over the experts split over t and whole is never slower
#   than one over the split alone (a larger space); its plan keeps
#   expert_t through -E, and the launch says EP t e with ETP 1.
# - The hierarchical dispatch sends a token once to each other node it
#   reaches (3.2 of 7 here) where the flat one sends each of its 8 copies:
#   the same plan is faster under -H deepep, a plan records it
#   (deepep="1") and -E prices it as recorded, to the bit; the launch
#   says --moe-token-dispatcher-type flex --moe-enable-deepep.
# - Refused: a plan naming whole experts without their graph, DeepEP over
#   experts split over t (not modelled), DeepEP on a graph that does not
#   record its model's routing, whole experts beside t without sp, -H
#   deepep over an index with no whole experts, -H with -E.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
acc=configs/accelerators/h800-80gb.xml
net=configs/networks/deepseek-h800-16384.xml
model=configs/models/deepseek-v3.xml
say() { echo "$*"; fail=1; }
run() { "$BIN/dpsolve" -a $acc -n $net -N 2048 -B 15360 "$@"; }
step() { sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$1"; }

for v in t=4,sp=1,e=2 t=4,sp=1,e=2,et=1 t=2,sp=1,e=4 t=2,sp=1,e=4,et=1; do
	f=$(echo "$v" | tr ',=' '-_')
	"$BIN/graph-normalize" -c $model -a $acc -V "$v,b=1" -o "$tmp/$f.csv" ||
	    exit 1
done
printf 'file\nt_4-sp_1-e_2.csv\nt_2-sp_1-e_4.csv\n' > "$tmp/split.csv"
printf 'file\nt_4-sp_1-e_2.csv\nt_4-sp_1-e_2-et_1.csv\nt_2-sp_1-e_4.csv\nt_2-sp_1-e_4-et_1.csv\n' \
    > "$tmp/both.csv"
run -o "$tmp/split.xml" "$tmp/split.csv" &&
run -o "$tmp/both.xml" "$tmp/both.csv" || exit 1
awk -v a="$(step "$tmp/both.xml")" -v b="$(step "$tmp/split.xml")" \
    'BEGIN { exit !(a <= b) }' || say "whole experts searched: slower"
grep -q 'expert_t="1"' "$tmp/both.xml" || say "whole experts not chosen here"
run -E "$tmp/both.xml" -o "$tmp/both-e.xml" "$tmp/both.csv" &&
    [ "$(step "$tmp/both-e.xml")" = "$(step "$tmp/both.xml")" ] &&
    grep -q 'expert_t="1"' "$tmp/both-e.xml" || say "-E: whole experts lost"
run -A $model -E "$tmp/both.xml" -f megatron -o "$tmp/both.sh" "$tmp/both.csv" ||
    say "launch failed"
t=$(sed -n 's/.* t="\([0-9]*\)".*/\1/p' "$tmp/both.xml")
e=$(sed -n 's/.* e="\([0-9]*\)".*/\1/p' "$tmp/both.xml")
grep -q -- "--expert-model-parallel-size $((t * e)) " "$tmp/both.sh" &&
    grep -q -- "--expert-tensor-parallel-size 1 " "$tmp/both.sh" ||
    say "launch: not EP $((t * e)) with ETP 1"
# whole experts named, their graph not given
run -E "$tmp/both.xml" -o "$tmp/x.xml" "$tmp/split.csv" 2> "$tmp/err" &&
    say "a plan of whole experts priced without their graph"
grep -q 'expert_t=1' "$tmp/err" || say "unclear: $(cat "$tmp/err")"

# DeepEP: the same plan, dispatched flat and hierarchically
printf 'file\nt_4-sp_1-e_2-et_1.csv\n' > "$tmp/whole.csv"
run -H deepep -o "$tmp/deepep.xml" "$tmp/whole.csv" || exit 1
grep -q 'deepep="1"' "$tmp/deepep.xml" || say "deepep not recorded"
sed 's/ deepep="1"//' "$tmp/deepep.xml" > "$tmp/flat.xml"
run -E "$tmp/flat.xml" -o "$tmp/flat-e.xml" "$tmp/whole.csv" &&
run -E "$tmp/deepep.xml" -o "$tmp/deepep-e.xml" "$tmp/whole.csv" || exit 1
[ "$(step "$tmp/deepep-e.xml")" = "$(step "$tmp/deepep.xml")" ] ||
    say "-E of a DeepEP plan: $(step "$tmp/deepep-e.xml"), searched $(step "$tmp/deepep.xml")"
awk -v a="$(step "$tmp/deepep.xml")" -v b="$(step "$tmp/flat-e.xml")" \
    'BEGIN { exit !(a < b) }' || say "DeepEP no faster than the flat exchange"
run -A $model -H deepep -f megatron -o "$tmp/deepep.sh" "$tmp/whole.csv" || say "DeepEP launch failed"
grep -q -- '--moe-token-dispatcher-type flex ' "$tmp/deepep.sh" &&
    grep -q -- '--moe-enable-deepep ' "$tmp/deepep.sh" ||
    say "DeepEP launch: no flex dispatcher"
grep -q 'cannot run' "$tmp/deepep.sh" && say "DeepEP launch: cannot run"
# experts split over t (expert_t 4): not modelled under DeepEP
sed -e 's/ expert_t="1"//' "$tmp/deepep.xml" > "$tmp/split-deepep.xml"
run -E "$tmp/split-deepep.xml" -o "$tmp/x.xml" "$tmp/split.csv" 2> "$tmp/err" &&
    say "DeepEP over experts split over t priced"
grep -q 'not modelled' "$tmp/err" || say "unclear: $(cat "$tmp/err")"
# a graph without its model's record
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^model/) z[i] = 1 }
	{ s = ""; for (i = 1; i <= NF; i++) if (!(i in z)) s = s (s == "" ? "" : ",") $i; print s }' \
    "$tmp/t_4-sp_1-e_2-et_1.csv" > "$tmp/norecord.csv"
run -H deepep -o "$tmp/x.xml" "$tmp/norecord.csv" 2> "$tmp/err" &&
    say "DeepEP priced without the model's routing"
grep -q 'routing' "$tmp/err" || say "unclear: $(cat "$tmp/err")"
# whole experts beside t 4 without sp: refused as the graph is read
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sp") k = i; print; next }
	{ $k = 0; print }' "$tmp/t_4-sp_1-e_2-et_1.csv" > "$tmp/nosp.csv"
run -o "$tmp/x.xml" "$tmp/nosp.csv" 2> "$tmp/err" && say "whole experts without sp read"
grep -q "column 'expert_t': 1 below t 4 needs sp 1" "$tmp/err" ||
    say "unclear: $(cat "$tmp/err")"
# DeepEP over an index without whole experts: nothing to search, said so
run -H deepep -o "$tmp/x.xml" "$tmp/split.csv" 2> "$tmp/err" &&
    say "DeepEP searched experts split over t"
grep -q 'expert_t 1' "$tmp/err" || say "unclear: $(cat "$tmp/err")"
# -E takes the plan's own dispatch
run -H deepep -E "$tmp/deepep.xml" -o "$tmp/x.xml" "$tmp/whole.csv" 2> /dev/null
[ $? -eq 2 ] || say "-H with -E: not a usage error"
exit $fail
