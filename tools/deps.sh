#!/bin/sh
# Check that the Debian packages nestplan builds and runs with are present.
# libxml2 is found through pkg-config; libcsv and GLPK ship no .pc file in
# Debian 12, so their headers and libraries are looked for by compiling a
# test program.  Missing packages are installed when we are root; otherwise
# we stop with the one apt-get line to run.
#   usage: tools/deps.sh [cc]
set -u
CC=${1:-cc}
missing=""

need() { missing="$missing $1"; }

command -v "$CC" >/dev/null 2>&1 || need gcc
command -v pkg-config >/dev/null 2>&1 || need pkg-config
pkg-config --exists libxml-2.0 2>/dev/null || need libxml2-dev
command -v gnuplot >/dev/null 2>&1 || need gnuplot-nox

links() {	# header, function, library
	printf '#include <%s>\nint main(void){ (void)%s; return 0; }\n' "$1" "$2" |
	    "$CC" -x c - -o /dev/null "$3" >/dev/null 2>&1
}
if command -v "$CC" >/dev/null 2>&1; then
	links csv.h csv_init -lcsv || need libcsv-dev
	links glpk.h glp_create_prob -lglpk || need libglpk-dev
fi

[ -z "$missing" ] && exit 0
line="apt-get install -y$missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing:$missing" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2 ||
	    { apt-get update -q >&2 &&
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >&2; } ||
	    { echo "deps: '$line' failed" >&2; exit 1; }
	exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: run as root:  $line" >&2
exit 1
