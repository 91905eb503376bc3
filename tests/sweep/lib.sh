# Shared by the sweep tests (sourced): run make sweep on tests/sweep/tiny.xml
# with every output under the test's own folder.
#   sweep_make DIR [make arguments...]
# DIR gets results/, build/, plots/ and layers/; make runs in the
# repository (whose tools are built), free of the outer make's flags.
sweep_make() {
	out=$1
	shift
	MAKEFLAGS= MAKELEVEL= MFLAGS= make --no-print-directory \
	    SWEEP=tiny SWEEP_CONFIG=tests/sweep/tiny.xml \
	    SWEEP_RESULTS="$out/results" SWEEP_BUILD="$out/build" \
	    SWEEP_PLOTS="$out/plots" SWEEP_LAYERS="$out/layers" "$@"
}

# The outputs that must not depend on how the points were run: the table,
# every plan, every neighbour pricing, every network.
sweep_outputs() {
	( cd "$1" && find results build/tiny/net build/tiny/eval -type f \
	    -name '*.csv' -o -type f -name '*.xml' | LC_ALL=C sort )
}

# Byte-identical outputs of two runs: every file of the first in the
# second, the same bytes, and no file more.
sweep_same() {
	sweep_outputs "$1" > "$1.list"
	sweep_outputs "$2" > "$2.list"
	cmp -s "$1.list" "$2.list" ||
	    { echo "different files:"; diff "$1.list" "$2.list"; return 1; }
	while IFS= read -r f; do
		cmp "$1/$f" "$2/$f" || return 1
	done < "$1.list"
}
