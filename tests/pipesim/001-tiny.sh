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
refused 2 "-x both" $opts -x both -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
refused 2 "-t and -o one file" $opts -t "$tmp/x.csv" -o "$tmp/x.csv" -p tests/pipesim/tiny-plan.xml tests/dpsolve/tiny.csv
exit $fail
