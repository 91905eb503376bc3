#!/bin/sh
# plot.sh - the paper's figures from the results tables, with gnuplot.
#
#   sh tools/plot.sh FIGURE results-dir plots-dir [model]
#
# FIGURE is fig5, fig6, fig7, table4, validate, validate-heldout or placement; each writes
# plots/FIGURE.png and plots/FIGURE.svg (placement: one pair per model).
#
#   sh tools/plot.sh sweep TABLE plots-dir X Y
#
# A sweep's table (make sweep): per model, NAME-MODEL (throughput heat maps,
# X across, Y up, one panel a cluster size and value of the other
# parameters) and NAME-MODEL-plans (the plan that wins in each cell).
#
#   sh tools/plot.sh gantt TIMELINE plots-dir NAME
#
# A pipesim timeline (-t): plots/NAME.png and .svg, a Gantt chart of the
# step, one row a stage, each pass a bar from its start to its end
# (forward blue, backward vermilion, a split weights' gradient green, a
# later chunk lighter; an overlapped pair split across its row).
# awk turns the results CSV (no quoted fields in the columns read here)
# into gnuplot data blocks; every method keeps one colour in every plot
# (a published baseline of the artifact tables takes its counterpart's:
# the two never share a plot).
set -eu

[ $# -ge 3 ] || { echo "usage: plot.sh FIGURE results-dir plots-dir [model] | sweep TABLE plots-dir X Y | gantt TIMELINE plots-dir NAME" >&2; exit 2; }
fig=$1
res=$2
out=$3
. "$(dirname "$0")/output.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f "$out"/*.tmp.$$' EXIT
trap 'exit 1' INT TERM HUP

# Okabe-Ito colours (readable by colour-blind readers and in grey print).
palette() {
	cat <<'EOF'
colour(m) = m eq "manual" ? 0xE69F00 : m eq "manual-published" ? 0x999999 : \
    m eq "mcmc" || m eq "mcmc-published" ? 0x56B4E9 : \
    m eq "phaze" || m eq "phaze-published" ? 0x009E73 : \
    m eq "alpa-like" || m eq "alpa-e-published" ? 0xCC79A7 : \
    m eq "mist-like" ? 0xD55E00 : m eq "nest" ? 0x0072B2 : \
    m eq "nest-artifact-input" ? 0xF0E442 : 0x000000
EOF
}

# Methods of a table, in the order they first appear.
methods() {
	awk -F, 'NR > 1 && !seen[$5]++ { printf "%s ", $5 }' "$1"
}

# One data block: rows = values of column $3 (devices or mbs), columns =
# the methods' column $4 (speedup or throughput) for model $2; $6 (0: no
# bar) where a method has no ok plan.
block() {
	awk -F, -v model="$2" -v key="$3" -v val="$4" -v methods="$5" \
	    -v none="${6:-0}" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$2 == model {
		k = $(col[key])
		if (!(k in seenk)) { seenk[k] = 1; keys[++nk] = k }
		x = $(col[val])
		if (val == "solve_s" && x < 0.001) x = 0.001	# log scale
		v[k, $5] = ($16 == "ok" && x != "") ? x : none
	}
	END {
		n = split(methods, m, " ")
		for (i = 1; i <= nk; i++) {
			line = keys[i]
			for (j = 1; j <= n; j++)
				line = line " " ((keys[i], m[j]) in v ? v[keys[i], m[j]] : none)
			print line
		}
	}' "$1"
}

# Draw a figure body twice: PNG, then SVG (multiplot cannot replot).
render() {
	name=$1
	out_check plot "$out/$name.png" "$out/$name.svg"
	w=${2%,*}
	h=${2#*,}
	{
		for t in "pngcairo:png" "svg:svg"; do
			echo "reset"
			echo "set terminal ${t%:*} size $w,$h font 'Sans,11' noenhanced"
			echo "set output '$out/$name.${t#*:}.tmp.$$'"
			cat "$3"
			grep -q multiplot "$3" && echo "unset multiplot"
			echo "set output"
		done
	} > "$tmp/$name.gp"
	gnuplot "$tmp/$name.gp"
	out_commit plot "$out/$name.png"
	out_commit plot "$out/$name.svg"
}

# A sweep's heat maps.  Per model: the panels (cluster size and the
# parameters off the axes), in table order; per panel a grid of cells,
# coloured by throughput relative to the best of the model's cluster size
# (or by which plan won), labelled with the throughput and the plan.
# Relative throughput is against the best of the model, accelerator and
# cluster size.
sweep_maps() {
	table=$1 xname=$2 yname=$3
	sweep=$(awk -F, 'NR == 2 { print $1; exit }' "$table")
	# "tick" lines: each axis value's index; then a line a point: model,
	# panel, x index, y index, relative throughput, plan colour, samples/s,
	# plan
	awk -F, -v OFS='\t' -v xn="$xname" -v yn="$yname" '
	# first pass: which columns change (a single accelerator, say, is
	# not a panel)
	FNR == NR { if (FNR > 1) for (i = 3; i <= NF; i++) if (!seen[i, $i]++) nval[i]++
		next }
	FNR == 1 {
		for (i = 1; i <= NF; i++) { col[$i] = i; head[i] = $i }
		for (i = 3; i < col["network"]; i++)
			if ($i != xn && $i != yn && nval[i] > 1) other[++no] = i
		next
	}
	{
		panel = ""
		for (k = 1; k <= no; k++)
			panel = panel (k > 1 ? ", " : "") (head[other[k]] == "devices" ? \
			    $(other[k]) " devices" : head[other[k]] == "accelerator" ? \
			    $(other[k]) : head[other[k]] " " $(other[k]))
		if (panel == "") panel = $(col["accelerator"])
		xv = $(col[xn]); yv = $(col[yn])
		if (!(xv in xi)) { xi[xv] = nx++; print "tick", "x", xi[xv], xv }
		if (!(yv in yi)) { yi[yv] = ny++; print "tick", "y", yi[yv], yv }
		plan = $(col["plan"])
		if (!(($2, plan) in pid)) pid[$2, plan] = np[$2]++
		# the plan on two lines, split at the word nearest its middle,
		# so that a cell holds it at a readable size
		nw = split(plan, w, " "); half = int((nw + 1) / 2)
		a = ""; b = ""
		for (i = 1; i <= nw; i++)
			if (i <= half) a = a (i > 1 ? " " : "") w[i]
			else b = b (i > half + 1 ? " " : "") w[i]
		print $2, panel, xi[xv], yi[yv], $(col["relative_throughput"]), \
		    pid[$2, plan] % 8, sprintf("%.0f", $(col["throughput_samples_per_s"])), plan, a, b
	}' "$table" "$table" > "$tmp/sweep.tsv"
	xtics=$(awk -F'\t' '$1 == "tick" && $2 == "x" { printf "%s\"%s\" %s", n++ ? ", " : "", $4, $3 }' "$tmp/sweep.tsv")
	ytics=$(awk -F'\t' '$1 == "tick" && $2 == "y" { printf "%s\"%s\" %s", n++ ? ", " : "", $4, $3 }' "$tmp/sweep.tsv")
	for model in $(awk -F'\t' '$1 != "tick" && !seen[$1]++ { print $1 }' "$tmp/sweep.tsv"); do
		awk -F'\t' -v m="$model" '$1 == m && !seen[$2]++ { print $2 }' \
		    "$tmp/sweep.tsv" > "$tmp/panels"
		n=$(wc -l < "$tmp/panels")
		cols=$(( n < 2 ? n : 2 ))
		rows=$(( (n + cols - 1) / cols ))
		for kind in throughput plans; do
			k=0
			{
				echo "set datafile separator '\t'"
				echo "set xtics ($xtics)"
				echo "set ytics ($ytics)"
				echo "set xlabel '$xname'"
				echo "set ylabel '$yname'"
				echo "set tics scale 0"
				echo "unset key"
				if [ $kind = throughput ]; then
					lo=$(awk -F'\t' -v m="$model" '$1 == m && (lo == "" || $5 < lo) { lo = $5 } END { lo = int(lo * 10) / 10; printf "%.1f", lo < 1 ? lo : 0 }' "$tmp/sweep.tsv")
					echo "set palette defined (0 '#fff5eb', 0.5 '#fdd0a2', 0.8 '#fd8d3c', 1 '#d94801')"
					echo "set cbrange [$lo:1]"
					echo "set cblabel 'throughput / best at this cluster size'"
					echo "set multiplot layout $rows,$cols title '$sweep: $model, throughput (samples/s) and the plan' font ',13'"
				else
					echo "unset colorbox"
					echo "set palette maxcolors 8"
					echo "set palette defined (0 '#E69F00', 1 '#56B4E9', 2 '#009E73', 3 '#F0E442', 4 '#0072B2', 5 '#D55E00', 6 '#CC79A7', 7 '#999999')"
					echo "set cbrange [-0.5:7.5]"
					nplans=$(awk -F'\t' -v m="$model" '$1 == m && !seen[$8]++ { n++ } END { print n + 0 }' "$tmp/sweep.tsv")
					colours="one colour a plan"
					[ "$nplans" -gt 8 ] && colours="$nplans plans in 8 colours: the labels tell them apart"
					echo "set multiplot layout $rows,$cols title '$sweep: $model, the plan that wins ($colours)' font ',13'"
				fi
				while IFS= read -r panel; do
					k=$((k + 1))
					awk -F'\t' -v OFS='\t' -v m="$model" -v p="$panel" \
					    '$1 == m && $2 == p { print $3, $4, $5, $6, $7, $8, $9, $10 }' \
					    "$tmp/sweep.tsv" > "$tmp/panel$k.dat"
					echo "set title '$panel'"
					if [ $kind = throughput ]; then
						echo "plot '$tmp/panel$k.dat' using 1:2:3 with image, '' using 1:2:5 with labels offset 0,1.1 font ',11', '' using 1:2:7 with labels offset 0,-0.2 font ',9', '' using 1:2:8 with labels offset 0,-1.2 font ',9'"
					else
						echo "plot '$tmp/panel$k.dat' using 1:2:4 with image, '' using 1:2:7 with labels offset 0,0.5 font ',10', '' using 1:2:8 with labels offset 0,-0.5 font ',10'"
					fi
				done < "$tmp/panels"
			} > "$tmp/$model-$kind.body"
			suffix=$([ $kind = plans ] && echo -plans || true)
			render "$sweep-$model$suffix" "$((cols * 700)),$((rows * 520))" "$tmp/$model-$kind.body"
		done
	done
}

# Grouped bars: one panel per model (or per model and devices).
bars() {
	table=$1 name=$2 key=$3 val=$4 ylabel=$5 xlabel=$6 size=$7 logy=$8
	title=$9
	shift 9
	ms=$(methods "$table")
	none=0
	[ "$logy" = log ] && none=NaN
	n=$#
	cols=$(( n < 3 ? n : 3 ))
	rows=$(( (n + cols - 1) / cols ))
	{
		palette
		echo "set style data histograms"
		echo "set style histogram clustered gap 1"
		echo "set style fill solid 0.9 border rgb 'black'"
		echo "set boxwidth 0.9"
		echo "set grid ytics lc rgb '#dddddd'"
		# the key right of each panel, clear of the bars, naming only the
		# methods the panel draws
		echo "set key outside right top vertical Left reverse font ',9' samplen 1.5"
		echo "set ylabel '$ylabel'"
		echo "set xlabel '$xlabel'"
		[ "$logy" = log ] && echo "set logscale y"
		[ "$logy" = log ] || echo "set yrange [0:*]"
		echo "set multiplot layout $rows,$cols title '$title' font ',13'"
		for p in "$@"; do
			model=${p%@*}
			sel=${p#*@}
			if [ "$sel" = "$p" ]; then
				block "$table" "$model" "$key" "$val" "$ms" $none > "$tmp/$p.dat"
				echo "set title '$model'"
			else
				awk -F, -v d="$sel" 'NR == 1 || $3 == d' "$table" > "$tmp/sel.csv"
				block "$tmp/sel.csv" "$model" "$key" "$val" "$ms" $none \
				    > "$tmp/$p.dat"
				echo "set title '$model, $sel devices'"
			fi
			i=2
			printf "plot"
			for m in $ms; do
				# drawn: some value above the axis's floor
				if awk -v c="$i" -v scale="$logy" '$c != "NaN" && $c > (scale == "log" ? 0.001 : 0) { f = 1 } END { exit !f }' "$tmp/$p.dat"; then
					t="title '$m'"
				else
					t=notitle
				fi
				printf " '%s' using %d:xtic(1) %s lc rgb colour('%s'),\\\\\n" \
				    "$tmp/$p.dat" "$i" "$t" "$m"
				i=$((i + 1))
			done
			echo "    NaN notitle"
		done
	} > "$tmp/$name.body"
	render "$name" "$size" "$tmp/$name.body"
}

# Models with at least one ok row, in table order (a panel of nothing but
# missing bars says less than its absence; the table keeps every row).
models_of() {
	awk -F, 'NR > 1 && $16 == "ok" && !seen[$2]++ { printf "%s ", $2 }' "$1"
}

# Devices of each pipeline stage of a model's NEST plan at 1024 devices,
# grouped by node (a column of 8) and leaf switch (vertical rules).
placement() {
	model=$1
	plan=$2
	row=$(awk -F, -v m="$model" '$2 == m && $3 == 1024 && $5 == "nest"' \
	    "$res/fig5.csv")
	d=$(echo "$row" | cut -d, -f7)
	p=$(echo "$row" | cut -d, -f6)
	[ -n "$d" ] && [ -s "$plan" ] || return 0
	awk -F, -v d="$d" -v node=8 -v total=1024 '
	NR == 1 { next }
	{ first[$1] = $6; n[$1] = $5; R += $5; S = $1 + 1 }
	END {
		for (x = 0; x < total; x++) stage[x] = -1
		for (r = 0; r < d; r++)
			for (s = 0; s < S; s++)
				for (k = 0; k < n[s]; k++)
					stage[r * R + first[s] + k] = s
		for (x = 0; x < total; x++)
			print int(x / node), x % node, stage[x]
	}' "$plan" > "$tmp/place.dat"
	# a discrete key: a colour a stage (viridis, sampled), grey for the
	# unused devices where there are any, a tic a stage (every few when
	# there are many)
	unused=$(awk '$3 < 0 { n++ } END { print n + 0 }' "$tmp/place.dat")
	keys=$(awk -v p="$p" -v unused="$unused" 'BEGIN {
		split("68 1 84 59 82 139 33 145 140 94 201 98 253 231 37", v, " ")
		step = p > 16 ? int((p + 15) / 16) : 1
		pal = ""; tics = ""; n = 0
		if (unused) { pal = "0 \047#bbbbbb\047"; tics = "\"unused\" -1"; n = 1 }
		for (k = 0; k < p; k++) {
			# (from a tenth to nine tenths of the scale: its
			# ends are near black and a pale yellow)
			x = 4 * (p > 1 ? 0.1 + 0.8 * k / (p - 1) : 0.5)
			i = int(x); if (i > 3) i = 3; f = x - i
			r = v[3 * i + 1] + f * (v[3 * i + 4] - v[3 * i + 1])
			g = v[3 * i + 2] + f * (v[3 * i + 5] - v[3 * i + 2])
			b = v[3 * i + 3] + f * (v[3 * i + 6] - v[3 * i + 3])
			pal = pal (n ? ", " : "") n " \047" sprintf("#%02x%02x%02x", r, g, b) "\047"
			if (k % step == 0 || k == p - 1)
				tics = tics (tics != "" ? ", " : "") "\"" k "\" " k
			n++
		}
		printf "set palette maxcolors %d\n", (n > 1 ? n : 2)
		if (n == 1)	# one colour: defined needs two points
			pal = pal ", 1 " substr(pal, index(pal, " ") + 1)
		printf "set palette defined (%s)\n", pal
		printf "set cbrange [%s:%s]\n", unused ? -1.5 : -0.5, p - 0.5
		printf "set cbtics (%s) scale 0\n", tics
	}')
	{
		echo "set title '$model: NEST plan on 1024 devices ($p stages x $d replicas$([ "$unused" -gt 0 ] && echo '; grey: unused'))'"
		echo "set xlabel 'node (8 devices each); rules: leaf switches of 4 nodes'"
		echo "set ylabel 'device in node'"
		echo "set xrange [-0.5:127.5]"
		echo "set yrange [-0.5:7.5]"
		echo "set xtics 16"
		echo "set ytics 1"
		echo "set cblabel 'pipeline stage' offset 1.5,0"
		echo "$keys"
		i=4
		while [ $i -lt 128 ]; do
			echo "set arrow from $i - 0.5, -0.5 to $i - 0.5, 7.5 nohead lc rgb 'white' lw 2 front"
			i=$((i + 4))
		done
		echo "plot '$tmp/place.dat' using 1:2:3 with image notitle"
	} > "$tmp/place.body"
	render "placement-$model" "1400,360" "$tmp/place.body"
}

# the artifact tables (make artifact) say so in every title
note=
case $res in
*artifact) note=" - artifact cost model, published plans" ;;
esac

mkdir -p "$out"
case $fig in
fig5)
	bars "$res/fig5.csv" fig5 devices speedup \
	    "speedup over Manual at the fewest devices (x)" devices 1500,900 lin \
	    "Figure 5: TPUv4-like fat-tree, micro-batch 1, global batch 4096$note" \
	    $(models_of "$res/fig5.csv")
	;;
fig6)
	panels=
	for m in $(models_of "$res/fig6.csv"); do
		for n in 256 512; do panels="$panels $m@$n"; done
	done
	bars "$res/fig6.csv" fig6 mbs throughput_samples_per_s \
	    "throughput (samples/s)" "micro-batch size (samples)" 1500,900 lin \
	    "Figure 6 and 11: micro-batch size on the TPUv4-like fat-tree$note" \
	    $panels
	;;
fig7)
	bars "$res/fig7.csv" fig7 devices speedup \
	    "speedup over Manual at 128 GPUs (x)" "GPUs" 1500,900 lin \
	    "Figure 7: H100 spine-leaf, micro-batch 1, global batch 4096$note" \
	    $(models_of "$res/fig7.csv")
	;;
table4)
	panels=
	for m in $(models_of "$res/table4.csv"); do panels="$panels $m"; done
	bars "$res/table4.csv" table4 devices solve_s \
	    "planner run time (s, log scale)" devices 1500,900 log \
	    "Table 4: planner run time on this machine, H100 spine-leaf" $panels
	;;
validate|validate-heldout)	# predicted against measured step time, one point a run
	# a label under its point, and under the labels of earlier runs
	# within 20% of it (the small runs' step times nearly coincide); one
	# colour a source (the run's name up to its first '-': sc21, k22)
	awk -F, 'NR > 1 && $1 == "measured" { ly = $4 * 0.9
		for (i = 1; i <= n; i++)
			if ($3 < 1.2 * x[i] && $3 > x[i] / 1.2 && y[i] * 0.9 < ly)
				ly = y[i] * 0.9
		src = $2; sub(/-.*/, "", src)
		x[++n] = $3; y[n] = ly; print $3, $4, $2, ly, src }' \
	    "$res/$fig.csv" > "$tmp/validate.dat"
	# both axes over every point and label, with a margin
	range=$(awk 'NR == 1 { lo = hi = $1 }
		{ for (i = 1; i <= 4; i++) if (i != 3) { if ($i < lo) lo = $i; if ($i > hi) hi = $i } }
		END { printf "%g:%g", lo / 1.4, hi * 2 }' "$tmp/validate.dat")
	{
		if [ "$fig" = validate ]; then
			echo "set title 'make validate: the model against published runs, one point a run'"
		else
			echo "set title 'make validate-heldout: the model against held-out runs (partly published plans, another runtime)'"
		fi
		echo "set logscale xy"
		echo "set xlabel 'measured step time (s)'"
		echo "set ylabel 'predicted step time (s)'"
		echo "set key top left"
		echo "set grid"
		echo "set xrange [$range]"
		echo "set yrange [$range]"
		echo "plot x * 1.15 with filledcurves y1 = 0 fs solid 0.15 lc rgb '#0072B2' notitle, \\"
		echo "  x / 1.15 with filledcurves y1 = 0 fs solid 1.0 lc rgb 'white' notitle, \\"
		echo "  x with lines lc rgb '#000000' title 'y = x (band: +/-15%)', \\"
		k=0
		for src in $(awk '{ print $5 }' "$tmp/validate.dat" | sort -u); do
			colour=$(echo "#D55E00 #009E73 #CC79A7 #E69F00 #56B4E9" |
			    cut -d' ' -f$((k % 5 + 1)))
			pt=$((7 + 2 * (k % 3)))
			awk -v s="$src" '$5 == s' "$tmp/validate.dat" > "$tmp/validate-$k.dat"
			echo "  '$tmp/validate-$k.dat' using 1:2 with points pt $pt ps 1.2 lc rgb '$colour' title '$src', \\"
			k=$((k + 1))
		done
		echo "  '$tmp/validate.dat' using 1:4:3 with labels offset 1,0 left font 'Sans,8' notitle"
	} > "$tmp/validate.body"
	render "$fig" "1000,800" "$tmp/validate.body"
	;;
gantt)	# $2: a pipesim timeline; $4: the chart's name
	[ $# -ge 4 ] || { echo "plot.sh: gantt needs TIMELINE plots-dir NAME" >&2; exit 2; }
	# an overlapped pair (DualPipe's F&B, column 7): its forward pass in
	# the row's upper half, its backward pass in the lower
	awk -F, 'NR == 1 { if ($0 != "stage,chunk,micro_batch,pass,start_s,end_s,overlapped") bad = 1; next }
		{ y = $1; h = 0.4
		  if ($7 == 1) { h = 0.2; y += $4 == "forward" ? -0.2 : 0.2 }
		  print ($5 + $6) / 2, y, ($6 - $5) / 2, $2, h > (dir "/" $4 ".dat")
		  if ($1 + 1 > S) S = $1 + 1; if ($2 + 1 > v) v = $2 + 1
		  if ($6 > end) end = $6; if ($3 + 1 > m) m = $3 + 1 }
		END { if (bad || NR < 2) exit 1; print S, v, m, end > (dir "/shape") }' \
	    dir="$tmp" "$res" ||
	    { echo "plot.sh: $res: not a pipesim timeline" >&2; exit 1; }
	read -r S v m end < "$tmp/shape"
	touch "$tmp/forward.dat" "$tmp/backward.dat"
	{
		echo "set title '$4: one step simulated by pipesim, $S stages of $v model chunk(s), $m micro-batches: the last pass ends at $(printf %.4g "$end") s'"
		echo "set xlabel 'time (s)'"
		echo "set ylabel 'pipeline stage'"
		echo "set yrange [$S - 0.5:-0.5]"
		echo "set xrange [0:$end]"
		echo "set ytics 1"
		echo "set key outside top right"
		# a chunk's shade: the pass's colour mixed with white, more for
		# later chunks (column 4: the chunk)
		echo "shade(c, r, g, b) = int(r + (255 - r) * 0.5 * c / $v) * 65536 + int(g + (255 - g) * 0.5 * c / $v) * 256 + int(b + (255 - b) * 0.5 * c / $v)"
		echo "plot '$tmp/forward.dat' using 1:2:3:5:(shade(\$4, 0, 114, 178)) with boxxyerror fs solid 1.0 noborder lc rgb variable title 'forward', \\"
		# the weights' gradients only where a schedule splits them
		if [ -s "$tmp/weight.dat" ]; then
			echo "  '$tmp/backward.dat' using 1:2:3:5:(shade(\$4, 213, 94, 0)) with boxxyerror fs solid 1.0 noborder lc rgb variable title 'backward', \\"
			echo "  '$tmp/weight.dat' using 1:2:3:5:(shade(\$4, 0, 158, 115)) with boxxyerror fs solid 1.0 noborder lc rgb variable title 'weights (W)'"
		else
			echo "  '$tmp/backward.dat' using 1:2:3:5:(shade(\$4, 213, 94, 0)) with boxxyerror fs solid 1.0 noborder lc rgb variable title 'backward'"
		fi
	} > "$tmp/gantt.body"
	render "$4" "1400,$((160 + 40 * S))" "$tmp/gantt.body"
	;;
sweep)	# $2: the sweep's table; $4, $5: the heat maps' axes
	sweep_maps "$res" "$4" "$5"
	;;
placement)	# one model ($4), or every model of fig5
	for m in ${4:-$(models_of "$res/fig5.csv")}; do
		placement "$m" "build/rows/fig5/$m/1024/b1/nest.plan.csv"
	done
	;;
*)
	echo "plot.sh: unknown figure '$fig'" >&2
	exit 2
	;;
esac
