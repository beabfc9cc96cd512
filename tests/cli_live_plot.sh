#!/usr/bin/env bash
# `--plot live` through the real binary and the real gnuplot, without a
# display (DISPLAY unset), so that the plot is drawn as text on stdout (the
# dumb terminal): a tiny dam break (d = 0.04 m, 4 frames) under SPH, 16
# frames for the first run (2560 steps: the plot thins its 2048 points).
# Checks: the run exits 0 and writes its usual outputs (stats.csv, run.json,
# summary.png); the text plot is on stdout (its title, the x axis label and
# the key) and gnuplot said nothing on stderr; with DISPLAY set but a
# gnuplot without the qt and x11 terminals, the text plot too; compare
# draws one plot per solver; with gnuplot off the PATH the run goes on, with
# one line saying live plotting is skipped; --plot none draws no summary;
# --plot with anything else is refused with one line, exit 1, nothing
# written.
# Skipped (77) when gnuplot is not installed.
# usage: cli_live_plot.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"
if ! command -v gnuplot >/dev/null; then
  echo "gnuplot is not installed: skipped"
  exit 77
fi

tiny=(dam_break --set fluid.spacing=0.04 --threads 1 --quiet)
out=$dir/run
env -u DISPLAY "$bin" run "${tiny[@]}" --frames 16 --solver sph --plot live --out "$out" >"$dir/run.out" 2>"$dir/run.err"
check "run --plot live exits 0" $?
[ -s "$out/stats.csv" ] && [ -s "$out/run.json" ]; check "stats.csv and run.json written" $?
[ "$(head -c 8 "$out/summary.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
check "summary.png written" $?
grep -q "fluidlab: sph on dam_break, t = 0.533 s" "$dir/run.out"; check "the plot's title on stdout, at the end time" $?
grep -q "simulated time (s)" "$dir/run.out"; check "its x axis label" $?
grep -q "avg compression (%)" "$dir/run.out" && grep -q "max compression (%)" "$dir/run.out" &&
  grep -q "max speed (m/s, right axis)" "$dir/run.out"
check "its key: avg and max compression, max speed" $?
[ "$(grep -c '^fluidlab: sph: ' "$dir/run.err")" -eq 1 ] && [ "$(wc -l < "$dir/run.err")" -eq 1 ]
check "stderr: only the run's summary line (gnuplot silent)" $?

terminals=$(gnuplot -e "set print '-'; print GPVAL_TERMINALS")
if ! [[ " $terminals " =~ " qt " || " $terminals " =~ " x11 " ]]; then
  DISPLAY=:99 "$bin" run "${tiny[@]}" --frames 4 --solver sph --plot live --no-plot --out "$dir/display" >"$dir/display.out" 2>&1
  [ $? -eq 0 ] && grep -q "fluidlab: sph on dam_break, t = 0.133 s" "$dir/display.out"
  check "DISPLAY set, but gnuplot has neither qt nor x11: the text plot" $?
fi

env -u DISPLAY "$bin" compare "${tiny[@]}" --frames 4 --solvers sph,flip --plot live --out "$dir/cmp" >"$dir/cmp.out" 2>"$dir/cmp.err"
check "compare --plot live exits 0" $?
grep -q "fluidlab: sph on dam_break" "$dir/cmp.out" && grep -q "fluidlab: flip on dam_break" "$dir/cmp.out"
check "compare: one plot per solver" $?
[ -s "$dir/cmp/compare.csv" ]; check "compare: compare.csv written" $?

env -u DISPLAY PATH=/nonexistent "$bin" run "${tiny[@]}" --frames 4 --plot live --out "$dir/nognuplot" >"$dir/nognuplot.out" \
  2>"$dir/nognuplot.err"
check "without gnuplot: the run goes on, exit 0" $?
[ "$(grep -c 'live plotting skipped: gnuplot not found (install it' "$dir/nognuplot.err")" -eq 1 ]
check "without gnuplot: one line saying live plotting is skipped and how to install gnuplot" $?
[ -s "$dir/nognuplot/stats.csv" ] && [ ! -s "$dir/nognuplot.out" ]; check "without gnuplot: stats.csv, no plot" $?

"$bin" run "${tiny[@]}" --frames 4 --plot none --out "$dir/none" >/dev/null 2>&1
[ $? -eq 0 ] && [ -s "$dir/none/stats.csv" ] && [ ! -e "$dir/none/summary.png" ]
check "--plot none: no summary.png" $?
"$bin" run "${tiny[@]}" --frames 4 --plot window --out "$dir/bad" >/dev/null 2>"$dir/bad.err"
[ $? -eq 1 ] && [ "$(wc -l < "$dir/bad.err")" -eq 1 ] && grep -q "expected live or none, got 'window'" "$dir/bad.err"
check "--plot window: one line, exit 1" $?
[ ! -e "$dir/bad" ]; check "--plot window: nothing written" $?

report
