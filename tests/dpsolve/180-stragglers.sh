#!/bin/sh
# The expected slowest device (dpsolve and pipesim -J; docs/model.md,
# "Stragglers"), against closed forms worked out here:
# - a table of three devices, one 1.5x the others: the slowest of N is
#   1.5 - 0.5 (2/3)^N; one device, 7/6: tests/dpsolve/tiny.csv on one
#   device, 8 micro-batches of 0.09 s, is 8 * 0.09 / 6 = 0.12 s slower,
#   its optimizer step (memory traffic) unchanged; on the 4 devices of
#   tiny-net, the plan's straggler_factor 1.5 - 0.5 (16/81); a plan read
#   back at another -N, or without -J, is priced with a warning;
# - the measured table data/variability/sgemm-v100-longhorn.csv over
#   Llama 3 8B's two stages on 64 H100s: each stage's compute_s times
#   the expected slowest of 64 drawn from it (summed here from the file
#   itself), its collectives and transfers unchanged; pipesim -J prices
#   the same plan slower by at least its micro-batches' compute's growth;
# - refused with their file and line, nothing written: a table in
#   seconds, a table with no relative_time, a device of time 0.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/plan-checks.sh
step_of() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	NR == 2 { print $c["step_s"] }' "$1"; }

printf 'device,relative_time\na,1\nb,1.5\nc,1\n' > "$tmp/three.csv"
tiny() {
	"$BIN/dpsolve" -a configs/accelerators/tpuv4.xml \
	    -n tests/dpsolve/tiny-net.xml -B 8 "$@" tests/dpsolve/tiny.csv
}
tiny -N 1 -o "$tmp/one.xml" && tiny -N 1 -J "$tmp/three.csv" \
    -o "$tmp/one-j.xml" || exit 1
a=$(attr "$tmp/one.xml" result step_s)
b=$(attr "$tmp/one-j.xml" result step_s)
close "$(calc "$b - $a")" 0.12 1e-9 ||
    say "one device: $b - $a s, not 8 * 0.09 / 6 = 0.12 s"
f=$(attr "$tmp/one-j.xml" plan straggler_factor)
close "$f" "$(calc "7 / 6")" 1e-9 || say "one device: factor $f, not 7/6"
[ -z "$(attr "$tmp/one.xml" plan straggler_factor)" ] ||
    say "a plan priced without -J names a straggler factor"
# read back: the same -N and -J price it again without a word; another
# -N, or no -J, says so on standard error
"$BIN/dpsolve" -a configs/accelerators/tpuv4.xml -n tests/dpsolve/tiny-net.xml \
    -B 8 -N 1 -J "$tmp/three.csv" -E "$tmp/one-j.xml" -o "$tmp/again.xml" \
    tests/dpsolve/tiny.csv 2> "$tmp/err" || exit 1
[ ! -s "$tmp/err" ] || say "the same -N and -J: $(cat "$tmp/err")"
[ "$(attr "$tmp/again.xml" result step_s)" = "$b" ] ||
    say "read back with -J: step $(attr "$tmp/again.xml" result step_s), not $b"
for j in "-J $tmp/three.csv" ""; do
	"$BIN/pipesim" -a configs/accelerators/tpuv4.xml \
	    -n tests/dpsolve/tiny-net.xml -B 8 $j -p "$tmp/one-j.xml" \
	    -o "$tmp/sim.csv" tests/dpsolve/tiny.csv 2> "$tmp/err" || exit 1
	grep -q "straggler_factor 1.16667" "$tmp/err" ||
	    say "pipesim ${j:-without -J} over the network's 4 devices: no word of the plan's factor"
done
tiny -N 4 -J "$tmp/three.csv" -o "$tmp/four-j.xml" || exit 1
f=$(attr "$tmp/four-j.xml" plan straggler_factor)
close "$f" "$(calc "1.5 - 0.5 * 16 / 81")" 1e-9 ||
    say "four devices: factor $f, not 1.5 - 0.5 (2/3)^4"

# Llama 3 8B, TP 2, PP 2, DP 16 on 64 H100s, with the measured table
speeds=data/variability/sgemm-v100-longhorn.csv
acc=configs/accelerators/h100-80gb.xml
net=configs/networks/spineleaf-h100-128.xml
"$BIN/graph-normalize" -D "$tmp/g" -a $acc -c configs/models/llama3-8b.xml \
    -V b=1,t=2,c=1 -o "$tmp/g/index.csv" || exit 1
graph=$tmp/g/index.csv
cat > "$tmp/plan.xml" <<EOF
<plan micro_batch_samples="1">
<parallelism d="16" t="2" sp="1" e="1" c="1" recompute="0" virtual_stages="1" distributed_optimizer="1" overlap_grad_reduce="1" overlap_param_gather="0" ends_in_pipeline_split="0" tp_comm_overlap="0"/>
<stage first_layer="-1" last_layer="15" zero_stage="0" zero_degree="1"/>
<stage first_layer="16" last_layer="32" zero_stage="0" zero_degree="1"/>
</plan>
EOF
for j in "" j; do
	set -- ${j:+-J $speeds}
	"$BIN/dpsolve" -a $acc -n $net -N 64 -B 256 -X none "$@" \
	    -E "$tmp/plan.xml" -o "$tmp/e$j.xml" "$graph" &&
	"$BIN/pipesim" -a $acc -n $net -N 64 -B 256 "$@" \
	    -p "$tmp/plan.xml" -o "$tmp/s$j.csv" "$graph" || exit 1
done
want=$(sed 1d $speeds | awk -F, '{ print $4 }' | sort -g | awk -v N=64 '
	{ x[++n] = $1 } END { for (k = 1; k <= n; k++)
		s += x[k] * ((k / n) ^ N - ((k - 1) / n) ^ N); printf "%.17g", s }')
f=$(attr "$tmp/ej.xml" plan straggler_factor)
close "$f" "$want" 1e-9 || say "64 devices of $speeds: factor $f, want $want"
for i in 0 1; do
	for what in compute_s collective_s p2p_in_s p2p_out_s; do
		a=$(stage "$tmp/e.xml" $i $what)
		b=$(stage "$tmp/ej.xml" $i $what)
		if [ $what = compute_s ]; then
			close "$b" "$(calc "$a * $want")" 1e-9 ||
			    say "stage $i: compute $b s, not $want x $a s"
		else
			close "$b" "$a" 1e-12 ||
			    say "stage $i: $what moved under -J ($a -> $b s)"
		fi
	done
done
s=$(step_of "$tmp/s.csv")
sj=$(step_of "$tmp/sj.csv")
m=$(attr "$tmp/e.xml" result microbatches)
grow=$(calc "($want - 1) * $m * $(stage "$tmp/e.xml" 0 compute_s)")
awk -v s="$s" -v sj="$sj" -v g="$grow" 'BEGIN { exit !(sj - s >= g * (1 - 1e-9)) }' ||
    say "pipesim: $s s -> $sj s under -J, less than the growth of $m micro-batches' compute ($grow s)"

# refusals: one line naming the file, line and column; exit 1; no plan
printf 'device,relative_time\na,2.41\nb,2.38\nc,2.45\n' > "$tmp/seconds.csv"
printf 'device,time_s\na,1\n' > "$tmp/nocol.csv"
printf 'device,relative_time\na,1\nb,0\nc,1\n' > "$tmp/zero.csv"
for bad in "seconds:$tmp/seconds.csv:1: column 'relative_time': the median is 2.41, not 1" \
    "nocol:$tmp/nocol.csv:1: missing column 'relative_time'" \
    "zero:$tmp/zero.csv:3: column 'relative_time'"; do
	name=${bad%%:*}
	msg=${bad#*:}
	tiny -N 1 -J "$tmp/$name.csv" -o "$tmp/bad.xml" 2> "$tmp/err"
	rc=$?
	[ $rc = 1 ] || say "$name: exit $rc, not 1"
	[ ! -e "$tmp/bad.xml" ] || say "$name: a plan written"
	grep -qF "$msg" "$tmp/err" || say "$name: '$(cat "$tmp/err")' does not say '$msg'"
	[ "$(wc -l < "$tmp/err")" = 1 ] || say "$name: more than one line"
done
exit $fail
