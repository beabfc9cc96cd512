#!/usr/bin/env bash
# `fluidlab sweep` through the real binary, on a tiny dam break (d = 0.04 m,
# 3 frames): WCSPH at dt = 0.5 ms (stable) and 10 ms (blows up at its third
# step), and PCISPH at 10 substeps a frame with 2 and 4 iterations.
# Checks: the deliberately unstable case is recorded as unstable, with the
# time it broke and the reason, and does not stop the sweep (the case after
# it runs, exit 0); every case has its run folder; --iters reaches the
# solver (stats.csv's iterations); --resume reuses a finished case only
# for the same request; bad lists, a solver without iterations
# and a missing step list are refused with one line and exit 1, nothing
# written.
# usage: cli_sweep.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"
tiny=(--set fluid.spacing=0.04 --frames 3 --quiet)

out=$dir/wcsph
"$bin" sweep dam_break --solver wcsph "${tiny[@]}" --dt 0.01,0.0005 --out "$out" 2>"$dir/wcsph.txt"
check "the sweep exits 0 although a case is unstable" $?
[ "$(wc -l < "$out/sweep.csv")" -eq 3 ]; check "sweep.csv: a header and two cases" $?
grep -q '^1,[^,]*,0.01,0,0,unstable,0.03,".*max speed' "$out/sweep.csv"
check "dt = 0.01 s: unstable at t = 0.03 s, the reason recorded" $?
grep -q '^2,[^,]*,0.0005,0,0,stable,-1,' "$out/sweep.csv"; check "dt = 0.5 ms, after it: stable" $?
[ -s "$out/case_01/run.json" ] && [ -s "$out/case_02/stats.csv" ]; check "each case has its run folder" $?
if command -v gnuplot > /dev/null; then
  [ -s "$out/case_01/summary.png" ] && [ -s "$out/case_02/summary.svg" ]
  check "each case has its summary plot, as a run's and compare's do" $?
fi
grep -q '"status":[[:space:]]*"unstable"' "$out/case_01/run.json"; check "the case's run.json says unstable" $?
[ "$(grep -c '^| [0-9]' "$out/sweep.md")" -eq 2 ]; check "sweep.md: two cases" $?

# --resume reuses a case only for the same request: the same command keeps
# both runs; another step list reruns the case whose step changed (the
# old resume took any finished run in case_02/ as the new case's)
stamp() { stat -c %Y.%s "$out/case_01/stats.csv" "$out/case_02/stats.csv" | tr '\n' ' '; }
before=$(stamp)
sleep 1
"$bin" sweep dam_break --solver wcsph "${tiny[@]}" --dt 0.01,0.0005 --out "$out" --resume 2>/dev/null &&
  [ "$(stamp)" = "$before" ]
check "--resume with the same command runs nothing again" $?
"$bin" sweep dam_break --solver wcsph "${tiny[@]}" --dt 0.01,0.001 --out "$out" --resume 2>/dev/null &&
  [ "$(stat -c %Y.%s "$out/case_01/stats.csv")" = "$(echo "$before" | cut -d' ' -f1)" ] &&
  [ "$(stat -c %Y.%s "$out/case_02/stats.csv")" != "$(echo "$before" | cut -d' ' -f2)" ] &&
  grep -q '^2,[^,]*,0.001,0,0,stable,-1,' "$out/sweep.csv" && grep -q '"dt":[[:space:]]*0.001,' "$out/case_02/run.json"
check "--resume with another step list reruns the case whose step changed, keeps the other" $?
# ... and an edited OBJ file the scene names is another request (the scene's
# own bytes did not change, and --resume kept the run of the old mesh)
cube='v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n'
faces='f 1 4 3\nf 1 3 2\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 4 8 7\nf 4 7 3\nf 1 5 8\nf 1 8 4\nf 2 3 7\nf 2 7 6\n'
cat > "$dir/mesh_scene.json" <<EOF
{
  "domain": { "min": [0, 0, 0], "max": [1, 1, 1] },
  "fluid": { "spacing": 0.1, "blocks": [ { "min": [0, 0, 0], "max": [0.5, 0.5, 1] } ] },
  "meshes": [ { "mesh": "cube.obj", "scale": 0.2, "translate": [0.7, 0, 0.4], "as": "solid" } ],
  "time": { "duration": 0.1, "fps": 30, "substeps": 4 }
}
EOF
# a sweep of the scene, then --resume with the OBJ file as it was and as
# edited: nothing runs again, then the case does
resume_obj() { # scene, OBJ file, its name in the checks
  local out=$dir/resume_$(basename "$2" .obj)
  printf "$cube$faces" > "$2"
  "$bin" sweep "$1" --solver wcsph --dt 0.001 --frames 1 --quiet --out "$out" 2>/dev/null
  local first
  first=$(stat -c %Y.%s "$out/case_01/stats.csv")
  sleep 1
  "$bin" sweep "$1" --solver wcsph --dt 0.001 --frames 1 --quiet --out "$out" --resume 2>/dev/null &&
    [ "$(stat -c %Y.%s "$out/case_01/stats.csv")" = "$first" ]
  check "--resume, $3 unchanged: runs nothing again" $?
  printf "$(printf "$cube" | sed 's/1/0.8/g')\n$faces" > "$2"
  "$bin" sweep "$1" --solver wcsph --dt 0.001 --frames 1 --quiet --out "$out" --resume 2>/dev/null &&
    [ "$(stat -c %Y.%s "$out/case_01/stats.csv")" != "$first" ]
  check "--resume, $3 edited: the case runs again" $?
}
resume_obj "$dir/mesh_scene.json" "$dir/cube.obj" "the mesh's OBJ file"
cat > "$dir/tool_scene.json" <<EOF
{
  "domain": { "min": [0, 0, 0], "max": [1, 1, 1] },
  "fluid": { "spacing": 0.1, "blocks": [ { "min": [0, 0, 0], "max": [0.5, 0.5, 1] } ] },
  "tool": { "shape": "mesh", "mesh": "tool.obj", "scale": 0.3, "position": [0.75, 0.5, 0.5] },
  "time": { "duration": 0.1, "fps": 30, "substeps": 4 }
}
EOF
resume_obj "$dir/tool_scene.json" "$dir/tool.obj" "the tool's OBJ file"

out=$dir/pcisph
"$bin" sweep dam_break --solver pcisph "${tiny[@]}" --substeps 10 --iters 2,4 --out "$out" 2>/dev/null
check "a substeps x iterations sweep exits 0" $?
iters() { cut -d, -f"$(head -1 "$1" | tr ',' '\n' | grep -n '^iterations$' | cut -d: -f1)" "$1" | tail -n +2 | sort -u; }
[ "$(iters "$out/case_01/stats.csv")" = 2 ] && [ "$(iters "$out/case_02/stats.csv")" = 4 ]
check "--iters 2,4 gives PCISPH 2 and 4 iterations per step" $?
[ "$(tail -n +2 "$out/sweep.csv" | cut -d, -f3,4 | sort -u)" = "0.00333333,10" ]
check "sweep.csv: a substeps case's step, 1 / (30 fps x 10) (it said 0)" $?
# PBF's eta (here the scene's) stopped its iterations early, whatever
# --iters said; an eta given on the command line beside --iters is refused
sed 's/"sph": { "stiffness"/"pbf": { "eta": 0.5 }, "sph": { "stiffness"/' "$(dirname "$0")/../scenes/dam_break.json" \
  > "$dir/dam_eta.json"
out=$dir/pbf
grep -q '"eta": 0.5' "$dir/dam_eta.json" &&
  "$bin" sweep "$dir/dam_eta.json" --solver pbf "${tiny[@]}" --dt 0.004 --iters 3 --out "$out" 2>/dev/null &&
  [ "$(iters "$out/case_01/stats.csv")" = 3 ]
check "--iters 3 gives PBF 3 iterations per step, the scene's eta 0.5 set aside" $?
"$bin" sweep dam_break --solver pbf "${tiny[@]}" --dt 0.004 --iters 3 --per-solver pbf.eta=0.5 --out "$dir/pbf2" \
  2> "$dir/pbf2.err"
[ $? -eq 1 ] && grep -q -- "--iters: sets solvers.pbf.eta=0 .*not with --set solvers.pbf.eta=0.5" "$dir/pbf2.err" &&
  [ ! -e "$dir/pbf2" ]
check "--iters with --per-solver pbf.eta: refused, nothing written" $?

bad() { # name, args...: one line on stderr, exit 1, nothing written
  local name=$1
  shift
  "$bin" sweep dam_break "$@" --out "$dir/bad" 2>"$dir/bad.txt"
  [ $? -eq 1 ] && [ "$(wc -l < "$dir/bad.txt")" -eq 1 ] && [ ! -e "$dir/bad" ]
  check "$name: one line, exit 1, nothing written" $?
}
bad "a negative step" --solver sph --dt 0.001,-2
bad "no step list" --solver sph
bad "iterations for SPH" --solver sph --dt 0.001 --iters 3
bad "fractional substeps" --solver sph --substeps 2.5
bad "an unknown solver" --solver nosuch --dt 0.001

report
