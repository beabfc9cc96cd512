#!/usr/bin/env bash
# `fluidlab validate` through the real binary (docs/validation.md): the
# cheapest case, `validate --quick --only hydrostatic` (the 2D tank at rest
# for 2 s at d = 0.05, 0.025 and 0.0125 m under sph, wcsph, pcisph and pbf;
# about 35 s on two cores).
# Checks: exit 0; report.md with the command, the commit, the hydrostatic
# section, a row per run (12) with its order of convergence (signed, "-" on
# the coarsest), flip and pic said to be skipped and why; hydrostatic.csv,
# and with gnuplot hydrostatic.png (more than two colours,
# tests/png_colours.py) and .svg; no report.md.part left. The measure, at
# every resolution: WCSPH's pressure slope within 3 % of rho0 g / kappa,
# the slope at which the discrete gradient balances gravity (test_2d's
# bound for the 2D tank), and within 20 % of rho0 g itself (the 2D
# lattice's kappa = 0.874 puts the balance 14 % above it). --resume into
# the same folder runs nothing again and says the runs came from the
# earlier command. Bad input (--only nosuch, an unknown option): one line,
# exit 1, nothing written.
set -u
source "$(dirname "$0")/cli_common.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
export OMP_WAIT_POLICY=passive

out=$dir/validate
"$bin" validate --quick --only hydrostatic --threads 2 --quiet --out "$out" 2>"$dir/stderr.txt"
check "validate --quick --only hydrostatic exits 0" $?
grep -q "fluidlab validate --quick --only hydrostatic" "$out/report.md"; check "report.md names the command" $?
grep -q "commit [0-9a-f]" "$out/report.md"; check "report.md names the commit" $?
grep -q "^## Hydrostatic tank" "$out/report.md"; check "report.md has the hydrostatic section" $?
! grep -q "^## Martin\|^## Still" "$out/report.md"; check "report.md has only the case asked for" $?
rows=$(grep -c '^| \(sph\|wcsph\|pcisph\|pbf\) | \(coarse\|medium\|fine\) | ' "$out/report.md")
[ "$rows" -eq 12 ]; check "report.md has a row per run ($rows of 12)" $?
[ "$(grep -c '^| [a-z]* | coarse | .* | - |$' "$out/report.md")" -eq 4 ]; check "no order on the coarsest runs" $?
[ "$(grep -c '^| [a-z]* | \(medium\|fine\) | .* | [+-][0-9.]* |$' "$out/report.md")" -eq 8 ]
check "a signed order on every finer run" $?
grep -q "^flip: skipped\. Its pressure lives on the MAC grid" "$out/report.md" &&
  grep -q "^pic: skipped\." "$out/report.md"
check "flip and pic: skipped, and why" $?
[ ! -e "$out/report.md.part" ]; check "no half-written report is left" $?
[ -s "$out/hydrostatic.csv" ]; check "hydrostatic.csv is written" $?
if command -v gnuplot >/dev/null; then
  colours=$(python3 "$src/tests/png_colours.py" "$out/hydrostatic.png" | awk '{ print $1 }')
  [ "${colours:-0}" -gt 2 ]; check "hydrostatic.png has more than two colours (${colours:-none})" $?
  grep -q '<svg' "$out/hydrostatic.svg"; check "hydrostatic.svg is an SVG" $?
fi
# WCSPH's block of hydrostatic.csv: spacing_m,wcsph,error_vs_rho0g,error_vs_balance,...
awk -F, '
  /^spacing_m,/ { inblock = ($2 == "wcsph"); next }
  inblock && NF > 4 {
    n++
    if ($4 < -0.03 || $4 > 0.03) bad++
    if ($3 < -0.20 || $3 > 0.20) bad++
    printf "wcsph d = %s m: dp/depth %+.2f %% against rho0 g, %+.2f %% against rho0 g / kappa\n", $1, 100 * $3, 100 * $4
  }
  END { exit !(n == 3 && bad == 0) }' "$out/hydrostatic.csv"
check "wcsph: the slope within 3 % of rho0 g / kappa and 20 % of rho0 g at every resolution" $?

"$bin" validate --quick --only hydrostatic --threads 2 --quiet --resume --out "$out" 2>"$dir/resume.txt"
check "--resume exits 0" $?
grep -q "12 runs (12 of them from an earlier command" "$out/report.md"; check "--resume ran nothing again" $?

refused "--only nosuch" "--only nosuch" "$dir/bad1" "$bin" validate --quick --only nosuch --out "$dir/bad1"
refused "an unknown option" "--fast: unknown option" "$dir/bad2" "$bin" validate --fast --out "$dir/bad2"
report
