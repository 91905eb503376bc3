#!/bin/sh
# sweep-slurm.sh - run a sweep's points as a Slurm job array (make sweep
# ENGINE=slurm), in this checkout, which every node must see at the same
# path (a shared file system).
#
#   sh tools/sweep-slurm.sh sweep.xml NAME RESULTS BUILD MAKE "-o FILE..." VAR=value...
#
# Make has already made what every point needs (sweep-prereqs: the tools,
# the layer graphs, every point's network), so a task writes only its own
# points' files: it runs MAKE with "-o FILE..." (the tools, the Make
# fragments, the dependency stamp: taken as made, never remade on a
# node, whose package set or clock may differ).  The points (bin/sweep -L:
# a point's plan and the plan priced on its neighbours, one line a point)
# go SWEEP_BLOCK to a task (tools/sweep-task.sh).  sbatch --wait returns
# when every task has ended, with the highest exit status; the tasks'
# progress lines are shown as they come.  Then every point must be up to
# date (make -q), or the run fails naming the task logs: the join that
# follows (make sweep ENGINE=local) must not quietly compute a point a
# task failed to make.  An interrupt cancels the job array.  SBATCH_FLAGS
# (partition, account, time) go to sbatch.
set -eu
config=$1 name=$2 results=$3 build=$4 make=$5 keep=$6
shift 6
block=${SWEEP_BLOCK:-4}
case $block in
'' | *[!0-9]* | 0*) echo "sweep: SWEEP_BLOCK=$block: a positive number of points a task" >&2
	exit 2 ;;
esac
command -v sbatch >/dev/null 2>&1 ||
    { echo "sweep: ENGINE=slurm: no sbatch here (Debian: slurm-client)" >&2; exit 1; }
mkdir -p "$build/$name"
# a folder of this run's own: a second run cannot take its task list
dir=$(mktemp -d "$build/$name/slurm.XXXXXX")
bin/sweep -L -R "$results" -B "$build" "$config" > "$dir/points"
# one line a task: SWEEP_BLOCK points' targets
awk -v k="$block" '{ line = line ((NR - 1) % k ? " " : "") $0 }
	NR % k == 0 { print line; line = "" } END { if (line != "") print line }' \
    "$dir/points" > "$dir/tasks"
ntasks=$(wc -l < "$dir/tasks")
npoints=$(wc -l < "$dir/points")
echo "sweep $name: $npoints points in $ntasks Slurm tasks (SWEEP_BLOCK=$block, $dir)"

# The tasks' progress lines, as they come: each log's new ones.
progress() {
	i=1
	while [ "$i" -le "$ntasks" ]; do
		if [ -f "$dir/task-$i.log" ]; then
			seen=$(cat "$dir/seen-$i" 2>/dev/null || echo 0)
			grep '^\[' "$dir/task-$i.log" | tail -n "+$((seen + 1))" \
			    > "$dir/new" || true
			cat "$dir/new"
			echo $((seen + $(wc -l < "$dir/new"))) > "$dir/seen-$i"
		fi
		i=$((i + 1))
	done
}
cancel() {
	id=$(cat "$dir/job" 2>/dev/null || true)
	[ -n "$id" ] && scancel "${id%%;*}" 2>/dev/null
	echo "sweep $name: interrupted; job array ${id:-?} cancelled" >&2
	exit 1
}
trap cancel INT TERM HUP
status=0
# shellcheck disable=SC2086
SWEEP_MAKE="$make $keep" sbatch --wait --parsable --array="1-$ntasks" \
    --job-name="nestplan-$name" --chdir="$(pwd)" \
    --output="$dir/task-%a.log" ${SBATCH_FLAGS:-} \
    tools/sweep-task.sh "$dir/tasks" "$@" > "$dir/job" &
job=$!
while kill -0 "$job" 2>/dev/null; do
	sleep 2
	progress
done
wait "$job" || status=$?
trap - INT TERM HUP
progress
if [ "$status" != 0 ]; then
	echo "sweep $name: the job array failed (exit $status); logs: $dir/task-*.log" >&2
	exit 1
fi
# shellcheck disable=SC2046,SC2086
if ! $make -q --no-print-directory $keep "$@" $(cat "$dir/points") >/dev/null 2>&1; then
	echo "sweep $name: the job array ended but points are missing or out of date; logs: $dir/task-*.log" >&2
	exit 1
fi
echo "sweep $name: the job array made all $npoints points"
