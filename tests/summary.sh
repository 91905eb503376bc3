#!/bin/sh
# Add up TAP files into the closing line "N passed, N failed" (and ", N
# skipped", each named in the TAP above it); exit 1 on
# any failure (or when a file is missing: a suite that did not run failed).
#   usage: tests/summary.sh file.tap...
pass=0
fail=0
skip=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "# missing $f" >&2
		fail=$((fail + 1))
		continue
	fi
	p=$(grep -c '^ok ' "$f")
	q=$(grep -c '^not ok ' "$f")
	k=$(grep -c '^ok .* # SKIP' "$f")
	skip=$((skip + k))
	pass=$((pass + p - k))
	fail=$((fail + q))
done
echo "$pass passed, $fail failed${skip:+}$([ "$skip" -gt 0 ] && echo ", $skip skipped")"
[ "$fail" -eq 0 ]
