#!/bin/sh
# Add up TAP files into the closing line "N passed, N failed"; exit 1 on
# any failure (or when a file is missing: a suite that did not run failed).
#   usage: tests/summary.sh file.tap...
pass=0
fail=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "# missing $f" >&2
		fail=$((fail + 1))
		continue
	fi
	p=$(grep -c '^ok ' "$f")
	q=$(grep -c '^not ok ' "$f")
	pass=$((pass + p))
	fail=$((fail + q))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
