#!/usr/bin/env bash
# `fluidlab compare` through the real binary: a tiny dam break (d = 0.04 m,
# 3 frames) through SPH, WCSPH and FLIP at a fixed step of 0.01 s, where the
# two explicit SPH solvers blow up and FLIP does not.
# Checks: every expected file is written (each solver's folder, compare.csv,
# compare.md, density.csv, and with gnuplot the PNG and SVG); the unstable
# solvers are recorded as unstable with the reason, not fatal (exit 0); an
# unknown solver or a bad scene key is refused with one line, exit 1, and
# nothing written; --per-solver NAME.KEY=VALUE reaches the solver's
# parameters, and without a solver name it is refused the same way.
# usage: cli_compare.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"

out=$dir/cmp
"$bin" compare dam_break --solvers sph,wcsph,flip --set fluid.spacing=0.04 --frames 3 --dt 0.01 --quiet \
  --out "$out" 2>"$dir/stderr.txt"
check "compare exits 0 although two solvers go unstable" $?
for s in sph wcsph flip; do
  [ -s "$out/$s/stats.csv" ] && [ -s "$out/$s/run.json" ]; check "$s has its own run folder" $?
done
[ "$(wc -l < "$out/compare.csv")" -eq 4 ]; check "compare.csv: a header and one row per solver" $?
grep -q '^sph,cpu,unstable,".*max speed' "$out/compare.csv"; check "sph recorded unstable, with the reason" $?
grep -q '^wcsph,cpu,unstable,' "$out/compare.csv"; check "wcsph recorded unstable" $?
grep -q '^flip,cpu,stable,' "$out/compare.csv"; check "flip recorded stable" $?
[ "$(grep -c '^| ' "$out/compare.md")" -eq 5 ]; check "compare.md: a table of three solvers" $?
[ "$(grep -c '^time,' "$out/density.csv")" -eq 3 ]; check "density.csv: one block per solver" $?
if command -v gnuplot >/dev/null; then
  [ "$(head -c 8 "$out/compare_density.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
  check "compare_density.png is a PNG" $?
  grep -q '<svg' "$out/compare_density.svg"; check "compare_density.svg is an SVG" $?
fi

# a solver's own parameter, the issue's spelling: --per-solver NAME.KEY=VALUE
"$bin" compare dam_break --solvers flip --set fluid.spacing=0.04 --frames 1 --dt 0.01 --quiet \
  --per-solver flip.alpha=0.5 --out "$dir/per" 2>/dev/null
check "compare with --per-solver exits 0" $?
grep -A2 '"parameters"' "$dir/per/flip/run.json" | grep -q '"alpha":[[:space:]]*0.5'
check "--per-solver flip.alpha=0.5 reaches flip's parameters (run.json)" $?
# what the solver ran with, defaults included: the alpha given, the
# tolerance it did not give, the cell it chose (0.05 m tiles the tank where
# 2d = 0.08 m does not) and the preconditioner
taken=$(sed -n '/"parameters_taken"/,/}/p' "$dir/per/flip/run.json")
echo "$taken" | grep -q '"alpha":[[:space:]]*0.5,' && echo "$taken" | grep -q '"tolerance":[[:space:]]*1e-06,' &&
  echo "$taken" | grep -Eq '"dx":[[:space:]]*0.05,' && echo "$taken" | grep -Eq '"preconditioner":[[:space:]]*[03],'
check "run.json's parameters_taken: the given, the defaults and FLIP's chosen dx and preconditioner" $?
"$bin" compare dam_break --solvers flip --per-solver alpha=0.5 --out "$dir/bad0" 2>"$dir/bad0.txt"
[ $? -eq 1 ] && [ "$(wc -l < "$dir/bad0.txt")" -eq 1 ] && grep -q "expected SOLVER.KEY=VALUE" "$dir/bad0.txt"
check "--per-solver without a solver: one line, exit 1" $?
[ ! -e "$dir/bad0" ]; check "--per-solver without a solver: nothing written" $?

"$bin" compare dam_break --solvers sph,nosuch --out "$dir/bad1" 2>"$dir/bad1.txt"
[ $? -eq 1 ] && [ "$(wc -l < "$dir/bad1.txt")" -eq 1 ] && grep -q "unknown solver 'nosuch'" "$dir/bad1.txt"
check "an unknown solver: one line, exit 1" $?
[ ! -e "$dir/bad1" ]; check "an unknown solver: nothing written" $?
"$bin" compare dam_break --solvers sph --set fluid.spacingg=0.04 --out "$dir/bad2" 2>"$dir/bad2.txt"
[ $? -eq 1 ] && [ "$(wc -l < "$dir/bad2.txt")" -eq 1 ]; check "a bad scene key: one line, exit 1" $?
[ ! -e "$dir/bad2" ]; check "a bad scene key: nothing written" $?

# a quote in the folder's name: gnuplot cannot be given it, but without plots it is a name like any
"$bin" compare dam_break --solvers sph --frames 1 --set fluid.spacing=0.04 --no-plot --quiet \
  --out "$dir/it's" 2>/dev/null
[ $? -eq 0 ] && [ -s "$dir/it's/compare.csv" ]; check "--out with a quote and --no-plot: compared" $?
"$bin" compare dam_break --solvers sph --frames 1 --set fluid.spacing=0.04 --quiet --out "$dir/it''s" \
  2>"$dir/quote.txt"
[ $? -eq 1 ] && grep -q "or --no-plot" "$dir/quote.txt"; check "--out with a quote and plots: refused, says why" $?

report
