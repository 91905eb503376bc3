# plan-checks.sh - shell helpers the script cases that read dpsolve's
# plans share (sourced, not run: tests/run.sh runs tests/*/*.sh only).
#   say TEXT...                 print it and mark the case failed
#   attr FILE ELEMENT NAME      the first ELEMENT's attribute NAME
#   stage FILE INDEX NAME       stage INDEX's attribute NAME
#   calc EXPR                   awk's value of EXPR, 17 digits
#   close A B R                 exit 0 when |A - B| <= R |B|
fail=0
say() { echo "$*"; fail=1; }
attr() { sed -n "s/.*<$2 [^>]*$3=\"\\([^\"]*\\)\".*/\\1/p" "$1" | head -n 1; }
stage() { sed -n "s/.*<stage index=\"$2\" [^>]*$3=\"\\([^\"]*\\)\".*/\\1/p" "$1"; }
calc() { awk "BEGIN { printf \"%.17g\", $1 }"; }
close() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d
	s = b < 0 ? -b : b; exit !(d <= r * s) }'; }
