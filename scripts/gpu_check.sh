#!/usr/bin/env bash
# The checks of a lent GPU machine, in one run that keeps to a time budget:
#   scripts/gpu_check.sh OUT_DIR [SECONDS [gpu]]   (default 500 s; gpu: the
#   GPU's stages alone, without the host's comparisons and thread scaling;
#   a budget of a few thousand seconds runs every stage in full)
# Builds build-gpu/ (Release, CUDA for the card found, or
# CMAKE_CUDA_ARCHITECTURES from the environment), then, most important
# first, each stage skipped when the budget left is too short for it:
#   1. the tool loop's rate on the GPU (issue 15's target: 80 000 particles at
#      1 kHz, the force read back every step) and on the host's cores;
#   2. the CUDA backend's targets (pbf_table1, PBF and WCSPH at 1M, with the
#      run's metrics and without), and the same on the host's cores;
#   3. ctest -L cuda (the device tests and compute-sanitizer);
#   4. every CPU solver's step on dam_break_59k at 1, 2, 4, ... threads up to
#      the host's cores (thread scaling);
#   5. the GPU scaling series, 100k to 4M particles, every device solver.
# Benchmark rows go to docs/perf/*.csv as usual; OUT_DIR gets log.txt and
# perf.tgz (docs/perf and the CTest log), refreshed after every stage, so a
# run cut short still brings back what it measured. A machine without
# Debian's packages needs those the build links: `apt-get download
# libcjson1 libcjson-dev zlib1g-dev` into a folder carried along, unpacked
# there with `dpkg -x` before this script runs.
set -u
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu_check.sh OUT_DIR [SECONDS]}
budget=${2:-500}
cpu=1
[ "${3:-}" = gpu ] && cpu=0
mkdir -p "$out"
exec > >(tee -a "$out/log.txt") 2>&1
t0=$SECONDS
left() { echo $((budget - (SECONDS - t0))); }
save() { tar czf "$out/perf.tgz" docs/perf build-gpu/Testing/Temporary 2>/dev/null || true; }
# stage NEEDS LIMIT TITLE: announce a stage of at most LIMIT s when NEEDS s are left
stage() {
  if [ "$(left)" -lt "$1" ]; then
    echo "== [$((SECONDS - t0)) s] skipped (under $1 s left): $3"
    return 1
  fi
  echo "== [$((SECONDS - t0)) s] $3"
  limit=$2
}
# run CMD...: CMD under the stage's limit, or the budget left if shorter
run() {
  local l
  l=$(left)
  [ "$l" -gt "$limit" ] && l=$limit
  if [ "$l" -lt 10 ]; then echo "-- skipped (budget spent): $*"; return; fi
  timeout -k 5 "$l" "$@" || echo "-- exit $?: $*"
}

echo "== host: $(nproc) cores; $(nvidia-smi -L 2>&1 | head -1); $(nvcc --version 2>&1 | tail -1)"
arch=${CMAKE_CUDA_ARCHITECTURES:-90}
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" >"$out/cmake.txt" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" >>"$out/cmake.txt" 2>&1 || { tail -30 "$out/cmake.txt"; exit 1; }
grep "fluidlab:" "$out/cmake.txt"
bin=build-gpu/fluidlab
"$bin" list | grep -i -E "cuda|device"
cores=$(nproc)

if stage 60 120 "the tool loop: PBF on tool_cup, force read back every step (target 80 000 at 1 kHz)"; then
  run "$bin" bench --tool pbf --device cuda --sizes 10000,20000,40000,80000 --warmup 20 --steps 500
  run "$bin" bench --tool pbf --device cuda --sizes 80000 --warmup 20 --steps 500 --metrics
  if [ $cpu = 1 ]; then
    run "$bin" bench --tool pbf --sizes 10000,20000,40000,80000 --warmup 10 --steps 200
    run "$bin" bench --tool pbf --sizes 10000,20000 --warmup 10 --steps 200 --threads 2
  fi
  save
fi
quick=(--warmup 5 --repeat 7 --steps 20)
if stage 60 150 "the CUDA targets: pbf_table1 (100k, 3 iterations), PBF and WCSPH at 1M, with metrics and without"; then
  for m in --metrics ""; do
    run "$bin" bench pbf --scene pbf_table1 --particles 0 --device cuda "${quick[@]}" $m
    run "$bin" bench pbf --scene pbf_table1 --particles 1000000 --device cuda "${quick[@]}" $m
    run "$bin" bench wcsph --particles 1000000 --device cuda "${quick[@]}" $m
  done
  if [ $cpu = 1 ]; then
    run "$bin" bench pbf --scene pbf_table1 --particles 0 --warmup 2 --repeat 3 --steps 5 --metrics
    run "$bin" bench pbf --scene pbf_table1 --particles 1000000 --warmup 1 --repeat 3 --steps 2 --metrics
    run "$bin" bench wcsph --particles 1000000 --warmup 1 --repeat 3 --steps 2 --metrics
  fi
  save
fi
if stage 90 240 "ctest -L cuda"; then
  (cd build-gpu && run ctest -L cuda -j4 --timeout 200 --output-on-failure)
  save
fi
if [ $cpu = 1 ] && stage 60 150 "thread scaling on dam_break_59k, every CPU solver"; then
  for s in flip wcsph pbf pcisph sph; do
    t=1
    while [ "$t" -le "$cores" ]; do
      run "$bin" bench "$s" --scene dam_break_59k --particles 0 --threads "$t" --warmup 3 --repeat 5 --steps 10
      t=$((t * 2))
    done
  done
  save
fi
if stage 45 120 "the GPU scaling series"; then
  for n in 100000 300000 1000000 2000000 4000000; do
    for s in sph wcsph pcisph pbf; do
      run "$bin" bench "$s" --particles "$n" --device cuda "${quick[@]}"
    done
  done
  save
fi
echo "== [$((SECONDS - t0)) s] done"
