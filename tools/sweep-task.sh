#!/bin/sh
# sweep-task.sh - one task of a sweep's Slurm job array
# (tools/sweep-slurm.sh): make the points on line SLURM_ARRAY_TASK_ID of
# the task file, in the checkout sbatch started in, with the make command
# and "-o FILE..." options of SWEEP_MAKE (sbatch passes the environment).
#   sbatch --array=1-N tools/sweep-task.sh TASKS VAR=value...
set -eu
tasks=$1
shift
: "${SLURM_ARRAY_TASK_ID:?not started by sbatch --array}"
targets=$(sed -n "${SLURM_ARRAY_TASK_ID}p" "$tasks")
[ -n "$targets" ] ||
    { echo "sweep-task: no line $SLURM_ARRAY_TASK_ID in $tasks" >&2; exit 1; }
# the submitting make's job server is not ours
unset MAKEFLAGS MFLAGS MAKELEVEL
# shellcheck disable=SC2086
exec ${SWEEP_MAKE:-make} --no-print-directory "$@" $targets
