#!/usr/bin/env bash
# cuda_memcheck.sh FLUIDLAB SCRATCH_DIR: each device solver's short dam
# break on the GPU under compute-sanitizer: memcheck (out-of-bounds and
# misaligned accesses, leaks) for sph, wcsph, pcisph and pbf, racecheck and
# synccheck (the reductions' shared memory) for pbf; the same with the
# rigid tool (tests/fixtures/tool_small.json, its adhesion and damping on):
# memcheck for wcsph and pbf, racecheck for pbf (the tool's reductions); no
# run may report an error (exit 9) or fail to start (exit 1). Skipped (77)
# without a usable GPU or without compute-sanitizer.
set -u
source "$(dirname "$0")/cli_common.sh"
tool=$(command -v compute-sanitizer || true)
for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
  [ -z "$tool" ] && [ -x "$d/compute-sanitizer" ] && tool=$d/compute-sanitizer
done
if [ -z "$tool" ]; then echo "cuda_memcheck: skipped: no compute-sanitizer"; exit 77; fi
small=(--set fluid.spacing=0.02 --frames 1 --quiet --no-plot)
"$bin" run dam_break --solver sph --device cuda "${small[@]}" --out "$dir/probe" >/dev/null 2>"$dir/probe.err"
if [ $? -eq 1 ]; then # bad input: here, no usable device
  echo "cuda_memcheck: skipped: $(cat "$dir/probe.err")"
  exit 77
fi
for s in sph wcsph pcisph pbf; do
  "$tool" --tool memcheck --leak-check full --error-exitcode 9 \
    "$bin" run dam_break --solver "$s" --device cuda "${small[@]}" --out "$dir/$s" >"$dir/$s.log" 2>&1
  rc=$?
  tail -3 "$dir/$s.log"
  check "memcheck $s (exit $rc)" $((rc == 9 || rc == 1))
done
for t in racecheck synccheck; do
  "$tool" --tool "$t" --error-exitcode 9 \
    "$bin" run dam_break --solver pbf --device cuda "${small[@]}" --out "$dir/pbf_$t" >"$dir/pbf_$t.log" 2>&1
  rc=$?
  tail -3 "$dir/pbf_$t.log"
  check "$t pbf (exit $rc)" $((rc == 9 || rc == 1))
done
scene=$(cd "$(dirname "$0")" && pwd)/fixtures/tool_small.json
forces=(--set 'tool.adhesion={"k": 20000}' --set 'tool.damping={"k": 0.05}')
for s in wcsph pbf; do
  "$tool" --tool memcheck --leak-check full --error-exitcode 9 \
    "$bin" run "$scene" --solver "$s" --device cuda --frames 1 --quiet --no-plot "${forces[@]}" \
    --out "$dir/tool_$s" >"$dir/tool_$s.log" 2>&1
  rc=$?
  tail -3 "$dir/tool_$s.log"
  check "memcheck $s with the tool (exit $rc)" $((rc == 9 || rc == 1))
done
"$tool" --tool racecheck --error-exitcode 9 \
  "$bin" run "$scene" --solver pbf --device cuda --frames 1 --quiet --no-plot "${forces[@]}" \
  --out "$dir/tool_racecheck" >"$dir/tool_racecheck.log" 2>&1
rc=$?
tail -3 "$dir/tool_racecheck.log"
check "racecheck pbf with the tool (exit $rc)" $((rc == 9 || rc == 1))
report
