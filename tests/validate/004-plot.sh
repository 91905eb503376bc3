# make validate's plot (tools/plot.sh validate), drawn from a runs table of
# four runs whose places are known without the plot.  On log axes with the
# same range, a run priced r times its measured step lies k log r pixels
# above the y = x line at its measured step, for one k: the run priced
# exactly lies on the line, the runs priced 30% slow and 30% fast as far
# above as below it, the run 15% slow on the edge of the shaded band, and
# log 1.3 / log 1.15 as far above the line as that one.  One point a run
# (and a key sample) in its source's colour (the run's name up to its first
# '-'), every run labelled, the memory row not drawn, a PNG beside the SVG.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/results" "$tmp/plots"
{
	echo "kind,run,published,predicted,unit,error_pct"
	echo "measured,aa-exact,2,2,step_s,0.00"
	echo "measured,aa-slow,20,26,step_s,30.00"
	echo "measured,bb-fast,5,3.84615384615,step_s,-23.08"
	echo "measured,bb-edge,0.5,0.575,step_s,15.00"
	echo "memory,cc-memory,120,120,GB,0.00"
} > "$tmp/results/validate.csv"
sh tools/plot.sh validate "$tmp/results" "$tmp/plots" || exit 1
[ "$(head -c 8 "$tmp/plots/validate.png" | od -An -tx1 | tr -d ' \n')" = \
    89504e470d0a1a0a ] || { echo "plots/validate.png is not a PNG"; exit 1; }
# What the SVG draws, a line each: "text GROUP words", "point GROUP x y",
# "line x y" (the y = x path after its key sample), "band x y" (the first
# polygon: the band's upper edge between its two bottom corners).
awk '
/<g id="gnuplot_plot_/ { g++ }
/<text>/ { t = $0; sub(/.*<text>/, "", t); sub(/<\/text>.*/, "", t)
	print "text", g, t; if (t ~ /^y = x/) yx = g }
/<use xlink:href=.#gpPt/ { s = $0; sub(/.*translate\(/, "", s); sub(/\).*/, "", s)
	sub(/,/, " ", s); print "point", g, s }
/<polygon/ && !poly { poly = 1; s = $0; sub(/.*points = ./, "", s); inpoly = 1 }
inpoly { if (poly == 2) s = $0; poly = 2
	end = s ~ /\/>/; sub(/.\/>.*/, "", s); n = split(s, f, " ")
	for (i = 1; i <= n; i++) { sub(/,/, " ", f[i]); print "band", f[i] }
	if (end) inpoly = 0 }
g == yx && yx && /[ML][0-9]/ { s = $0; sub(/.*d=./, "", s); sub(/.\/>.*/, "", s)
	n = split(s, f, " ")
	for (i = 1; i <= n; i++) { if (f[i] ~ /^M/) moves++
		if (moves >= 2) { c = f[i]; sub(/^[ML]/, "", c); sub(/,/, " ", c); print "line", c } } }
' "$tmp/plots/validate.svg" > "$tmp/drawn"
awk '
$1 == "text" { text[$2] = text[$2] " " $3; if ($3 ~ /^(aa|bb|cc)-/) label[$3] = 1 }
$1 == "point" { n[$2]++; px[$2, n[$2]] = $3; py[$2, n[$2]] = $4 }
$1 == "line" { lx[++nl] = $2; ly[nl] = $3 }
$1 == "band" { bx[++nb] = $2; by[nb] = $3 }
function above(x, y) { return ly[1] + (x - lx[1]) * (ly[nl] - ly[1]) / (lx[nl] - lx[1]) - y }
function near(a, b, what) { if (a - b > 1 || b - a > 1) { printf "%s: %.2f px, not %.2f\n", what, a, b; bad = 1 } }
END {
	for (k in text) { if (text[k] == " aa") ga = k; if (text[k] == " bb") gb = k }
	if (nl < 2 || nb < 6 || !ga || !gb) { print "no y = x line, band or key entry a source"; exit 1 }
	if (n[ga] != 3 || n[gb] != 3) { print "points (and key sample) of aa and bb: " n[ga] ", " n[gb] ", not 3 and 3"; bad = 1 }
	split("aa-exact aa-slow bb-fast bb-edge", runs, " ")
	for (i = 1; i <= 4; i++) if (!(runs[i] in label)) { print runs[i] ": no label"; bad = 1 }
	if ("cc-memory" in label || n[gb + 1] > 0) { print "the memory row is drawn"; bad = 1 }
	exact = above(px[ga, 1], py[ga, 1]); slow = above(px[ga, 2], py[ga, 2])
	fast = above(px[gb, 1], py[gb, 1]); edge = above(px[gb, 2], py[gb, 2])
	# the band edge above the line at the edge run: its upper edge is
	# straight too, through two of its inner points
	i = int(nb / 3); j = int(2 * nb / 3)
	bandy = by[i] + (px[gb, 2] - bx[i]) * (by[j] - by[i]) / (bx[j] - bx[i])
	near(exact, 0, "aa-exact above the line")
	near(slow, -fast, "aa-slow above the line against bb-fast below it")
	near(py[gb, 2], bandy, "bb-edge against the band edge")
	near(slow, edge * log(1.3) / log(1.15), "aa-slow above the line")
	if (slow < 20) { print "aa-slow only " slow " px above the line"; bad = 1 }
	exit bad
}' "$tmp/drawn"
