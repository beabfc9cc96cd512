#!/usr/bin/env bash
# `fluidlab figures` through the real binary.
#   cli_figures.sh FLUIDLAB SCRATCH_DIR           --smoke: every figure at the
#       smallest sizes (the pipeline, in both CI builds)
#   cli_figures.sh FLUIDLAB SCRATCH_DIR --quick   the README's default job
#       (label long, Release only)
# Checks: exit 0; for each of the nine figures its CSV, and with gnuplot its
# PNG and SVG; report.md with nine sections, the command, the commit and one
# table row per run; every planned run has its folder; the unstable cases
# are recorded as such in report.md, not fatal. Without gnuplot (PATH
# emptied): the CSV and report.md, one line saying how to install it. Bad
# options: one line, exit 1, nothing written.
set -u
source "$(dirname "$0")/cli_common.sh"
mode=${3:---smoke}

out=$dir/figures
"$bin" figures "$mode" --quiet --out "$out" 2>"$dir/stderr.txt"
check "figures $mode exits 0" $?
for f in fig1_density fig2_convergence fig2_pressure fig3_stages fig3_percent fig4_stability fig5_front fig6_scaling \
  fig7_tool_force fig7_tool_phases fig8_tool_rate fig9_iterations; do
  [ -s "$out/$f.csv" ]; check "$f.csv is written" $?
done
if command -v gnuplot >/dev/null; then
  for f in fig1_density fig2_convergence fig3_stages fig4_stability fig5_front fig6_scaling fig7_tool_force \
    fig8_tool_rate fig9_iterations; do
    [ "$(head -c 8 "$out/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; check "$f.png is a PNG" $?
    grep -q '<svg' "$out/$f.svg"; check "$f.svg is an SVG" $?
  done
fi
[ "$(grep -c '^## Figure [1-9]\. ' "$out/report.md")" -eq 9 ]; check "report.md has nine figure sections" $?
# figure 9: MGPCG's iterations grow least from the smallest grid to the largest (its blocks: n,iterations,...)
awk -F, '/^cells per edge,/ { name = $2; next } NF == 4 { if (!(name in first)) first[name] = $2; last[name] = $2 }
  END { mg = last["MGPCG"] / first["MGPCG"]; mic = last["MICCG"] / first["MICCG"]; exit !(mg < mic) }' \
  "$out/fig9_iterations.csv"
check "fig9_iterations.csv: MGPCG's iterations grow less than MICCG's" $?
grep -q "fluidlab figures $mode" "$out/report.md"; check "report.md names the command" $?
grep -q "commit [0-9a-f]" "$out/report.md"; check "report.md names the commit" $?
grep -q "^Reading: " "$out/report.md"; check "report.md reads the figures" $?
[ ! -e "$out/report.md.part" ]; check "no half-written report is left" $?
runs=$(find "$out/runs" -name run.json | wc -l)
[ "$runs" -ge 60 ]; check "every planned run has its folder ($runs)" $?
# figure 4: SPH at one step per 60 Hz frame breaks the criteria at every size
grep -q '^| sph | .*1: unstable: step [0-9]* (t = [0-9.]* s): max speed' "$out/report.md"
check "the unstable cases are recorded with when and why" $?
grep -q '^sph,0,1,0,0.0166667,0,' "$out/fig4_stability.csv"; check "fig4_stability.csv: sph at 1 step per frame unstable" $?

# without gnuplot: the CSV files and report.md, and one line saying so
nog=$dir/no_gnuplot
PATH=/nonexistent "$bin" figures --smoke --only 6 --quiet --out "$nog" 2>"$dir/nog.txt"
check "without gnuplot: exit 0" $?
[ -s "$nog/fig6_scaling.csv" ] && [ -s "$nog/report.md" ]; check "without gnuplot: CSV and report.md written" $?
[ ! -e "$nog/fig6_scaling.png" ]; check "without gnuplot: no picture" $?
[ "$(grep -c 'gnuplot not found (install it: apt-get install gnuplot-nox)' "$dir/nog.txt")" -eq 1 ]
check "without gnuplot: said once, with how to install it" $?

refused "--only 10" "--only 10" "$dir/bad1" "$bin" figures --only 10 --out "$dir/bad1"
refused "an unknown option" "--fast: unknown option" "$dir/bad2" "$bin" figures --fast --out "$dir/bad2"
report
