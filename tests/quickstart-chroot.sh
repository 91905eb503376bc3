#!/bin/sh
# The README's quick start on a bare Debian 12, as a newcomer meets it: a
# fresh minimal system (debootstrap --variant=minbase bookworm), a clone of
# this repository with ../shared beside it, then the README's quick-start
# lines in order, first try, as root.  Not part of make check: it needs root,
# debootstrap, the Debian archive and about 15 minutes.
#
#   usage: sudo sh tests/quickstart-chroot.sh [root|user] [SHARED]
#
#   root  (default) the quick start as root; then a second user clones and
#         runs make and make check; then both clones run make check at once.
#   user  make is the only package root installs; an ordinary user's make
#         must stop with the one apt-get line; root runs that line; the
#         user's make and make check then pass without make clean.
#
# SHARED is the shared/ folder to put beside the clone (default ../shared).
# Environment: MIRROR (default: the first Debian archive in this machine's
# apt sources), BASE_TAR (a tar of a minbase root made before, to skip
# debootstrap), KEEP=1 (keep the chroot for a look).  Only committed work
# is tested (git clone of HEAD).  Exit 0 when every step passes.
set -eu
scenario=${1:-root}
shared=$(cd "${2:-../shared}" && pwd)
top=$(git rev-parse --show-toplevel)
[ "$(id -u)" = 0 ] || { echo "quickstart-chroot: run as root" >&2; exit 2; }
case $scenario in root | user) ;; *)
	echo "usage: quickstart-chroot.sh [root|user] [SHARED]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
root=$work/root
cleanup() {
	umount "$root/proc" 2>/dev/null || true
	if [ "${KEEP:-0}" = 1 ]; then echo "kept: $root"; else rm -rf "$work"; fi
}
trap cleanup EXIT INT TERM

if [ -z "${MIRROR:-}" ]; then
	MIRROR=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' \
	    /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ \
	    { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
fi
mkdir "$root"
if [ -n "${BASE_TAR:-}" ]; then
	tar -C "$root" -xf "$BASE_TAR"
else
	[ -n "${MIRROR:-}" ] ||
	    { echo "quickstart-chroot: no Debian archive: set MIRROR" >&2; exit 2; }
	debootstrap --variant=minbase bookworm "$root" "$MIRROR" > "$work/debootstrap.log" 2>&1 ||
	    { tail -n 20 "$work/debootstrap.log"; exit 1; }
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"	# AddressSanitizer reads /proc/self/maps

# A clone as a newcomer has it, with shared/ beside it (read-only use).
mkdir -p "$root/src"
git clone -q "$top" "$root/src/main"
cp -a "$shared" "$root/src/shared"

# The README's quick-start lines, as .ci/run extracts them.
quickstart=$(sed -n '/^## Quick start/,/^## /p' "$top/README.md" |
    awk '/^```sh$/ { inside = 1; next } /^```$/ { if (inside) exit } inside')

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root DEBIAN_FRONTEND=noninteractive /bin/sh -c "$1"; }
as_user() { chroot --userspec=newcomer:newcomer "$root" /usr/bin/env -i \
    PATH=/usr/bin:/bin HOME=/home/newcomer /bin/sh -c "$1"; }
step() { echo "== $1"; }

if [ "$scenario" = root ]; then
	echo "$quickstart" | while IFS= read -r line; do
		step "root: $line"
		in_root "cd /src/main && $line" || { echo "FAILED: $line"; exit 1; }
	done
else
	step "root: apt-get update && apt-get install -y --no-install-recommends make"
	in_root "apt-get update -q && apt-get install -y -q --no-install-recommends make" > /dev/null
fi

# A second user with a clone of their own (and, for 'user', the first make).
in_root "useradd -m newcomer" 
mkdir -p "$root/home/newcomer"
git clone -q "$top" "$root/home/newcomer/main"
cp -a "$shared" "$root/home/newcomer/shared"
chroot "$root" chown -R newcomer:newcomer /home/newcomer

if [ "$scenario" = user ]; then
	step "newcomer: make (must stop with the apt-get line)"
	if as_user "cd ~/main && make" > "$work/user-make.log" 2>&1; then
		echo "FAILED: make as a user with packages missing exited 0"; exit 1
	fi
	tail -n 3 "$work/user-make.log"
	line=$(sed -n 's/^  \(apt-get install .*\)$/\1/p' "$work/user-make.log")
	[ -n "$line" ] || { echo "FAILED: no apt-get line"; exit 1; }
	step "root: $line"
	in_root "$line" > /dev/null
fi

step "newcomer: make"
as_user "cd ~/main && make" > "$work/user-make.log" 2>&1 ||
    { tail -n 20 "$work/user-make.log"; echo "FAILED: make as newcomer"; exit 1; }

step "root and newcomer: make check, both at once"
[ "$scenario" = root ] || in_root "cd /src/main && make" > "$work/root-make.log" 2>&1
in_root "cd /src/main && make check" > "$work/root-check.log" 2>&1 &
pid=$!
rc_user=0
as_user "cd ~/main && make check" > "$work/user-check.log" 2>&1 || rc_user=$?
rc_root=0
wait $pid || rc_root=$?
tail -n 1 "$work/root-check.log" "$work/user-check.log"
[ $rc_root = 0 ] && [ $rc_user = 0 ] ||
    { echo "FAILED: concurrent make check (root $rc_root, newcomer $rc_user)"; exit 1; }
leftover=$(find "$root/tmp" -mindepth 1 2>/dev/null | head -n 5)
[ -z "$leftover" ] || { echo "FAILED: left in /tmp:"; echo "$leftover"; exit 1; }
echo "quickstart-chroot: $scenario: every step passed"
