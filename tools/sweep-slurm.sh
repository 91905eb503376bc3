#!/bin/sh
# sweep-slurm.sh - run a sweep's points as a Slurm job array (make sweep
# ENGINE=slurm), in this checkout, which every node must see at the same
# path (a shared file system).
#
#   sh tools/sweep-slurm.sh sweep.xml RESULTS BUILD MAKE VAR=value...
#
# Make has already made what every point needs (sweep-prereqs: the tools,
# the layer graphs, every point's network), so a task writes only its own
# points' files.  The points (bin/sweep -L: a point's plan and the plan
# priced on its neighbours, one line a point) go SWEEP_BLOCK to a task;
# each task runs make on its block (tools/sweep-task.sh).  sbatch --wait
# returns when every task has ended, with the highest exit status; the
# tasks' progress lines are shown as they come.  Then every point must be
# up to date (make -q), or the run fails naming the task logs: the join
# that follows (make sweep ENGINE=local) must not quietly compute a point
# a task failed to make.  SBATCH_FLAGS (partition, account, time) go to
# sbatch.
set -eu
config=$1 results=$2 build=$3 make=$4
shift 4
block=${SWEEP_BLOCK:-4}
command -v sbatch >/dev/null 2>&1 ||
    { echo "sweep: ENGINE=slurm: no sbatch here (Debian: slurm-client)" >&2; exit 1; }
name=$(basename "$config" .xml)
dir=$build/$name/slurm
rm -rf "$dir"
mkdir -p "$dir"
bin/sweep -L -R "$results" -B "$build" "$config" > "$dir/points"
# one line a task: SWEEP_BLOCK points' targets
awk -v k="$block" '{ line = line (NR % k == 1 || k == 1 ? "" : " ") $0 }
	NR % k == 0 { print line; line = "" } END { if (line != "") print line }' \
    "$dir/points" > "$dir/tasks"
ntasks=$(wc -l < "$dir/tasks")
npoints=$(wc -l < "$dir/points")
echo "sweep $name: $npoints points in $ntasks Slurm tasks (SWEEP_BLOCK=$block)"

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
status=0
# shellcheck disable=SC2086
sbatch --wait --quiet --array="1-$ntasks" --job-name="nestplan-$name" \
    --chdir="$(pwd)" --output="$dir/task-%a.log" ${SBATCH_FLAGS:-} \
    tools/sweep-task.sh "$dir/tasks" "$@" &
job=$!
while kill -0 "$job" 2>/dev/null; do
	sleep 2
	progress
done
wait "$job" || status=$?
progress
if [ "$status" != 0 ]; then
	echo "sweep $name: the job array failed (exit $status); logs: $dir/task-*.log" >&2
	exit 1
fi
# shellcheck disable=SC2046
if ! $make -q --no-print-directory "$@" $(cat "$dir/points") >/dev/null 2>&1; then
	echo "sweep $name: the job array ended but points are missing or out of date; logs: $dir/task-*.log" >&2
	exit 1
fi
echo "sweep $name: the job array made all $npoints points"
