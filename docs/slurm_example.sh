#!/usr/bin/env bash
# A Slurm batch script for `fluidlab figures` over MPI ranks (docs/mpi.md):
# 4 nodes x 4 ranks x 8 threads. Submit it from the fluidlab checkout, its
# output folder on a file system every node sees:
#   sbatch docs/slurm_example.sh             # figures --quick into out/figures
#   sbatch docs/slurm_example.sh --resume    # rerun into it: only what is missing
# Any arguments are added to the figures command line. For a sweep or a
# comparison, change the command at the end (the same options as on one
# machine; see fluidlab --help).
#SBATCH --job-name=fluidlab-figures
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=4
#SBATCH --cpus-per-task=8
#SBATCH --time=02:00:00
#SBATCH --output=fluidlab-figures-%j.log
set -euo pipefail
cd "${SLURM_SUBMIT_DIR:-.}"

# Built once, before submitting, on a node like the compute nodes (with
# libopenmpi-dev: scripts/setup.sh); every rank runs this binary.
bin=build/fluidlab
out=out/figures

# Each run on its rank's cores; OpenMP keeps its threads there.
export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK OMP_PROC_BIND=close OMP_PLACES=cores

# srun starts the ranks through PMIx (Debian's Open MPI is built with it);
# `mpirun -np $SLURM_NTASKS --map-by slot:PE=$SLURM_CPUS_PER_TASK` works as
# well inside the allocation. On scancel or the time limit every rank gets
# SIGTERM: each run stops at the end of its step, the finished ones keep
# their run.complete marker, and --resume runs the rest.
srun --mpi=pmix --cpu-bind=cores "$bin" figures --quick --threads "$SLURM_CPUS_PER_TASK" --out "$out" --quiet "$@"
