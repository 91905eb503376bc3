#!/bin/sh
# Check that the Debian packages nestplan builds, tests and plots with are
# present.  Run by make before the first compile.  As root, missing ones are
# installed (without their Recommends: the project needs none of them) and
# every check runs again; otherwise we stop with the one apt-get line to run.
#   usage: tools/deps.sh [cc]
#          tools/deps.sh --check
#          tools/deps.sh --signature
#
# --check: the packages only make check uses, for the Slurm test of make
# sweep ENGINE=slurm (tests/sweep/020-slurm.sh): installed as root; for
# anyone else a note with the apt-get line, and the test is skipped.
#
# Each package is looked for the way the build uses it: the compiler and
# gnuplot as commands, libxml2 through pkg-config, libc, libcsv, GLPK and
# jansson (no .pc file needed) by compiling and linking a test program.  A
# test compile needs a compiler, so while there is none those packages are
# looked up in dpkg's own record instead: every package is checked, whatever
# the machine has at the start.  Exit 0 only when every check passes.
set -u

# apt-get install $missing, without Recommends; a fresh system may have no
# package lists yet: update once and retry.  Exits 1 naming $line.
apt_install() {
	get() {
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		    --no-install-recommends $missing >&2
	}
	get || { apt-get update -q >&2 && get; } ||
	    { echo "deps: '$line' failed" >&2; exit 1; }
}

if [ "${1:-}" = --check ]; then
	missing=""
	for c in munged:munge slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client; do
		command -v "${c%%:*}" >/dev/null 2>&1 || missing="$missing ${c#*:}"
	done
	[ -z "$missing" ] && exit 0
	line="apt-get install -y --no-install-recommends$missing"
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "deps: the Slurm test of make check will be skipped; as root: $line" >&2
		exit 0
	fi
	echo "deps: installing, for make check's Slurm test:$missing" >&2
	# no daemon is started: the test runs its own
	apt_install
	exit 0
fi
CC=${1:-cc}
PACKAGES="gcc libc6-dev make pkg-config libxml2-dev libcsv-dev libglpk-dev libjansson-dev gnuplot-nox"

# --signature: what dpkg records of those packages (name, version,
# state), so make rechecks when one of them changes, not when any
# package does (make check installs Slurm's)
if [ "$CC" = --signature ]; then
	command -v dpkg-query >/dev/null 2>&1 &&
	    dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev}\n' \
	    $PACKAGES 2>/dev/null
	exit 0
fi

have_cmd() { command -v "$1" >/dev/null 2>&1; }

installed() {	# package: dpkg says it is installed
	have_cmd dpkg-query &&
	    dpkg-query -W -f '${Status}\n' "$1" 2>/dev/null |
	    grep -q ' installed$'
}

links() {	# header, symbol, library flags...: a test program builds
	header=$1 symbol=$2
	shift 2
	printf '#include <%s>\nint main(void){ (void)%s; return 0; }\n' \
	    "$header" "$symbol" |
	    "$CC" -x c - -o /dev/null "$@" >/dev/null 2>&1
}

present() {	# package: the build will find what it needs of it
	case $1 in
	gcc) have_cmd "$CC" ;;
	make) have_cmd make ;;
	pkg-config) have_cmd pkg-config ;;
	libxml2-dev) have_cmd pkg-config && pkg-config --exists libxml-2.0 ;;
	gnuplot-nox) have_cmd gnuplot ;;
	libc6-dev | libcsv-dev | libglpk-dev | libjansson-dev)
		have_cmd "$CC" || { installed "$1"; return; }
		case $1 in
		libc6-dev) links stdio.h printf ;;
		libcsv-dev) links csv.h csv_init -lcsv ;;
		libglpk-dev) links glpk.h glp_create_prob -lglpk ;;
		libjansson-dev) links jansson.h json_loads -ljansson ;;
		esac ;;
	esac
}

missing_packages() {
	list=""
	for p in $PACKAGES; do
		present "$p" || list="$list $p"
	done
	echo "$list"
}

missing=$(missing_packages)
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ] || ! have_cmd apt-get; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root, then make again:" >&2
	echo "  $line" >&2
	exit 1
fi

echo "deps: installing:$missing" >&2
apt_install

# The compiler may have arrived only now: check everything once more.
missing=$(missing_packages)
if [ -n "$missing" ]; then
	echo "deps: still missing after installing:$missing" >&2
	echo "deps: (CC=$CC; the checks are in tools/deps.sh)" >&2
	exit 1
fi
exit 0
