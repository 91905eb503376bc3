# pipesim on tests/pipesim/tiny-plan.xml (tests/dpsolve/tiny.csv's two
# layers as two stages, two replicas, 8 micro-batches), worked out by hand:
# stage 0 runs 10 + 20 ms a micro-batch, stage 1 20 + 40 ms, the boundary
# 1e6 bytes one way at 1 GB/s and 1 us (1.001 ms).  The first micro-batch
# goes through and back in 10 + 1.001 + 20 + 40 + 1.001 + 20 = 92.002
# ms, and stage 1 takes 60 ms for each of the 7 others: stage 0's last
# backward pass ends at 512.002 ms, stage 1's at 491.001 ms; each is busy
# 8 micro-batches of its passes (240 and 480 ms).  The step is the later
# of each stage's end and its own exposed reduction after it; the closed
# form is dpsolve -E's step.  Stage 0 holds 2 micro-batches' activations,
# stage 1 one (1F1B's S - r).  With -t, 32 passes, drawn by plot.sh
# gantt.  Refused: -u without
# interleaving, -s gpipe with it, a plan with ZeRO copies; no -p.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
opts="-a configs/accelerators/tpuv4.xml -n tests/dpsolve/tiny-net.xml -B 16"
"$BIN/pipesim" $opts -p tests/pipesim/tiny-plan.xml -t "$tmp/tl.csv" -o "$tmp/s.csv" \
    tests/dpsolve/tiny.csv || { echo "pipesim failed"; exit 1; }
"$BIN/dpsolve" $opts -E tests/pipesim/tiny-plan.xml -o "$tmp/e.xml" tests/dpsolve/tiny.csv ||
    { echo "dpsolve -E failed"; exit 1; }
closed=$(sed -n 's/.*<result step_s="\([^"]*\)".*/\1/p' "$tmp/e.xml")
awk -F, -v closed="$closed" '
function near(a, b) { return a - b < 1e-9 && b - a < 1e-9 }
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	s = $c["stage"]; end[s] = $c["end_s"]; sync[s] = $c["sync_s"]
	busy[s] = $c["busy_s"]; peak[s] = $c["peak_activation_chunks"]
	step = $c["step_s"]; cf = $c["closed_form_step_s"]; n++
	if (!near($c["idle_s"] + $c["busy_s"] + $c["sync_s"], step)) { print "stage " s ": busy, idle and its reduction are not the step"; bad = 1 }
	if ($c["fits"] != "yes") { print "stage " s ": does not fit"; bad = 1 }
}
END {
	if (n != 2) { print n " stages"; exit 1 }
	if (!near(end[0], 0.512002) || !near(end[1], 0.491001)) { print "ends " end[0] ", " end[1] ", not 0.512002, 0.491001"; bad = 1 }
	if (!near(busy[0], 0.24) || !near(busy[1], 0.48)) { print "busy " busy[0] ", " busy[1]; bad = 1 }
	want = end[0] + sync[0] > end[1] + sync[1] ? end[0] + sync[0] : end[1] + sync[1]
	if (!near(step, want)) { print "step " step ", not the later stage end and reduction " want; bad = 1 }
	if (cf != closed) { print "closed form " cf ", dpsolve -E " closed; bad = 1 }
	if (!(step < cf)) { print "the simulated step " step " is not under the closed form " cf; bad = 1 }
	if (peak[0] != 2 || peak[1] != 1) { print "peaks " peak[0] ", " peak[1]; bad = 1 }
	exit bad
}' "$tmp/s.csv" || fail=1
[ "$(($(wc -l < "$tmp/tl.csv") - 1))" -eq 32 ] || { echo "timeline: $(wc -l < "$tmp/tl.csv") lines"; fail=1; }
head -n 1 "$tmp/tl.csv" | grep -qx 'stage,chunk,micro_batch,pass,start_s,end_s' ||
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
refused 2 "-s fast" $opts -s fast -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
refused 2 "-t and -o one file" $opts -t "$tmp/x.csv" -o "$tmp/x.csv" -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
exit $fail
