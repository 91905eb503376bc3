#!/bin/sh
# dpsolve -k N, the runner-ups, in every format (t-dp checks the ranks
# against enumeration): -k 1 is the plan alone, byte for byte; with -k 6
# the plan is the same, the XML adds five <runner_up>s ranked 2-6 with
# steps not below the plan's and rising, layouts (t, sp, e, c, micro-batch,
# d, p, virtual stages) all different, each fitting the memory it
# states; -E reads that file back to the same plan; the CSV's rank column
# runs 1..6 over each plan's stages; the summary's table has six rows
# whose steps are the XML's; -f megatron is the plan's launch with the
# table as comments.  -k 0, -k 101 and -k with -E are usage errors.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "$*"; fail=1; }
for b in 1 2; do
	"$BIN/graph-normalize" -D "$tmp/b$b" -V b=$b -a configs/accelerators/h100-80gb.xml \
	    -c configs/models/llama2-7b.xml -o "$tmp/b$b/index.csv" || exit 1
done
run() {
	"$BIN/dpsolve" -A configs/models/llama2-7b.xml -a configs/accelerators/h100-80gb.xml \
	    -n configs/networks/spineleaf-h100-128.xml -N 64 -B 256 "$@" \
	    "$tmp/b1/index.csv" "$tmp/b2/index.csv"
}
run -f xml -o "$tmp/one.xml" || exit 1
run -k 1 -f xml -o "$tmp/k1.xml" || exit 1
cmp -s "$tmp/one.xml" "$tmp/k1.xml" || say "-k 1 is not the plan alone"
run -k 6 -f xml -o "$tmp/k6.xml" -c "$tmp/k6.csv" || exit 1
# the plan itself unchanged: k6.xml without its runner-ups is one.xml
grep -v '<runner_up ' "$tmp/k6.xml" | cmp -s - "$tmp/one.xml" ||
    say "-k 6 changed the plan"
awk -v mem=0 '
function attr(name,   r) {
	r = $0; if (!sub(".* " name "=\"", "", r)) return ""; sub(/".*/, "", r); return r
}
/<plan / { cap = attr("device_memory_bytes") }
/<result / { first = attr("step_s") }
/<runner_up / {
	n++
	if (attr("rank") != n + 1) { print "rank " attr("rank") " in place " n + 1; bad = 1 }
	s = attr("step_s")
	if (s + 0 < first + 0 || s + 0 < last + 0) { print "rank " n + 1 ": step " s " below " (last ? last : first); bad = 1 }
	last = s
	key = attr("t") "," attr("sp") "," attr("e") "," attr("c") "," attr("micro_batch_samples") "," attr("d") "," attr("p") "," attr("virtual_stages")
	if (key in seen) { print "rank " n + 1 ": layout " key " again"; bad = 1 }
	seen[key] = 1
	if (attr("peak_memory_bytes") + 0 > cap + 0 || attr("fits") != "yes") { print "rank " n + 1 ": does not fit"; bad = 1 }
	steps = steps " " s
}
/<parallelism / {
	key = attr("t") "," attr("sp") "," attr("e") "," attr("c") ",'"$(sed -n 's/.*micro_batch_samples="\([0-9]*\)".*/\1/p' "$tmp/one.xml" | head -n 1)"'," attr("d") "," attr("p") "," attr("virtual_stages")
	seen[key] = 1
}
END {
	if (n != 5) { print n " runner-ups, want 5"; bad = 1 }
	print first steps > "'"$tmp/steps"'"
	exit bad
}' "$tmp/k6.xml" || fail=1
run -E "$tmp/k6.xml" -f xml -o "$tmp/back.xml" || say "-E cannot read a file with runner-ups"
cmp -s "$tmp/back.xml" "$tmp/one.xml" || say "-E of the -k file is not the plan"
awk -F, 'NR == 1 { if ($1 != "rank") { print "no rank column"; bad = 1 }; next }
	{ if ($1 < last) { print "ranks out of order"; bad = 1 }; last = $1; seen[$1] = 1 }
	END { for (k = 1; k <= 6; k++) if (!(k in seen)) { print "no stages of rank " k; bad = 1 }; exit bad }' \
	"$tmp/k6.csv" || fail=1
run -k 6 -f summary > "$tmp/s.txt" || exit 1
awk '/^ *[0-9]+ +[0-9.e+-]+ +[0-9.]+% / { printf "%s%s", n++ ? " " : "", $2 } END { print "" }' \
    "$tmp/s.txt" > "$tmp/table"
awk '{ for (i = 1; i <= NF; i++) printf("%s%.4g", (i > 1 ? " " : ""), $i); print "" }' \
    "$tmp/steps" | cmp -s - "$tmp/table" ||
    say "the summary's steps ($(cat "$tmp/table")) are not the XML's ($(cat "$tmp/steps"))"
run -k 6 -f megatron > "$tmp/launch.sh" || exit 1
run -f megatron | cmp -s - "$tmp/launch.sh" && say "-k 6 -f megatron has no table"
run -f megatron | grep -v '^# ' > "$tmp/body1"
grep -v '^# ' "$tmp/launch.sh" | cmp -s - "$tmp/body1" || say "-k 6 changed the launch"
for bad in "-k 0" "-k 101" "-k 2 -E $tmp/one.xml"; do
	# shellcheck disable=SC2086
	run $bad -o "$tmp/x" 2> "$tmp/err"
	[ $? -eq 2 ] || say "dpsolve $bad: not a usage error"
	[ -e "$tmp/x" ] && say "dpsolve $bad: wrote its output"
done
[ $fail -eq 0 ] || cat "$tmp/s.txt"
exit $fail
