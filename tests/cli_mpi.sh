#!/usr/bin/env bash
# `mpirun -np 3 fluidlab figures | sweep | compare` through the real binary
# (docs/mpi.md), on a build with MPI, three ranks on however many cores
# (--oversubscribe), one thread a run.
# Checks:
# - figures --smoke (figures 1, 2, 4 to 8) on 3 ranks writes the same CSV
#   rows as on one (the timing columns of figures 6 and 8 aside), the same
#   run folders with the same files, and report.md says 3 MPI ranks;
# - a run that fails (compare with --per-solver flip.dx=0.07, which does not
#   tile the tank: found by FLIP alone) is recorded as failed with its reason, exit 4, and the
#   other solvers' runs and rows are kept, as on one rank;
# - a rank killed (SIGKILL) in the middle of a sweep: mpirun fails, the
#   cases finished keep their completion marker and sweep.csv says which
#   did not finish; --resume on 3 ranks runs only those (the finished
#   cases' files untouched) and gives the rows of an uninterrupted sweep;
# - Ctrl-C (SIGINT to mpirun): the same, every case marked;
# - course --check --only 2,6,8 on 3 ranks prints the same outcomes and
#   measurements as on one; course N is refused under mpirun;
# - bad input: one line from fluidlab, exit 1; a command that is not
#   spread (run) is refused under mpirun.
# usage: cli_mpi.sh FLUIDLAB SCRATCH_DIR MPIEXEC
set -u
source "$(dirname "$0")/cli_common.sh"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
# as root (the CI container) Open MPI wants both the option and the variables
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
# Under the sanitizer build, LeakSanitizer finds Open MPI's own allocations
# at exit (its components, unloaded by then, show as "<unknown module>"):
# leak checks off for the mpirun lines only; the one-rank lines keep them.
mpi=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$3" --oversubscribe --allow-run-as-root -np 3)

# the columns of a CSV file but those named (wall times), with cut
without() { # file, column names...
  local file=$1 keep
  shift
  keep=$(head -1 "$file" | tr ',' '\n' | grep -nvxF "$(printf '%s\n' "$@")" | cut -d: -f1 | paste -sd,)
  cut -d, -f"$keep" "$file"
}

# ---- figures: the same files on 3 ranks as on 1
figs=(figures --smoke --only 1,2,4,5,6,tool --threads 1 --quiet --no-plot --out out)
mkdir -p "$dir/one" "$dir/three"
(cd "$dir/one" && "$bin" "${figs[@]}" 2>../one.err)
check "figures on one rank exits 0" $?
(cd "$dir/three" && "${mpi[@]}" "$bin" "${figs[@]}" 2>../three.err)
check "figures on 3 ranks exits 0" $?
for f in fig1_density fig2_convergence fig2_pressure fig4_stability fig5_front fig7_tool_force fig7_tool_phases; do
  cmp -s "$dir/one/out/$f.csv" "$dir/three/out/$f.csv"; check "$f.csv: the same on 3 ranks" $?
done
# figures 6 and 8 are timings: the same rows, the particle counts alike
for f in fig6_scaling fig8_tool_rate; do
  [ "$(cut -d, -f1 "$dir/one/out/$f.csv")" = "$(cut -d, -f1 "$dir/three/out/$f.csv")" ] && [ -s "$dir/one/out/$f.csv" ]
  check "$f.csv: the same rows on 3 ranks" $?
done
[ "$(cd "$dir/one/out/runs" && find . -type f | sort)" = "$(cd "$dir/three/out/runs" && find . -type f | sort)" ]
check "the same run folders and files on 3 ranks" $?
runs=$(find "$dir/three/out/runs" -name run.complete | wc -l)
[ "$runs" -ge 40 ] && [ "$runs" -eq "$(find "$dir/three/out/runs" -name run.json | wc -l)" ]
check "every run has its completion marker ($runs)" $?
same=0
for s in "$dir"/one/out/runs/*/*/stats.csv; do
  t=$dir/three/out/runs/${s#"$dir"/one/out/runs/}
  [ "$(without "$s" ms_integrate ms_grid_build ms_neighbor_search ms_density ms_pressure_solve ms_velocity_update \
    ms_transfer ms_boundary ms_other ms_step)" = "$(without "$t" ms_integrate ms_grid_build ms_neighbor_search \
    ms_density ms_pressure_solve ms_velocity_update ms_transfer ms_boundary ms_other ms_step)" ] || same=1
done
check "every run's stats.csv the same on 3 ranks (stage times aside)" $same
grep -q "3 MPI ranks x 1 thread," "$dir/three/out/report.md"; check "report.md says 3 MPI ranks" $?
! grep -q "MPI ranks" "$dir/one/out/report.md"; check "report.md of one rank says no ranks" $?
grep -q "on 3 ranks" "$dir/three.err"; check "figures on 3 ranks says so on stderr" $?

# ---- a failed run: recorded, exit 4, the others kept (FLIP's cell does
# not tile the tank: found when FLIP makes its grid; a value out of range
# is refused before any run)
cmp_args=(compare dam_break --solvers sph,pbf,flip --set fluid.spacing=0.04 --frames 3 --dt 0.01 --quiet --no-plot
  --threads 1 --per-solver flip.dx=0.07 --out cmp)
(cd "$dir/one" && "$bin" "${cmp_args[@]}" 2>/dev/null)
check "compare with a failing solver on one rank exits 4 ($?)" $(($? != 4))
(cd "$dir/three" && "${mpi[@]}" "$bin" "${cmp_args[@]}" 2>../fail.err)
rc=$?
[ $rc -eq 4 ]; check "on 3 ranks: exit 4 ($rc)" $?
grep -q '^flip,cpu,failed,".*solvers.flip.dx: MAC grid: dx = 0.07 m: the x axis, 1.2 m long, is 17.1429 cells' \
  "$dir/three/cmp/compare.csv"
check "the failed run recorded with its reason" $?
grep -q "1 of 3 runs failed or are missing" "$dir/fail.err"; check "stderr says a run failed" $?
[ -e "$dir/three/cmp/sph/run.complete" ] && [ -e "$dir/three/cmp/pbf/run.complete" ] && [ -s "$dir/three/cmp/pbf/stats.csv" ]
check "the other runs kept, finished" $?
[ "$(without "$dir/one/cmp/compare.csv" wall_s ms_per_step)" = "$(without "$dir/three/cmp/compare.csv" wall_s ms_per_step)" ]
check "compare.csv: the same rows on 3 ranks (wall times aside)" $?

# ---- a rank killed mid-sweep, then --resume
sweep=(sweep dam_break --solver wcsph --set fluid.spacing=0.015 --frames 15 --threads 1 --quiet --no-plot
  --dt 0.0004,0.00045,0.0005,0.00055,0.0006,0.00065,0.0007,0.0008 --out sweep)
(cd "$dir/one" && "$bin" "${sweep[@]}" 2>/dev/null)
check "the sweep on one rank exits 0" $?
# finished FOLDER N PID: until N cases of FOLDER have their marker (60 s at most, while PID runs)
finished() {
  for _ in $(seq 600); do
    [ "$(find "$1" -name run.complete 2>/dev/null | wc -l)" -ge "$2" ] && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
(cd "$dir/three" && exec "${mpi[@]}" "$bin" "${sweep[@]}" 2>../kill.err) &
pid=$!
finished "$dir/three/sweep" 1 $pid
check "the sweep on 3 ranks got under way" $?
victim=""
for p in $(pgrep -f "fluidlab sweep dam_break"); do
  tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && victim=$p
done
[ -n "$victim" ] && kill -KILL "$victim"
check "rank 1 killed" $?
wait $pid
rc=$?
[ $rc -ne 0 ]; check "a killed rank: mpirun fails ($rc)" $?
done_before=$(cd "$dir/three/sweep" && find . -name run.complete | sort)
[ "$(echo "$done_before" | wc -l)" -ge 1 ] && [ "$(echo "$done_before" | wc -l)" -lt 8 ]
check "some cases finished, some not ($(echo "$done_before" | wc -l) of 8)" $?
stamp() { (cd "$dir/three/sweep" && for d in $done_before; do stat -c '%n %y' "$(dirname "$d")"/*; done) }
before=$(stamp)
if [ -s "$dir/three/sweep/sweep.csv" ]; then
  [ "$(grep -cE ',(not run|interrupted),' "$dir/three/sweep/sweep.csv")" -eq $((8 - $(echo "$done_before" | wc -l))) ]
  check "sweep.csv marks every unfinished case" $?
fi
(cd "$dir/three" && "${mpi[@]}" "$bin" "${sweep[@]}" --resume 2>../resume.err)
check "--resume on 3 ranks exits 0" $?
[ "$before" = "$(stamp)" ]; check "--resume left the finished cases' files untouched" $?
[ "$(find "$dir/three/sweep" -name run.complete | wc -l)" -eq 8 ]; check "--resume finished the others" $?
[ "$(without "$dir/one/sweep/sweep.csv" wall_s ms_per_step)" = "$(without "$dir/three/sweep/sweep.csv" wall_s ms_per_step)" ]
check "sweep.csv after --resume: the rows of the uninterrupted sweep (wall times aside)" $?

# ---- Ctrl-C: every rank stops at the end of its step, the rest marked
rm -rf "$dir/three/sweep"
(cd "$dir/three" && exec "${mpi[@]}" "$bin" "${sweep[@]}" 2>../int.err) &
pid=$!
finished "$dir/three/sweep" 1 $pid
kill -INT $pid
wait $pid
rc=$?
[ $rc -ne 0 ]; check "SIGINT to mpirun: exit non-zero ($rc)" $?
grep -q "sweep: interrupted" "$dir/int.err"; check "rank 0 says it was interrupted" $?
n=$(find "$dir/three/sweep" -name run.complete | wc -l)
[ "$(grep -cE ',(not run|interrupted),' "$dir/three/sweep/sweep.csv")" -eq $((8 - n)) ]
check "sweep.csv marks every case without a marker ($((8 - n)))" $?

# ---- bad input: one line, exit 1; run is not spread
"${mpi[@]}" "$bin" sweep dam_break --solver nosuch --dt 0.001 --out "$dir/bad" 2>"$dir/bad.err"
[ $? -eq 1 ] && [ "$(grep -c '^fluidlab: ' "$dir/bad.err")" -eq 1 ] && [ ! -e "$dir/bad" ]
check "bad input on 3 ranks: one line, exit 1, nothing written" $?
# ---- course --check: the exercises over the ranks, the same lines in the lessons' order
"$bin" course --check --only 2,6,8 >"$dir/course_one.out" 2>&1
check "course --check on one rank exits 0" $?
"${mpi[@]}" "$bin" course --check --only 2,6,8 >"$dir/course_three.out" 2>&1
check "course --check on 3 ranks exits 0" $?
diff <(grep -v '^course --check:' "$dir/course_one.out") <(grep -v '^course --check:' "$dir/course_three.out") >/dev/null
check "course --check: the same outcomes and measurements on 3 ranks" $?
"${mpi[@]}" "$bin" course 2 --out "$dir/course" 2>"$dir/course.err"
[ $? -eq 1 ] && [ "$(grep -c 'only --check' "$dir/course.err")" -eq 1 ] && [ ! -e "$dir/course" ]
check "course N under mpirun: refused in one line, exit 1" $?
"${mpi[@]}" "$bin" run dam_break --solver sph --frames 1 --out "$dir/run" 2>"$dir/run.err"
[ $? -eq 1 ] && [ "$(grep -c '^fluidlab: run: runs on one rank' "$dir/run.err")" -eq 1 ] && [ ! -e "$dir/run" ]
check "run under mpirun: refused in one line, exit 1" $?
report
