# setup_figure.gp: the set-up shared by the figure scripts fig*.gp of
# `fluidlab figures`. Each script sets dir, fmt, name, width and height and
# then loads this file (from its own folder), which
#   - checks fmt ('png' or 'svg'),
#   - checks that DIR/NAME.csv exists and has data rows (else one line and
#     a non-zero exit before any picture is written),
#   - reads CSV (comma-separated), and
#   - opens DIR/NAME.png (pngcairo) or DIR/NAME.svg, width x height pixels,
#     text taken literally (no enhanced mode: pressure_solve keeps its "_").
# It leaves data_file (DIR/NAME.csv) and S_blocks (its number of blocks).

if (fmt ne "png" && fmt ne "svg") {
    print sprintf("%s.gp: fmt='%s': expected 'png' or 'svg'", name, fmt)
    exit status 1
}
set datafile separator comma
data_file = dir . "/" . name . ".csv"
stats data_file using 0 name "S" nooutput
if (!exists("S_records") || S_records == 0) {
    print sprintf("%s.gp: %s: cannot read it, or it has no data rows", name, data_file)
    exit status 1
}
if (fmt eq "png") {
    set terminal pngcairo size width,height font ",10"
} else {
    set terminal svg size width,height font ",10" dynamic
}
set termoption noenhanced
set output dir . "/" . name . "." . fmt
set grid
