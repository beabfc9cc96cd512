#!/usr/bin/env bash
# Extreme but finite input through the real binary: the run either plots
# its summary or says once, in one line, why it did not; never a stray
# "gnuplot failed". rest_density = 1e30 overflows the float densities at
# the first step (unstable at step 1, no row in stats.csv); 1e15 runs.
# usage: cli_extreme.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"

small=(dam_break --solver sph --frames 1 --set fluid.spacing=0.04 --quiet)

"$bin" run "${small[@]}" --set fluid.rest_density=1e30 --out "$dir/huge" 2> "$dir/huge.err"
rc=$?
[ $rc -eq 3 ]; check "rho0 = 1e30: unstable, exit 3 (got $rc)" $?
[ "$(wc -l < "$dir/huge.err")" -eq 2 ]; check "rho0 = 1e30: two lines on stderr" $?
grep -q "summary plot skipped: no step completed, .*stats.csv has no rows" "$dir/huge.err"
check "rho0 = 1e30: says why there is no summary" $?
! grep -q "gnuplot failed" "$dir/huge.err"; check "rho0 = 1e30: no 'gnuplot failed'" $?
grep -q "unstable at step 1" "$dir/huge.err"; check "rho0 = 1e30: says where it broke" $?

if command -v gnuplot >/dev/null; then
  "$bin" run "${small[@]}" --set fluid.rest_density=1e15 --out "$dir/large" 2> "$dir/large.err"
  rc=$?
  [ $rc -eq 0 ] && [ "$(wc -l < "$dir/large.err")" -eq 1 ]; check "rho0 = 1e15: runs, one line (got $rc)" $?
  [ -s "$dir/large/summary.png" ] && [ -s "$dir/large/summary.svg" ]; check "rho0 = 1e15: summary drawn" $?

  # a stats.csv whose numbers are all NaN: the script's own reason, once
  mkdir -p "$dir/nan"
  printf 'time,density_err_avg,density_err_max,max_speed,front_x\n0.1,nan,nan,nan,nan\n' > "$dir/nan/stats.csv"
  gnuplot -e "dir='$dir/nan'" "$(dirname "$0")/../plots/run_summary.gp" 2> "$dir/nan.err"
  [ $? -ne 0 ] && grep -q 'column "density_err_avg" is missing or holds no finite number' "$dir/nan.err"
  check "all-NaN stats.csv: the script names the column" $?
else
  echo "note: gnuplot not found; the drawn cases are left out"
fi

report
