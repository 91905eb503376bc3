# pipesim on tests/pipesim/tiny-plan.xml (tests/dpsolve/tiny.csv's two
# layers as two stages, two replicas, 8 micro-batches), worked out by hand:
# stage 0 runs 10 + 20 ms a micro-batch, stage 1 20 + 40 ms, the boundary
# 1e6 bytes one way at 1 GB/s and 1 us (1.001 ms).  As Megatron-LM runs
# 1F1B (the default, -x hold), a send holds its stage: stage 0 is held
# 10 + 1.001 + 20 ms a micro-batch, stage 1 20 + 40 + 1.001; the first
# micro-batch goes through and back in 11.001 + 20 + 41.001 + 20 = 92.002
# ms, and stage 1 takes 61.001 ms for each of the 7 others: stage 0's
# last backward pass ends at 519.009 ms, stage 1's 20 ms before; each is
# busy 8 micro-batches of what it holds (248.008 and 488.008 ms).  With
# -x overlap the transfers run beside compute: 10 + 1.001 + 20 + 40 +
# 1.001 + 20 = 92.002 ms, 7 x 60 more: 512.002 and 491.001 ms, busy 240
# and 480.  The step is the later of each stage's end and its own exposed
# reduction after it; the closed form is dpsolve -E's step, above both.
# Stage 0 holds 2 micro-batches' activations, stage 1 one (1F1B's S - r).
# With -t, 32 passes, drawn by plot.sh gantt.  Refused: -u without
# interleaving, a plan with ZeRO copies, no -p, a bad -s or -x, -t and -o
# one file.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
opts="-a configs/accelerators/tpuv4.xml -n tests/dpsolve/tiny-net.xml -B 16"
"$BIN/dpsolve" $opts -E tests/pipesim/tiny-plan.xml -o "$tmp/e.xml" tests/dpsolve/tiny.csv ||
    { echo "dpsolve -E failed"; exit 1; }
closed=$(sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$tmp/e.xml")
check() {	# what end0 end1 busy0 busy1 [pipesim options]
	what=$1 e0=$2 e1=$3 b0=$4 b1=$5
	shift 5
	"$BIN/pipesim" $opts "$@" -p tests/pipesim/tiny-plan.xml -t "$tmp/tl.csv" \
	    -o "$tmp/s.csv" tests/dpsolve/tiny.csv || { echo "$what: pipesim failed"; fail=1; return; }
	awk -F, -v closed="$closed" -v what="$what" -v e0="$e0" -v e1="$e1" -v b0="$b0" -v b1="$b1" '
	function near(a, b) { return a - b < 1e-9 && b - a < 1e-9 }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		s = $c["stage"]; end[s] = $c["end_s"]; sync[s] = $c["sync_s"]
		busy[s] = $c["busy_s"]; peak[s] = $c["peak_activation_chunks"]
		step = $c["step_s"]; cf = $c["closed_form_step_s"]; n++
		if (!near($c["idle_s"] + $c["busy_s"] + $c["sync_s"], step)) { print what ": stage " s ": busy, idle and its reduction are not the step"; bad = 1 }
		if ($c["fits"] != "yes") { print what ": stage " s ": does not fit"; bad = 1 }
	}
	END {
		if (n != 2) { print what ": " n " stages"; exit 1 }
		if (!near(end[0], e0) || !near(end[1], e1)) { print what ": ends " end[0] ", " end[1] ", not " e0 ", " e1; bad = 1 }
		if (!near(busy[0], b0) || !near(busy[1], b1)) { print what ": busy " busy[0] ", " busy[1] ", not " b0 ", " b1; bad = 1 }
		want = end[0] + sync[0] > end[1] + sync[1] ? end[0] + sync[0] : end[1] + sync[1]
		if (!near(step, want)) { print what ": step " step ", not the later stage end and reduction " want; bad = 1 }
		if (cf != closed) { print what ": closed form " cf ", dpsolve -E " closed; bad = 1 }
		if (!(step < cf)) { print what ": the simulated step " step " is not under the closed form " cf; bad = 1 }
		if (peak[0] != 2 || peak[1] != 1) { print what ": peaks " peak[0] ", " peak[1]; bad = 1 }
		exit bad
	}' "$tmp/s.csv" || fail=1
}
check "overlap" 0.512002 0.491001 0.24 0.48 -x overlap
check "hold" 0.519009 0.499009 0.248008 0.488008
[ "$(($(wc -l < "$tmp/tl.csv") - 1))" -eq 32 ] || { echo "timeline: $(wc -l < "$tmp/tl.csv") lines"; fail=1; }
head -n 1 "$tmp/tl.csv" | grep -qx 'stage,chunk,micro_batch,pass,start_s,end_s,overlapped' ||
    { echo "timeline header: $(head -n 1 "$tmp/tl.csv")"; fail=1; }

# its Gantt chart (tools/plot.sh gantt): a PNG and an SVG; a file that is
# no timeline refused
mkdir "$tmp/plots"
sh tools/plot.sh gantt "$tmp/tl.csv" "$tmp/plots" tiny > "$tmp/out" 2>&1 &&
    [ -s "$tmp/plots/tiny.png" ] && grep -q '<svg' "$tmp/plots/tiny.svg" ||
    { echo "gantt: $(cat "$tmp/out")"; fail=1; }
sh tools/plot.sh gantt "$tmp/s.csv" "$tmp/plots" bad > /dev/null 2>&1 &&
    { echo "gantt: the stages' CSV drawn as a timeline"; fail=1; }
[ ! -e "$tmp/plots/bad.png" ] || { echo "gantt: a refused chart written"; fail=1; }

# ZB-H1 (-s zbh1) with each stage's weights' gradient half its backward
# pass (a weight_gradient_s column of 10 and 20 ms), transfers beside
# compute: stage 1 runs F0 11.001-31.001, B0 -51.001, F1 -71.001, B1
# -91.001, then W0 (one slot late) -111.001, and from F2 on (stage 0's
# F2 long arrived) 60 ms a micro-batch without a wait: F7 411.001, B7
# -451.001, W6, W7 -491.001.  Stage 0 runs B7 1.001 ms after stage 1's,
# W7 to 472.002 (1F1B's 512.002: its B7 waits there for stage 1's last
# backward pass, which ZB-H1 has run ahead of stage 1's W6 and W7).
# Both hold two micro-batches until their W (1F1B: two and one).
awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "weight_gradient_s"; next }
    { print $0, $4 / 2 }' tests/dpsolve/tiny.csv > "$tmp/split.csv"
"$BIN/pipesim" $opts -s zbh1 -x overlap -p tests/pipesim/tiny-plan.xml \
    -t "$tmp/zb.tl.csv" -o "$tmp/zb.csv" "$tmp/split.csv" || { echo "zbh1: pipesim failed"; fail=1; }
awk -F, 'function near(a, b) { return a - b < 1e-9 && b - a < 1e-9 }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { e[$1] = $c["end_s"]; b[$1] = $c["busy_s"]; p[$1] = $c["peak_activation_chunks"] }
    END { if (!near(e[0], 0.472002) || !near(e[1], 0.491001) || !near(b[0], 0.24) ||
              !near(b[1], 0.48) || p[0] != 2 || p[1] != 2) {
            print "zbh1: ends " e[0] ", " e[1] ", busy " b[0] ", " b[1] ", peaks " p[0] ", " p[1]; exit 1 } }' \
    "$tmp/zb.csv" || fail=1
[ "$(grep -c ',weight,' "$tmp/zb.tl.csv")" -eq 16 ] ||
    { echo "zbh1: $(grep -c ',weight,' "$tmp/zb.tl.csv") W passes in the timeline, not 16"; fail=1; }
sh tools/plot.sh gantt "$tmp/zb.tl.csv" "$tmp/plots" zb > "$tmp/out" 2>&1 &&
    [ -s "$tmp/plots/zb.png" ] || { echo "gantt zbh1: $(cat "$tmp/out")"; fail=1; }

# The same plan searched under ZB-H1 (schedule="zbh1", dpsolve -Y): its
# closed form (plan_step_zbh1) takes the slowest passes of any stage, each
# with one transfer each way over each of its boundaries: F = B = 20 +
# 1.001, W = 20 ms (stage 1's), 8 (F + B + W) + (F + B) - W = 518.018 ms,
# then stage 1's whole reduction (sync_s) with no credit from the drain
# (its gradients wait for the last W pass); stage 1 keeps a second
# micro-batch's activations (stash_bytes 10 MB, 1F1B's 0).  pipesim runs
# the plan's own schedule unless told, ZB-H1 here, under the closed form.
sed 's/virtual_stages="1"/virtual_stages="1" schedule="zbh1"/' tests/pipesim/tiny-plan.xml > "$tmp/zbp.xml"
"$BIN/dpsolve" $opts -E "$tmp/zbp.xml" -o "$tmp/zbp.out.xml" "$tmp/split.csv" ||
    { echo "zbh1 plan: dpsolve -E failed"; fail=1; }
"$BIN/pipesim" $opts -p "$tmp/zbp.xml" -t "$tmp/zbp.tl.csv" -o "$tmp/zbp.csv" "$tmp/split.csv" ||
    { echo "zbh1 plan: pipesim failed"; fail=1; }
zstep=$(sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$tmp/zbp.out.xml")
zsync=$(sed -n 's/.*<result .* sync_s="\([^"]*\)".*/\1/p' "$tmp/zbp.out.xml")
s1sync=$(sed -n 's/.*<stage index="1".* sync_s="\([^"]*\)" sync_total_s.*/\1/p' "$tmp/zbp.out.xml")
stash=$(sed -n 's/.*<stage index="1".* stash_bytes="\([^"]*\)".*/\1/p' "$tmp/zbp.out.xml")
awk -v s="$zstep" -v y="$zsync" -v y1="$s1sync" -v st="$stash" 'BEGIN {
    if (y != y1 || s - 0.518018 - y > 1e-9 || 0.518018 + y - s > 1e-9 || st != 10000000) {
        print "zbh1 plan: step " s ", sync " y " (stage 1: " y1 "), stash " st; exit 1 } }' || fail=1
awk -F, -v closed="$zstep" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { if ($c["peak_activation_chunks"] != 2 || !($c["step_s"] < closed) || $c["closed_form_step_s"] != closed) {
        print "zbh1 plan: pipesim stage " $1 ": peak " $c["peak_activation_chunks"] ", step " $c["step_s"] " against " closed; exit 1 } }' \
    "$tmp/zbp.csv" || fail=1
[ "$(grep -c ',weight,' "$tmp/zbp.tl.csv")" -eq 16 ] || { echo "zbh1 plan: pipesim ran no W passes"; fail=1; }

# With --overlap-grad-reduce each stage's one row fills less than a
# bucket (40M parameters): its one bucket is ready only when its last
# backward pass ends, so all of its reduction is exposed after it (the
# stage's sync_total_s in dpsolve -E), not the closed form's part the
# pass would hide (its sync_s)
sed 's/overlap_grad_reduce="0"/overlap_grad_reduce="1"/' tests/pipesim/tiny-plan.xml > "$tmp/ovl.xml"
"$BIN/dpsolve" $opts -E "$tmp/ovl.xml" -o "$tmp/ovl.out.xml" tests/dpsolve/tiny.csv ||
    { echo "overlap: dpsolve -E failed"; fail=1; }
"$BIN/pipesim" $opts -p "$tmp/ovl.xml" -o "$tmp/ovl.csv" tests/dpsolve/tiny.csv ||
    { echo "overlap: pipesim failed"; fail=1; }
for i in 0 1; do
	total=$(sed -n "s/.*<stage index=\"$i\".* sync_s=\"\([^\"]*\)\" sync_total_s=\"\([^\"]*\)\".*/\1 \2/p" "$tmp/ovl.out.xml")
	awk -F, -v i="$i" -v t="$total" 'NR == 1 { for (k = 1; k <= NF; k++) c[$k] = k; next }
	    $1 == i { split(t, x, " "); s = $c["sync_s"]
	        if (!(x[1] < x[2]) || s - x[2] > 1e-12 || x[2] - s > 1e-12) {
	            print "overlap: stage " i " exposes " s ", not its whole reduction " x[2] " (closed form " x[1] ")"; exit 1 } }' \
	    "$tmp/ovl.csv" || fail=1
done

# With the distributed optimizer and --overlap-param-gather each stage's
# weights are gathered before its first forward pass uses them, as
# Megatron-LM launches the gather without interleaving: a stage's one
# bucket (one row under 40M parameters) when the pass reaches it, so the
# pass waits for all of it.  The gather is half an all-reduce of the
# stage's weights over its two replicas, across the top level (0.1 GB/s):
# stage 0's 1e6 bytes 5 ms and the latency, stage 1's 2e6 bytes 5 ms
# more.  Rank 0's first forward pass ends at 10 + 1.001 ms + its gather,
# rank 1's takes 20 ms + its gather; the later ones are as before.
sed 's/distributed_optimizer="0" overlap_grad_reduce="0" overlap_param_gather="0"/distributed_optimizer="1" overlap_grad_reduce="1" overlap_param_gather="1"/' \
    tests/pipesim/tiny-plan.xml > "$tmp/pg.xml"
"$BIN/pipesim" $opts -p "$tmp/pg.xml" -t "$tmp/pg.tl.csv" -o "$tmp/pg.csv" tests/dpsolve/tiny.csv ||
    { echo "gather: pipesim failed"; fail=1; }
awk -F, 'NR > 1 && $4 == "forward" && $3 <= 1 { d[$1 "," $3] = $6 - $5; e[$1 "," $3] = $6 }
    END { g0 = e["0,0"] - 0.011001; g1 = d["1,0"] - 0.02
        if (!(g0 >= 0.005 && g0 < 0.0051) || (g1 - g0 - 0.005) ^ 2 > 1e-18 ||
            (d["0,1"] - 0.011001) ^ 2 > 1e-18 || (d["1,1"] - 0.02) ^ 2 > 1e-18) {
            print "gather: first forward passes end " e["0,0"] ", take " d["1,0"] "; then " d["0,1"] ", " d["1,1"]; exit 1 } }' \
    "$tmp/pg.tl.csv" || fail=1

refused() {	# want-status what args...
	want=$1 what=$2
	shift 2
	"$BIN/pipesim" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] || { echo "$what: exit $rc, want $want"; fail=1; }
	[ "$(wc -l < "$tmp/err")" -ge 1 ] && [ ! -s "$tmp/out" ] ||
	    { echo "$what: no message, or output written"; fail=1; }
}
refused 1 "-u without interleaving" $opts -u 2 -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
sed 's/last_layer="1" zero_stage="0" zero_degree="1"/last_layer="1" zero_stage="1" zero_degree="2"/; s/ d="2"/ d="1"/' \
    tests/pipesim/tiny-plan.xml > "$tmp/zero.xml"
refused 1 "ZeRO copies" $opts -p "$tmp/zero.xml" tests/dpsolve/tiny.csv
grep -q "ZeRO copies" "$tmp/err" || { echo "ZeRO: $(cat "$tmp/err")"; fail=1; }
refused 2 "no plan" $opts tests/dpsolve/tiny.csv
refused 1 "-s zbh1 without weight_gradient_s" $opts -s zbh1 -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
grep -q "weight_gradient_s" "$tmp/err" || { echo "zbh1: $(cat "$tmp/err")"; fail=1; }
refused 1 "-s zbv on a plan of one chunk a stage" $opts -s zbv -p tests/pipesim/tiny-plan.xml "$tmp/split.csv"
refused 1 "-s dualpipe, 8 micro-batches of which 4 a direction, 2 ranks" $opts -B 14 -s dualpipe -p tests/pipesim/tiny-plan.xml "$tmp/split.csv"
# the same rows twice over, two stages of two chunks (v 2): ZB-V runs it,
# 1F1B and DualPipe (one chunk a stage) refuse it
awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next } { r[NR] = $0 }
    END { for (k = 0; k < 2; k++) for (i = 2; i <= 3; i++) {
        $0 = r[i]; $1 = 2 * k + i - 2; print } }' "$tmp/split.csv" > "$tmp/four.csv"
sed 's/virtual_stages="1"/virtual_stages="2"/; s/ends_in_pipeline_split="0"/ends_in_pipeline_split="1"/
    s/first_layer="0" last_layer="0"/first_layer="0" last_layer="1"/
    s/first_layer="1" last_layer="1"/first_layer="2" last_layer="3"/' \
    tests/pipesim/tiny-plan.xml > "$tmp/v2.xml"
"$BIN/pipesim" $opts -s zbv -p "$tmp/v2.xml" -o "$tmp/zbv.csv" "$tmp/four.csv" ||
    { echo "zbv on two chunks a stage: pipesim failed"; fail=1; }
refused 1 "-s 1f1b on two chunks a stage" $opts -s 1f1b -p "$tmp/v2.xml" "$tmp/four.csv"
refused 1 "-s dualpipe on two chunks a stage" $opts -s dualpipe -p "$tmp/v2.xml" "$tmp/four.csv"
refused 2 "-s fast" $opts -s fast -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
refused 2 "-x both" $opts -x both -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
refused 2 "-t and -o one file" $opts -t "$tmp/x.csv" -o "$tmp/x.csv" -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
exit $fail
