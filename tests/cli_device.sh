#!/usr/bin/env bash
# --device through the real binary, on a machine with or without a GPU: the
# emulator (emu, the CUDA kernels on the CPU) always runs, so every command
# is checked with it; cuda is checked where it cannot run (no GPU: refused
# with one line and nothing written) and left out where it can.
# Checks: run --device emu (PBF, --save vtu): stable, run.json says "emu",
# frames written, stats.csv with the CPU run's columns; SPH on the CPU and
# on emu agree in the last row's compression within 1e-6 relative; a tool
# scene (WCSPH) runs on emu with the CPU's force on the tool; a
# device that cannot run the solver (cuda without a GPU, emu for FLIP) or
# an unknown device: exit 1, one line, no output folder; compare --devices
# cpu,emu: a row per (solver, device) with a device column and a folder
# each; sweep --device emu reaches its cases; bench --device emu logs to
# <solver>_emu.csv; figures --device emu adds the device lines to figure 6;
# list names the devices.
# usage: cli_device.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"

small=(--frames 1 --set fluid.spacing=0.02 --quiet --no-plot)

# refused: exit 1, one line on stderr, and the folder out not created
refused() { # name, expected text, out, args...
  local name=$1 text=$2 out=$3
  shift 3
  "$bin" "$@" 2>"$dir/refused.txt" >/dev/null
  local rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l < "$dir/refused.txt")" -eq 1 ] && grep -q -- "$text" "$dir/refused.txt"
  check "$name: one line, exit 1 (got $rc: $(head -c 200 "$dir/refused.txt"))" $?
  [ ! -e "$out" ]; check "$name: no output folder" $?
}

# run on the emulator
out=$dir/pbf_emu
"$bin" run dam_break --solver pbf --device emu --save vtu "${small[@]}" --out "$out" 2>/dev/null
check "run --device emu: exit 0 (stable)" $?
grep -Eq '"status":[[:space:]]*"stable"' "$out/run.json"; check "run --device emu: run.json says stable" $?
grep -Eq '"device":[[:space:]]*"emu"' "$out/run.json"; check "run --device emu: run.json records \"device\": \"emu\"" $?
[ -s "$out/frames/0000.vtu" ] && [ -s "$out/frames/0001.vtu" ] && [ "$(grep -c '<DataSet ' "$out/frames.pvd")" -eq 2 ]
check "run --device emu: frames 0 and 1 written, listed in frames.pvd" $?
"$bin" run dam_break --solver pbf "${small[@]}" --out "$dir/pbf_cpu" 2>/dev/null
grep -Eq '"device":[[:space:]]*"cpu"' "$dir/pbf_cpu/run.json"; check "run on the CPU: run.json records \"device\": \"cpu\"" $?
[ "$(head -1 "$out/stats.csv")" = "$(head -1 "$dir/pbf_cpu/stats.csv")" ]
check "run --device emu: stats.csv has the CPU run's columns" $?

# SPH on the CPU and on the emulator: the same compression
for d in cpu emu; do
  "$bin" run dam_break --solver sph --device $d "${small[@]}" --out "$dir/sph_$d" 2>/dev/null
  check "run sph --device $d" $?
done
last_err() { # stats.csv: density_err_avg of the last row
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "density_err_avg") c = i } END { print $c }' "$1"
}
a=$(last_err "$dir/sph_cpu/stats.csv")
b=$(last_err "$dir/sph_emu/stats.csv")
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(a != "" && m > 0 && d <= 1e-6 * m) }'
check "sph: the last row's density_err_avg on cpu ($a) and emu ($b) within 1e-6 relative" $?

# a tool scene on the emulator: the force on the tool as on the CPU (WCSPH,
# 20 steps; float sums in another order)
for d in cpu emu; do
  "$bin" run tool_buoyancy --solver wcsph --device $d "${small[@]}" --out "$dir/tool_$d" 2>/dev/null
  check "run tool_buoyancy --solver wcsph --device $d: exit 0" $?
done
a=$(tail -1 "$dir/tool_cpu/tool.csv" | cut -d, -f10)
b=$(tail -1 "$dir/tool_emu/tool.csv" | cut -d, -f10)
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(a != "" && m > 0.1 && d <= 1e-3 * m) }'
check "tool_buoyancy: the last step's vertical force on cpu ($a N) and emu ($b N) within 1e-3 relative" $?

# what cannot run
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: --device cuda without a GPU (nvidia-smi -L finds one here)"
else
  refused "run --device cuda without a GPU" "--device cuda" "$dir/no1" run dam_break --solver pbf --device cuda \
    "${small[@]}" --out "$dir/no1"
  refused "compare --devices cpu,cuda without a GPU" "--device cuda" "$dir/no2" compare dam_break --solvers sph \
    --devices cpu,cuda "${small[@]}" --out "$dir/no2"
fi
refused "run --device emu --solver flip" "runs on the CPU only" "$dir/no3" run dam_break --solver flip \
  --device emu "${small[@]}" --out "$dir/no3"
refused "run --device nonsense" "expected cpu, cuda or emu" "$dir/no4" run dam_break --solver sph \
  --device nonsense "${small[@]}" --out "$dir/no4"
refused "sweep --device emu --solver flip" "runs on the CPU only" "$dir/no5" sweep dam_break --solver flip \
  --device emu --dt 0.001 "${small[@]}" --out "$dir/no5"
refused "compare --solvers flip --device emu" "runs on the CPU only" "$dir/no6" compare dam_break --solvers flip \
  --device emu "${small[@]}" --out "$dir/no6"

# compare: every (solver, device) pair
out=$dir/cmp
"$bin" compare dam_break --solvers sph,pbf --devices cpu,emu "${small[@]}" --out "$out" 2>/dev/null
check "compare --devices cpu,emu: exit 0" $?
[ "$(head -1 "$out/compare.csv" | cut -d, -f1-3)" = solver,device,status ]
check "compare.csv: a device column after solver" $?
[ "$(tail -n +2 "$out/compare.csv" | cut -d, -f1-3 | tr '\n' ' ')" = \
  "sph,cpu,stable sph,emu,stable pbf,cpu,stable pbf,emu,stable " ]
check "compare.csv: 4 rows, a solver's devices side by side, all stable" $?
for f in sph_cpu sph_emu pbf_cpu pbf_emu; do
  [ -s "$out/$f/stats.csv" ]; check "compare: the run folder $f/" $?
done
grep -q '^time,pbf (emu),pbf (emu)$' "$out/density.csv"; check "density.csv: the lines labelled with the device" $?
grep -q '^| pbf | emu | stable |' "$out/compare.md"; check "compare.md: the device column" $?
"$bin" compare dam_break --solvers sph,flip --device emu "${small[@]}" --out "$dir/cmp1" 2>/dev/null
check "compare --device emu with a CPU-only solver: exit 0" $?
grep -q '^flip,emu,unsupported,"--device emu: the flip solver runs on the CPU only' "$dir/cmp1/compare.csv" &&
  grep -q '^sph,emu,stable,' "$dir/cmp1/compare.csv" && [ -s "$dir/cmp1/sph/stats.csv" ] && [ ! -e "$dir/cmp1/flip" ]
check "compare --device emu: flip recorded unsupported, sph run in sph/" $?

# sweep and bench
"$bin" sweep dam_break --solver sph --device emu --dt 0.0005 "${small[@]}" --out "$dir/sweep" 2>/dev/null
check "sweep --device emu: exit 0" $?
grep -Eq '"device":[[:space:]]*"emu"' "$dir/sweep/case_01/run.json"; check "sweep: the case ran on emu" $?
"$bin" bench sph --device emu --particles 2000 --repeat 1 --steps 2 --warmup 1 --log "$dir/perf" >"$dir/bench.txt" 2>&1
check "bench sph --device emu: exit 0" $?
grep -q '^sph on emu: ' "$dir/bench.txt"; check "bench: the header line names the device" $?
[ "$(wc -l < "$dir/perf/sph_emu.csv")" -eq 2 ] && [ ! -e "$dir/perf/sph.csv" ]
check "bench: the row goes to sph_emu.csv, not sph.csv" $?
[ "$(head -1 "$dir/perf/sph_emu.csv" | tr ',' '\n' | wc -l)" -eq 23 ] &&
  tail -1 "$dir/perf/sph_emu.csv" | grep -q ',sph_emu,'
check "bench: sph_emu.csv has sph.csv's 23 columns, benchmark sph_emu" $?
refused "bench grid --device emu" "grid benchmark" "$dir/no7" bench grid --device emu --log "$dir/no7"

# figures: figure 6 on both the CPU and the device
"$bin" figures --smoke --only 6 --device emu --no-plot --quiet --out "$dir/fig" 2>/dev/null
check "figures --smoke --only 6 --device emu: exit 0" $?
grep -q '^particles,pbf$' "$dir/fig/fig6_scaling.csv" && grep -q '^particles,pbf (emu)$' "$dir/fig/fig6_scaling.csv" &&
  ! grep -q '^particles,flip (emu)$' "$dir/fig/fig6_scaling.csv"
check "figure 6: pbf on the CPU and on emu, flip on the CPU only" $?
sed -n 3p "$dir/fig/report.md" | grep -q 'Device emu (.*): sph, .* ran there.*flip.* ran on the CPU'
check "report.md: the first line names the device, and FLIP on the CPU" $?

"$bin" list | grep -q '^devices: cpu (all solvers); emu (sph, wcsph, pcisph, pbf: the CUDA kernels on the CPU); cuda'
check "list: the devices line" $?

report
