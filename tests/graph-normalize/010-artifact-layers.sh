# Profiled path: for every graph of the artifact export, the per-layer
# parameter and activation bytes equal the artifact's layers.csv exactly,
# the sequential times equal fwd_seq_ms / bwd_seq_ms (to the 12 digits we
# print), and the layer edges equal layer_edges.csv exactly.
set -u
A=${ARTIFACT:-../shared/nest-artifact}
[ -f "$A/index.csv" ] || { echo "no artifact export at $A"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
graphs=0
for g in $(awk -F, 'NR > 1 { print $1 "/" $2 }' "$A/index.csv"); do
	case ${g#*/} in
	bertlarge_*|megatronbert_*) m=bertlarge ;;
	llama2_*) m=llama2-7b ;;
	llama3_*) m=llama3-70b ;;
	megatrongpt3_*) m=gpt3-175b ;;
	mixtral_*) m=mixtral-8x7b ;;
	*) echo "$g: unknown model"; fail=1; continue ;;
	esac
	graphs=$((graphs + 1))
	if ! "$BIN/graph-normalize" -c "configs/models/$m.xml" -e "$tmp/e.csv" \
	    -o "$tmp/l.csv" "$A/$g"; then
		fail=1; continue
	fi
	# layers.csv columns 2, 6, 7, 9, 10: layer_id, parameterSize_bytes,
	# activationSize_bytes, fwd_seq_ms, bwd_seq_ms (the quoted column
	# with commas comes after them)
	awk -F, -v g="$g" '
	FNR == 1 { next }
	NR == FNR { p[$1] = $6; a[$1] = $7; f[$1] = $4; b[$1] = $5; n++; next }
	{
		id = $2; m++
		if (!(id in p)) { print g ": layer " id " missing"; bad = 1; next }
		if (p[id] != $6 || a[id] != $7) {
			print g ": layer " id " bytes " p[id] "," a[id] " want " $6 "," $7
			bad = 1
		}
		if (!close_(f[id] * 1000, $9) || !close_(b[id] * 1000, $10)) {
			print g ": layer " id " times " f[id] * 1000 "," b[id] * 1000 \
			    " want " $9 "," $10
			bad = 1
		}
	}
	function close_(x, y,  d) {
		d = x - y; if (d < 0) d = -d
		return d <= 1e-11 * (y < 0 ? -y : y) + 1e-15
	}
	END {
		if (n != m) { print g ": " n " layers, want " m; bad = 1 }
		exit bad
	}' "$tmp/l.csv" "$A/$g/layers.csv" || fail=1
	tail -n +2 "$tmp/e.csv" | sort > "$tmp/mine"
	tail -n +2 "$A/$g/layer_edges.csv" | tr -d '\r' | sort > "$tmp/want"
	cmp -s "$tmp/mine" "$tmp/want" ||
	    { echo "$g: layer edges differ"; diff "$tmp/want" "$tmp/mine" | head -5; fail=1; }
done
[ $graphs -ge 40 ] || { echo "only $graphs graphs"; fail=1; }
exit $fail
