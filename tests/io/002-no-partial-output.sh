# With -o, a failing run leaves neither the output nor a temporary file,
# and does not clobber an existing output; a good run replaces it whole.
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
echo keep > "$d/out.csv"
"$BIN/memmodel" -M 1 -o "$d/out.csv" -s tests/memmodel/stages-unknown.csv \
    tests/memmodel/layers.csv 2>/dev/null && { echo "memmodel: bad input accepted"; fail=1; }
[ "$(cat "$d/out.csv")" = keep ] || { echo "memmodel: output clobbered"; fail=1; }
"$BIN/cost-matrix" -o "$d/new.csv" tests/configs/bad/network/zero-bandwidth.xml 2>/dev/null
[ -e "$d/new.csv" ] && { echo "cost-matrix: partial output left"; fail=1; }
"$BIN/config-check" -o "$d/cc.csv" configs/models/llama2-7b.xml \
    tests/configs/bad/model/truncated.xml 2>/dev/null
[ -e "$d/cc.csv" ] && { echo "config-check: partial output left"; fail=1; }
ls "$d" | grep -q tmp && { echo "temporary file left: $(ls "$d")"; fail=1; }
"$BIN/cost-matrix" -o "$d/out.csv" tests/cost-matrix/tiny.xml || fail=1
cmp -s "$d/out.csv" tests/cost-matrix/001-tiny-by-hand.out ||
    { echo "cost-matrix -o: wrong content"; fail=1; }
"$BIN/cost-matrix" -o "$d/nodir/x.csv" tests/cost-matrix/tiny.xml 2> "$d/err"
[ $? -eq 1 ] && grep -q "cannot open" "$d/err" ||
    { echo "unwritable -o: $(cat "$d/err")"; fail=1; }
# a symbolic link is written through, not replaced (-o /dev/stderr)
ln -s "$d/target.csv" "$d/link.csv"
"$BIN/cost-matrix" -o "$d/link.csv" tests/cost-matrix/tiny.xml || fail=1
[ -L "$d/link.csv" ] || { echo "-o replaced a symbolic link"; fail=1; }
cmp -s "$d/target.csv" tests/cost-matrix/001-tiny-by-hand.out ||
    { echo "-o through a link: wrong content"; fail=1; }
exit $fail
