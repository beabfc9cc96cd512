#!/usr/bin/env bash
# Issue 14's GPU benchmarks, for a machine with a CUDA device:
#   scripts/gpu_bench.sh [BUILD_DIR]   (default build; built with the CUDA backend)
# Runs the targets (pbf_table1 with 3 iterations, PBF and WCSPH at 1M
# particles), the same scenes on the CPU for the GPU/CPU ratio, and the GPU
# scaling series of every device solver from 100k to 4M particles. Each
# bench appends its row to docs/perf/<solver>_cuda.csv (the CPU's to
# docs/perf/<solver>.csv); docs/PERFORMANCE.md summarises them.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/fluidlab
"$bin" list | grep -i -E "cuda|devices"
quick=(--warmup 5 --repeat 7 --steps 20)
echo "== targets: pbf_table1 (100k, 3 iterations), PBF 1M, WCSPH 1M; metrics included (--metrics), and without"
for m in --metrics ""; do
  "$bin" bench pbf --scene pbf_table1 --particles 0 --device cuda "${quick[@]}" $m
  "$bin" bench pbf --scene pbf_table1 --particles 1000000 --device cuda "${quick[@]}" $m
  "$bin" bench wcsph --particles 1000000 --device cuda "${quick[@]}" $m
done
echo "== the same on the CPU"
"$bin" bench pbf --scene pbf_table1 --particles 0 --warmup 2 --repeat 3 --steps 5 --metrics
"$bin" bench pbf --scene pbf_table1 --particles 1000000 --warmup 1 --repeat 3 --steps 2 --metrics
"$bin" bench wcsph --particles 1000000 --warmup 1 --repeat 3 --steps 2 --metrics
echo "== GPU scaling series"
for n in 100000 300000 1000000 2000000 4000000; do
  for s in sph wcsph pcisph pbf; do
    "$bin" bench "$s" --particles "$n" --device cuda "${quick[@]}"
  done
done
