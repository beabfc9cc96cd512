#!/usr/bin/env bash
# Determinism through the real binary (docs/design.md, "Determinism"): every
# registered solver, run twice on one thread and twice on two, gives
# byte-identical physics columns in stats.csv (everything but the stage
# timers, ms_*), convergence.csv, particle frames (.bin, .vtu, .vtk) and
# frames.pvd; and the same on one thread as on two.
# usage: cli_determinism.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"

physics() { # the columns that are not timers
  local header
  header=$(head -1 "$1")
  local cols
  cols=$(echo "$header" | tr ',' '\n' | grep -n -v '^ms_' | cut -d: -f1 | paste -sd, -)
  cut -d, -f"$cols" "$1"
}

same_run() { # two run folders: same physics columns, convergence and frames
  cmp -s <(physics "$1/stats.csv") <(physics "$2/stats.csv") &&
    cmp -s "$1/convergence.csv" "$2/convergence.csv" &&
    cmp -s "$1/frames.pvd" "$2/frames.pvd" &&
    diff -rq "$1/frames" "$2/frames" >/dev/null
}

# each solver on the dam break, with what makes its parallel parts matter
args_of() {
  case $1 in
    pbf) echo "--dt 0.002 --set fluid.spacing=0.02 --set solvers.pbf.vorticity_epsilon=0.1" ;; # its own neighbor table
    flip | pic) echo "--set fluid.spacing=0.01" ;; # P2G by thread slabs, PCG dot products by blocks
    *) echo "--set fluid.spacing=0.02" ;;
  esac
}

solvers=$("$bin" list | awk '/^solvers:/ { on = 1; next } on && /^  / { print $1; next } { on = 0 }')
[ "$(echo "$solvers" | wc -w)" -ge 6 ]; check "the registry's solvers: $(echo $solvers)" $?
for s in $solvers; do
  for t in 1 2; do
    for r in a b; do
      # shellcheck disable=SC2046
      "$bin" run dam_break --solver "$s" --frames 2 $(args_of "$s") --threads $t --save bin,vtu,vtk --quiet \
        --no-plot --out "$dir/$s/$t$r" >/dev/null 2>&1
      check "$s: run $r on $t thread(s)" $?
    done
    same_run "$dir/$s/${t}a" "$dir/$s/${t}b"
    check "$s: twice on $t thread(s): the same stats, convergence and frames" $?
  done
  same_run "$dir/$s/1a" "$dir/$s/2a"; check "$s: the same on 1 and 2 threads" $?
  rows=$(wc -l < "$dir/$s/1a/stats.csv")
  frames=$(ls "$dir/$s/1a/frames" | wc -l)
  [ "$rows" -gt 2 ] && [ "$frames" -eq 9 ]; check "$s: $((rows - 1)) steps and 3 frames in 3 formats compared" $?
done
# the timers are there, and differ (a test that compares timers would be wrong)
physics "$dir/sph/1a/stats.csv" | head -1 | grep -q density_err_avg; check "physics columns found" $?
head -1 "$dir/sph/1a/stats.csv" | grep -q ms_neighbor_search; check "timer columns present" $?

# "dt": "cfl": WCSPH's steps follow its stability limit and land on the frame times,
# the step before a frame time not cut to a sliver: when the frame is less than two
# steps away it is reached in two even ones (the last of these three frames was a
# step 0.22 times the one before it)
"$bin" run dam_break --solver wcsph --dt cfl --frames 3 --set fluid.spacing=0.02 --quiet --no-plot \
  --out "$dir/cfl" >/dev/null 2>&1
check "adaptive run" $?
# columns 2 and 3 are time and dt
awk -F, 'NR > 1 { n++; if ($3 != first && n > 1) varied = 1; if (n == 1) first = $3; last = $2;
                  if ($3 > 1 / 30 + 1e-12) big = 1; if (n > 1 && $3 < 0.45 * prev) sliver = 1; prev = $3 }
         END { exit !(n > 10 && varied && !big && !sliver && last > 0.1 - 1e-9 && last < 0.1 + 1e-9) }' "$dir/cfl/stats.csv"
check "adaptive dt varies, stays under a frame, no step under 0.45 of the last, ends at 3 frames (0.1 s)" $?
grep -Eq '"dt":[[:space:]]*"cfl"' "$dir/cfl/run.json"
check "run.json records dt = cfl" $?
# --substeps fixes the step over a scene's "cfl", as --dt does (it was
# ignored: a sweep over --substeps ran the same adaptive case each time)
"$bin" run dam_break --solver wcsph --set 'time.dt="cfl"' --substeps 50 --frames 1 --set fluid.spacing=0.02 --quiet \
  --no-plot --out "$dir/cfl_sub" >/dev/null 2>&1 &&
  [ "$(tail -n +2 "$dir/cfl_sub/stats.csv" | wc -l)" -eq 50 ] &&
  grep -Eq '"steps_per_frame":[[:space:]]*50' "$dir/cfl_sub/run.json"
check "--substeps 50 over time.dt cfl: 50 steps for a frame" $?

report
