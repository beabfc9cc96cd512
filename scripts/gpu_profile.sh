#!/usr/bin/env bash
# The time of each CUDA kernel (Nsight Compute's gpu__time_duration, one
# pass per kernel) on the GPU tool loop (80 000 particles) and on PBF at
# 1M, into OUT_DIR/*.txt: scripts/gpu_profile.sh OUT_DIR [BUILD_DIR]
# (BUILD_DIR built with the CUDA backend, default build-gpu).
set -u
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu_profile.sh OUT_DIR [BUILD_DIR]}
bin=${2:-build-gpu}/fluidlab
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
prof=("$ncu" --metrics gpu__time_duration.sum --print-summary per-kernel)
"${prof[@]}" "$bin" bench --tool pbf --device cuda --sizes 80000 --warmup 0 --steps 20 --no-log >"$out/tool80k.txt" 2>&1
"${prof[@]}" "$bin" bench pbf --particles 1000000 --device cuda --warmup 0 --repeat 1 --steps 10 --no-log >"$out/pbf1m.txt" 2>&1
"${prof[@]}" "$bin" bench wcsph --particles 1000000 --device cuda --warmup 0 --repeat 1 --steps 10 --no-log >"$out/wcsph1m.txt" 2>&1
