#!/usr/bin/env bash
# test_plots.sh: the gnuplot run summary (plots/run_summary.gp) on a small
# stats.csv fixture (tests/fixtures/stats_small.csv), and the comparison's
# density chart (plots/compare.gp) on a small density.csv fixture
# (tests/fixtures/density_small.csv: three solvers), and the eight figure
# scripts of `fluidlab figures` (plots/fig*.gp) on tests/fixtures/figures/.
#
# Usage: test_plots.sh PLOTS_DIR SCRATCH_DIR [FIXTURE]
#   PLOTS_DIR    folder holding run_summary.gp
#   SCRATCH_DIR  a folder this test may fill (created when missing; only its
#                own sub-folders "plots_*" are replaced)
#   FIXTURE      stats.csv to use (default: fixtures/stats_small.csv beside
#                this script)
# Checks: a PNG (signature, 900x900) and an SVG are written and gnuplot
# prints no warning; columns are found by name (reordered columns give the
# same picture); a missing stats.csv, a missing column or an unknown format
# fail with a non-zero exit and leave no picture. Prints "N passed, M failed"
# and exits non-zero on any failure.
set -u

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then pass; else fail "$what"; fi
}
report() {
    echo "test_plots: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 PLOTS_DIR SCRATCH_DIR [FIXTURE]" >&2
    exit 2
fi
plots_dir=$(cd "$1" && pwd) || { echo "test_plots: no folder $1" >&2; exit 2; }
script="$plots_dir/run_summary.gp"
fixture=${3:-"$(cd "$(dirname "$0")" && pwd)/fixtures/stats_small.csv"}
mkdir -p "$2" || { echo "test_plots: cannot create $2" >&2; exit 2; }
scratch=$(cd "$2" && pwd)

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "test_plots: gnuplot is not installed (needed for the run plots):" \
         "install gnuplot 5.4 or newer, e.g. 'apt-get install gnuplot-nox'" >&2
    fail "gnuplot not found on PATH"
    report
fi
check "script $script exists" test -f "$script"
check "fixture $fixture exists" test -f "$fixture"
[ "$failed" -eq 0 ] || report

# hex FILE OFFSET COUNT: COUNT bytes of FILE from OFFSET as lowercase hex.
hex() { od -An -tx1 -v -j "$2" -N "$3" "$1" | tr -d ' \n'; }

# run_gp SUBDIR [EXTRA -e ARGS...]: runs gnuplot with dir='SUBDIR' from the
# scratch folder (a relative dir, so that every picture has the same title);
# stderr goes to SUBDIR.log. Returns gnuplot's exit status.
run_gp() {
    local sub=$1
    shift
    (cd "$scratch" && gnuplot -e "dir='$sub'" "$@" "$script") >"$scratch/$sub.log" 2>&1
}

fresh() { # fresh SUBDIR: an empty scratch sub-folder
    rm -rf "${scratch:?}/$1" "${scratch:?}/$1.log"
    mkdir -p "$scratch/$1"
}

# --- PNG -------------------------------------------------------------------
fresh plots_png
cp "$fixture" "$scratch/plots_png/stats.csv"
png="$scratch/plots_png/summary.png"
check "gnuplot exits 0 on the fixture" run_gp plots_png
check "summary.png exists" test -f "$png"
check "summary.png is not empty" test -s "$png"
if [ -s "$png" ]; then
    check "summary.png starts with the PNG signature" \
        test "$(hex "$png" 0 8)" = "89504e470d0a1a0a"
    # IHDR: width and height, big-endian, at bytes 16..23.
    check "summary.png is 900x900" test "$(hex "$png" 16 8)" = "0000038400000384"
fi
check "gnuplot printed no warning (columns found by name)" \
    bash -c "! grep -qi 'warning\|error\|undefined\|skipping' '$scratch/plots_png.log'"

# --- SVG -------------------------------------------------------------------
fresh plots_svg
cp "$fixture" "$scratch/plots_svg/stats.csv"
svg="$scratch/plots_svg/summary.svg"
check "gnuplot exits 0 with fmt='svg'" run_gp plots_svg -e "fmt='svg'"
check "summary.svg exists and is not empty" test -s "$svg"
check "summary.svg is an SVG document" grep -q "<svg" "$svg"
check "fmt='svg' writes no PNG" test ! -e "$scratch/plots_svg/summary.png"

# --- columns by name ---------------------------------------------------------
# The same data with the columns in reverse order draws the same picture.
fresh plots_reordered
awk -F, -v OFS=, '{ s = $NF; for (i = NF - 1; i >= 1; i--) s = s OFS $i; print s }' \
    "$fixture" >"$scratch/plots_reordered/stats.csv"
mkdir -p "$scratch/plots_reordered/a" "$scratch/plots_reordered/b"
cp "$fixture" "$scratch/plots_reordered/a/stats.csv"
mv "$scratch/plots_reordered/stats.csv" "$scratch/plots_reordered/b/stats.csv"
(cd "$scratch/plots_reordered/a" && gnuplot -e "dir='.'" "$script") 2>/dev/null
(cd "$scratch/plots_reordered/b" && gnuplot -e "dir='.'" "$script") 2>/dev/null
check "reordered columns give the same picture" \
    cmp -s "$scratch/plots_reordered/a/summary.png" "$scratch/plots_reordered/b/summary.png"

# --- bad input: non-zero exit, no picture --------------------------------------
fresh plots_missing
if run_gp plots_missing; then fail "a missing stats.csv fails"; else pass; fi
check "a missing stats.csv leaves no picture" test ! -e "$scratch/plots_missing/summary.png"

fresh plots_nocol
cut -d, -f13 --complement "$fixture" >"$scratch/plots_nocol/stats.csv" # drops front_x
check "the fixture's column 13 is front_x" test "$(head -1 "$fixture" | cut -d, -f13)" = "front_x"
if run_gp plots_nocol; then fail "a stats.csv without front_x fails"; else pass; fi
check "the message names the missing column" grep -q 'front_x' "$scratch/plots_nocol.log"
check "a missing column leaves no picture" test ! -e "$scratch/plots_nocol/summary.png"

fresh plots_badfmt
cp "$fixture" "$scratch/plots_badfmt/stats.csv"
if run_gp plots_badfmt -e "fmt='jpeg'"; then fail "fmt='jpeg' fails"; else pass; fi
check "fmt='jpeg' leaves no picture" test ! -e "$scratch/plots_badfmt/summary.jpeg"

# --- the comparison chart (plots/compare.gp) -----------------------------------
compare_gp="$plots_dir/compare.gp"
density="$(cd "$(dirname "$0")" && pwd)/fixtures/density_small.csv"
fresh compare_png
cp "$density" "$scratch/compare_png/density.csv"
check "compare.gp exits 0 on the fixture" \
    bash -c "cd '$scratch' && gnuplot -e \"dir='compare_png'\" '$compare_gp' >'$scratch/compare_png.log' 2>&1"
cpng="$scratch/compare_png/compare_density.png"
check "compare_density.png is a PNG" test "$(hex "$cpng" 0 8)" = "89504e470d0a1a0a"
check "compare_density.png is 900x700" test "$(hex "$cpng" 16 8)" = "00000384000002bc"
check "compare.gp printed no warning" bash -c "! grep -qi 'warning\|error\|undefined' '$scratch/compare_png.log'"
(cd "$scratch" && gnuplot -e "dir='compare_png'" -e "fmt='svg'" "$compare_gp") 2>/dev/null
check "compare_density.svg is an SVG document" grep -q "<svg" "$scratch/compare_png/compare_density.svg"
check "the SVG names the three solvers" \
    bash -c "grep -q '>sph<' '$scratch/compare_png/compare_density.svg' && grep -q '>pcisph<' '$scratch/compare_png/compare_density.svg' && grep -q '>flip<' '$scratch/compare_png/compare_density.svg'"
fresh compare_missing
if (cd "$scratch" && gnuplot -e "dir='compare_missing'" "$compare_gp") >/dev/null 2>&1; then
    fail "compare.gp fails without density.csv"
else
    pass
fi
check "compare.gp without density.csv leaves no picture" test ! -e "$scratch/compare_missing/compare_density.png"

# --- the figures of `fluidlab figures` (plots/fig*.gp) ---------------------------
# Each script on its fixture (tests/fixtures/figures/): a PNG and an SVG,
# no warning, the legend's names in the SVG; without its CSV, a non-zero
# exit and no picture.
figures_fixture="$(cd "$(dirname "$0")" && pwd)/fixtures/figures"
fresh figures_out
cp "$figures_fixture"/*.csv "$scratch/figures_out/"
fresh figures_missing
for name in fig1_density:pbf fig2_convergence:MICCG fig3_stages:pressure_solve fig4_stability:pcisph \
            fig5_front:Martin fig6_scaling:flip fig7_tool_force:sideways fig8_tool_rate:pcisph; do
    fig=${name%%:*}
    word=${name#*:}
    gp="$plots_dir/$fig.gp"
    log="$scratch/figures_out/$fig.log"
    check "$fig.gp exits 0 on its fixture (png)" \
        bash -c "gnuplot -e \"dir='$scratch/figures_out'\" -e \"fmt='png'\" '$gp' >'$log' 2>&1"
    check "$fig.gp exits 0 on its fixture (svg)" \
        bash -c "gnuplot -e \"dir='$scratch/figures_out'\" -e \"fmt='svg'\" '$gp' >>'$log' 2>&1"
    check "$fig.png is a PNG" test "$(hex "$scratch/figures_out/$fig.png" 0 8)" = "89504e470d0a1a0a"
    check "$fig.svg is an SVG document" grep -q "<svg" "$scratch/figures_out/$fig.svg"
    check "$fig.svg names $word" grep -q "$word" "$scratch/figures_out/$fig.svg"
    check "$fig.gp printed no warning" bash -c "! grep -qi 'warning\|error\|undefined' '$log'"
    if gnuplot -e "dir='$scratch/figures_missing'" "$gp" >/dev/null 2>&1; then
        fail "$fig.gp fails without its CSV"
    else
        pass
    fi
    check "$fig.gp without its CSV leaves no picture" test ! -e "$scratch/figures_missing/$fig.png"
done

report
