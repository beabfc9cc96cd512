#!/usr/bin/env bash
# Installs what fluidlab needs on Debian 12 (as root, or with sudo), then
# configures and builds it: scripts/setup.sh [BUILD_DIR] [extra cmake args...]
# Packages already present are not reinstalled.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true

need=()
# libopenmpi-dev, openmpi-bin: mpirun spreads figures, sweep, compare and validate over
# ranks (docs/mpi.md); the build without them is the one-rank one
for pkg in cmake gcc make libcjson-dev zlib1g-dev gnuplot-nox libopenmpi-dev openmpi-bin; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "fluidlab setup: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
