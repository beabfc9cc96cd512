#!/usr/bin/env bash
# Issues 14's and 15's GPU benchmarks, for a machine with a CUDA device:
#   scripts/gpu_bench.sh [BUILD_DIR]   (default build; built with the CUDA backend)
# Runs the targets (pbf_table1 with 3 iterations, PBF and WCSPH at 1M
# particles), the same scenes on the CPU for the GPU/CPU ratio, the GPU
# scaling series of every device solver from 100k to 4M particles, and the
# rigid tool's loop (PBF on tool_cup, the force read back every step; the
# target: 80 000 particles at 1 kHz) on the GPU and on the CPU. Each bench
# appends its row to docs/perf/<solver>_cuda.csv (the CPU's to
# docs/perf/<solver>.csv; the tool loop's to tool_pbf_cuda.csv and
# tool_pbf_cpu.csv); docs/PERFORMANCE.md summarises them.
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
echo "== the tool loop: PBF on tool_cup, the force on the tool back on the host every step (target: 80 000 at 1 kHz)"
"$bin" bench --tool pbf --device cuda --sizes 10000,20000,40000,80000 --warmup 10 --steps 200
echo "== the same on the CPU"
"$bin" bench --tool pbf --sizes 10000,20000,40000,80000 --warmup 10 --steps 200
